"""Shared by the start-up benchmarks: a fresh interpreter timed from just before it is
spawned, with its modules' bytecode in one of two states.

- "bytecode": every module compiled (a private pycache, warmed by a first run);
- "source": Mika and its dependencies compiled from source on every start, the standard
  library compiled (it ships compiled): as on a first start after an install that did not
  compile bytecode, with PYTHONDONTWRITEBYTECODE set (as in this environment).

A private PYTHONPYCACHEPREFIX keeps either state independent of whatever `__pycache__`
folders the working tree has. `time.perf_counter` is CLOCK_MONOTONIC on Linux, the same
clock in parent and child, so a child can report instants on the parent's clock.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

STATES = ("bytecode", "source")


class PycacheStates:
    def __init__(self, work: Path, env: dict[str, str]) -> None:
        self.work = work
        self.env = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def env_for(self, state: str) -> dict[str, str]:
        env = dict(self.env)
        env["PYTHONPYCACHEPREFIX"] = str(self.work / f"pycache-{state}")
        if state == "source":
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        return env

    def warm(self, argv: list[str]) -> None:
        """Compile what `argv` imports into both states' caches, then strip the "source"
        one down to the standard library's bytecode."""
        for state in STATES:
            env = self.env_for(state)
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            subprocess.run(argv, env=env, capture_output=True, timeout=300, stdin=subprocess.DEVNULL, cwd=self.work)
        source = self.work / "pycache-source"
        stdlib = Path(sys.base_prefix).resolve()
        kept = source / stdlib.relative_to(stdlib.anchor)
        # Everything beside the path down to the standard library goes (Mika, the venv).
        node = source
        for part in kept.relative_to(source).parts:
            for sibling in node.iterdir() if node.exists() else ():
                if sibling.name != part:
                    shutil.rmtree(sibling) if sibling.is_dir() else sibling.unlink()
            node = node / part
        venv = Path(sys.prefix).resolve()
        if venv.is_relative_to(stdlib):  # a venv inside the Python install
            shutil.rmtree(source / venv.relative_to(venv.anchor), ignore_errors=True)


def pyc_count(root: Path) -> int:
    return sum(1 for _ in root.rglob("*.pyc")) if root.exists() else 0
