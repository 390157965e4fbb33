"""UsageLedger: real files in a temp dir, real threads."""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime

from mika.model.messages import NO_USAGE, Usage
from mika.usage.ledger import UsageLedger, UsageRow

T0 = datetime(2026, 3, 1, 10, 30, tzinfo=UTC).timestamp()


def test_hour_buckets_and_unreported_calls(tmp_path):
    ledger = UsageLedger(tmp_path / "usage-v1.json", clock=lambda: T0)
    ledger.record("ds", "chat", "main", Usage(100, 10, 80))
    ledger.record("ds", "chat", "main", Usage(50, 5, 0), at=T0 + 600)
    ledger.record("ds", "chat", "judge", Usage(7, 1, 0))
    ledger.record("ds", "chat", "main", NO_USAGE)
    ledger.record("ds", "chat", "main", Usage(1, 1), at=T0 + 3600)
    hour = int(T0 // 3600 * 3600)
    assert ledger.rows() == [
        UsageRow(hour, "ds", "chat", "judge", 7, 1, 0, 1, 0),
        UsageRow(hour, "ds", "chat", "main", 150, 15, 80, 2, 1),
        UsageRow(hour + 3600, "ds", "chat", "main", 1, 1, 0, 1, 0),
    ]
    ledger.close()


def test_written_in_the_background_and_read_back(tmp_path):
    path = tmp_path / "usage-v1.json"
    ledger = UsageLedger(path, flush_interval=0.1)
    ledger.record("a", "m", "main", Usage(3, 4, 1))
    deadline = time.time() + 3
    while not path.exists() and time.time() < deadline:
        time.sleep(0.02)
    data = json.loads(path.read_text())
    assert data["version"] == 1 and data["columns"][:4] == ["hour", "provider", "model", "purpose"]
    assert data["rows"][0][1:] == ["a", "m", "main", 3, 4, 1, 1, 0]
    ledger.record("a", "m", "main", Usage(1, 1, 0))
    ledger.close()
    again = UsageLedger(path)
    assert again.rows()[0].input == 4 and again.rows()[0].calls == 2
    assert not list(tmp_path.glob("*.tmp"))  # atomic writes leave no temp files


def test_thread_safe_counting(tmp_path):
    ledger = UsageLedger(tmp_path / "u.json", flush_interval=0.05)

    def work():
        for _ in range(500):
            ledger.record("p", "m", "main", Usage(1, 2, 0))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    ledger.close()
    total = UsageLedger(tmp_path / "u.json").rows()
    assert sum(r.calls for r in total) == 4000 and sum(r.output for r in total) == 8000


def test_old_buckets_are_dropped_after_400_days(tmp_path):
    now = T0
    ledger = UsageLedger(tmp_path / "u.json", clock=lambda: now)
    ledger.record("p", "m", "main", Usage(1, 1), at=now - 401 * 86400)
    ledger.record("p", "m", "main", Usage(2, 2), at=now - 399 * 86400)
    ledger.flush()
    rows = UsageLedger(tmp_path / "u.json", clock=lambda: now).rows()
    assert [r.input for r in rows] == [2]
    ledger.close()


def test_unreadable_file_is_kept_aside(tmp_path):
    path = tmp_path / "usage-v1.json"
    path.write_text("{not json")
    ledger = UsageLedger(path)
    assert ledger.rows() == []
    assert (tmp_path / "usage-v1.json.unreadable").read_text() == "{not json"


def test_two_processes_sharing_the_file_lose_nothing(tmp_path):
    path = tmp_path / "usage-v1.json"
    tui, headless = UsageLedger(path), UsageLedger(path)
    tui.record("p", "m", "main", Usage(10, 1))
    headless.record("p", "m", "main", Usage(5, 1))
    tui.flush()
    headless.flush()
    tui.record("p", "m", "main", Usage(1, 0))
    tui.close()
    headless.close()
    (only,) = UsageLedger(path).rows()
    assert (only.input, only.calls) == (16, 3)


def test_a_process_that_exits_soon_still_writes_its_counts(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "usage-v1.json"
    code = (
        "from mika.usage.ledger import UsageLedger\n"
        "from mika.model.messages import Usage\n"
        f"UsageLedger({str(path)!r}).record('p', 'm', 'main', Usage(9, 9))\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    assert UsageLedger(path).rows()[0].input == 9
