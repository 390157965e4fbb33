"""What the run center's state files cost: locked, fsynced, atomic rewrites.

A conversation file is rewritten whole on every change, so the cost grows with its
length; the outbox ledger likewise with its entries. This prints the time of one
turn's writes (begin + finish) against the conversation's length, and one delivery
against the ledger's size, on a temp dir of this machine's disk.

    uv run python benchmarks/run_state.py
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from mika.run.conversations import ConversationStore
from mika.run.outbox import CallbackChannel, Delivery, Outbox
from mika.run.state_lock import update_json


def _median_ms(fn, repeat: int = 15) -> float:
    times = []
    for i in range(repeat):
        start = time.perf_counter()
        fn(i)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def conversation_rows(root: Path) -> list[tuple[str, str, str]]:
    store = ConversationStore(root)
    rows = []
    done = 0
    for size in (10, 100, 500, 1000):
        while done < size:
            store.begin_turn("bench", f"r{done}", "Find the cheapest flight to Lisbon next weekend " * 2)
            store.finish_turn(
                "bench", f"r{done}", outcome="answered", answer="The cheapest direct flight is 420 EUR. " * 8
            )
            done += 1

        def one(i: int, size=size) -> None:
            rid = f"probe-{size}-{i}"
            store.begin_turn("bench", rid, "probe")
            store.finish_turn("bench", rid, outcome="answered", answer="ok")

        ms = _median_ms(one)
        done += 15
        kib = (root / "conversations" / "bench.json").stat().st_size / 1024
        rows.append((f"{size} turns", f"{kib:,.0f} KiB", f"{ms:.1f} ms"))
    return rows


def outbox_rows(root: Path) -> list[tuple[str, str, str]]:
    box = Outbox(root, [CallbackChannel(lambda d: None)])
    rows = []
    for size in (10, 100, 1000, 5000):
        # Fill the ledger directly (delivering thousands one by one would be the whole
        # run); only the cost of one more delivery at that size is measured.
        def fill(data, n=size):
            entries = dict((data or {}).get("entries", {}))
            now = time.time()
            for k in range(len(entries), n):
                entries[f"notice:{k}"] = {
                    "id": f"notice:{k}",
                    "state": "delivered",
                    "owner": "",
                    "created_at": now,
                    "updated_at": now,
                    "delivery": {"text": "x" * 80},
                    "channels": {},
                }
            return {"version": 1, "entries": entries}

        update_json(box.path, fill, {})
        ms = _median_ms(lambda i, size=size: box.deliver(Delivery(f"probe:{size}:{i}", "y")), repeat=10)
        kib = box.path.stat().st_size / 1024
        rows.append((f"{size} entries", f"{kib:,.0f} KiB", f"{ms:.1f} ms"))
    return rows


def _table(title: str, head: tuple[str, str, str], rows: list[tuple[str, str, str]]) -> None:
    print(f"\n{title}")
    print(f"{head[0]:<16}{head[1]:>12}{head[2]:>14}")
    for a, b, c in rows:
        print(f"{a:<16}{b:>12}{c:>14}")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        _table(
            "one turn (begin + finish) vs conversation length",
            ("conversation", "file", "median"),
            conversation_rows(Path(tmp)),
        )
    with tempfile.TemporaryDirectory() as tmp:
        _table(
            "one delivery (pending → attempting → delivered) vs ledger size",
            ("ledger", "file", "median"),
            outbox_rows(Path(tmp)),
        )


if __name__ == "__main__":
    main()
