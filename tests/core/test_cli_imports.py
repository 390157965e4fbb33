"""`mika --help` and `mika GROUP --help` load no subcommand's heavy dependencies.

Run in a fresh interpreter through the console script's own entry (mika_tui.launcher:main),
so what is measured is what a user's `mika --help` imports.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ["adbutils", "requests", "httpx", "PIL", "openai", "anthropic", "uiautomator2", "textual"]

_PROBE = """
import json, sys
from mika_tui.launcher import main
sys.argv = ["mika", *json.loads(sys.argv[1])]
try:
    main()
except SystemExit as exc:
    code = exc.code
else:
    code = 0
print(json.dumps({"code": code, "loaded": sorted(m for m in sys.modules if m.split('.')[0] in HEAVY)}), file=sys.stderr)
"""


def _help(*args: str) -> tuple[str, dict]:
    code = _PROBE.replace("HEAVY", repr(set(HEAVY)))
    r = subprocess.run([sys.executable, "-c", code, json.dumps(list(args))], capture_output=True, text=True, timeout=60)
    report = json.loads(r.stderr.strip().splitlines()[-1])
    return r.stdout, report


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["runs", "--help"],
        ["models", "--help"],
        ["devices", "--help"],
        ["sim", "--help"],
        ["inspect", "--help"],
        ["conversations", "--help"],
        ["knowledge", "--help"],
        ["skills", "--help"],
    ],
)
def test_help_loads_no_heavy_dependency(args):
    out, report = _help(*args)
    assert report["code"] in (0, None), out
    assert report["loaded"] == [], f"`mika {' '.join(args)}` imported {report['loaded']}"
    assert "Usage: mika" in out


def test_top_help_lists_every_group():
    out, _ = _help("--help")
    for name in [
        "run",
        "runs",
        "conversations",
        "models",
        "usage",
        "config",
        "devices",
        "connect",
        "disconnect",
        "pair",
        "inspect",
        "sim",
        "knowledge",
        "skills",
    ]:
        assert f"  {name} " in out, f"{name} missing from mika --help:\n{out}"
