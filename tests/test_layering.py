"""DESIGN.md's dependency rules, as import-linter contracts, and headless never loading Textual."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_hold():
    exe = Path(sys.executable).parent / "lint-imports"
    r = subprocess.run([str(exe), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 broken" in r.stdout


def test_headless_never_loads_textual():
    code = (
        "import sys, mika_tui.launcher, mika.cli, mika.headless, mika.headless_command, mika.assembly;"
        "bad = [m for m in sys.modules if m == 'textual' or m.startswith('textual.') or m.startswith('mika_tui.app')];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
