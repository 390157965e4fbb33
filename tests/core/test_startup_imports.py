"""A headless run without a phone (`--device none`) never loads the phone stack: adbutils,
requests/urllib3, PIL, uiautomator2 and the phone capability cost ~300 ms of start-up
(benchmarks/startup.py) and a run without a phone uses none of them.

Run in a fresh interpreter through the console script's own entry, on a scripted model
(so the run is a real one, to its answer, without a provider).
"""

from __future__ import annotations

import json
import os
import subprocess

from tests.core.mika_import_probe import probe

PHONE_STACK = ["adbutils", "requests", "urllib3", "PIL", "uiautomator2", "mika.cap.phone"]


def _run(tmp_path, *args: str) -> tuple[subprocess.CompletedProcess[str], dict]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    env.update(MIKA_STATE_DIR=str(tmp_path / "state"), XDG_CONFIG_HOME=str(tmp_path / "cfg"))
    return probe(args, {"loaded": PHONE_STACK}, env=env)


def test_a_run_without_a_phone_loads_no_phone_stack(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps(["Nothing to do on a phone."]))
    r, report = _run(tmp_path, "--no-ui", "--device", "none", "--model", f"script:{script}", "say hello")
    assert report["code"] in (0, None), r.stderr
    assert r.stdout == "Nothing to do on a phone.\n"
    assert report["loaded"] == [], f"a run without a phone imported {report['loaded']}"


def test_a_run_with_something_owed_still_loads_the_phone_restorers(tmp_path, adb_server):
    """The ledger of what a crashed run borrowed is settled at start: with an item owed, the
    phone's restorers are loaded to give it back (here: the phone is not attached to this
    test's own adb server, so the item is kept for a later start, as before)."""
    state = tmp_path / "state"
    state.mkdir()
    owed = {"id": "ime-00000000", "kind": "ime", "key": "no-such-serial", "restore": {"ime": "x/.Y"},
            "run_id": "r1", "owner": "gone-process", "at": 0.0}  # fmt: skip
    (state / "borrowed.json").write_text(json.dumps({"version": 1, "items": [owed]}))
    script = tmp_path / "script.json"
    script.write_text(json.dumps(["ok"]))
    r, report = _run(tmp_path, "--no-ui", "--device", "none", "--model", f"script:{script}", "say hello")
    assert report["code"] in (0, None), r.stderr
    assert "mika.cap.phone.restore" in report["loaded"]
    items = json.loads((state / "borrowed.json").read_text())["items"]
    assert [i["id"] for i in items] == ["ime-00000000"], "an item owed to an absent phone is kept"
