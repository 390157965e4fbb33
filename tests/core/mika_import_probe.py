"""Run the `mika` console script's own entry (mika_tui.launcher:main) in a fresh
interpreter and report which modules it imported, so a test sees what a user's `mika …`
imports. `groups` name lists of module prefixes ("adbutils" matches adbutils and
adbutils.*); the report holds, per name, the loaded modules under those prefixes, and the
exit code."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence

_PROBE = """
import json, sys
from mika_tui.launcher import main
args, groups = json.loads(sys.argv[1]), json.loads(sys.argv[2])
sys.argv = ["mika", *args]
try:
    main()
except SystemExit as exc:
    code = exc.code
else:
    code = 0
report = {"code": code}
for name, prefixes in groups.items():
    report[name] = sorted(m for m in sys.modules if any(m == p or m.startswith(p + ".") for p in prefixes))
print(json.dumps(report), file=sys.stderr)
"""


def probe(
    args: Sequence[str], groups: Mapping[str, Sequence[str]], *, env: Mapping[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], dict]:
    r = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(list(args)), json.dumps({k: list(v) for k, v in groups.items()})],
        capture_output=True,
        text=True,
        timeout=60,
        env=None if env is None else dict(env),
    )
    return r, json.loads(r.stderr.strip().splitlines()[-1])
