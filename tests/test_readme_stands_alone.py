"""The README speaks of the repository alone (issue 36): a newcomer's clone has nothing
beside it, so the README names no folder outside the repository, and the test command it
gives is the one CI runs."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_no_path_outside_the_repository() -> None:
    climbing = re.findall(r"(?<![\w.])\.\./[^\s`)]*", README)
    assert not climbing, f"the README points above the clone: {climbing}"
    # Absolute paths of a machine (a home, a work folder), not the sandbox's own /workspace.
    machine = re.findall(r"(?<![\w./])/(?:home|root|work|Users|tmp|mnt|srv|opt)/[^\s`)]*", README)
    assert not machine, f"the README names folders of one machine: {machine}"


def test_every_repository_path_it_names_exists() -> None:
    named = set(re.findall(r"`((?:tests|benchmarks|docs|mika|mika_tui|prompts|knowledge|\.ci)/[^`\s*<>]*)`", README))
    assert named, "the README names files of the repository"
    missing = sorted(p for p in named if not (ROOT / p.rstrip("/")).exists())
    assert not missing, f"the README names paths the repository does not have: {missing}"


def test_the_test_command_is_the_one_ci_runs() -> None:
    command = re.search(r"Run the tests.*?```sh\n(.+?)\n```", README, re.S)
    assert command is not None
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert command.group(1).strip() in ci
