"""Compiles Mika's own modules to bytecode once, before the tests start (a pytest plugin).

Many tests start a fresh interpreter (`mika --no-ui`, `mika mcp`, the TUI in tmux, the
import probe). Where PYTHONDONTWRITEBYTECODE is set (as on the machines this suite runs on)
no interpreter keeps what it compiled, so each of them compiled every module it imported
again from source. Existing bytecode is still read under that setting, so one compile in
the controlling process serves them all; a file changed later is compiled again as usual.
(Installed packages are compiled at install: `compile-bytecode` in pyproject's [tool.uv].)
"""

from __future__ import annotations

import compileall
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return  # the controller compiled before the workers started
    for package in ("mika", "mika_tui"):
        compileall.compile_dir(ROOT / package, quiet=2, workers=1)
