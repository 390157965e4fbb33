"""docs/consent.md's table names a test for every input path: each file it names exists,
and each test function it names is in that file (a renamed test can't leave the table
pointing at nothing)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "consent.md"


def _file(path: str) -> Path:
    """A full `tests/…` path, or a file's bare name (`test_touch_routes.py`) as the table
    shortens it after naming it once."""
    if path.startswith("tests/"):
        return ROOT / path
    (found,) = list((ROOT / "tests").rglob(path))
    return found


def test_every_test_the_table_names_exists():
    text = DOC.read_text(encoding="utf-8")
    files = functions = 0
    for ref in re.findall(r"`([^`]+)`", text):
        path, _, name = ref.partition("::")
        path = path.lstrip("…")
        if not (path.endswith(".py") and path.startswith(("tests/", "test_"))):
            continue  # a module of Mika's, named in the prose
        source_file = _file(path)
        assert source_file.is_file(), ref
        files += 1
        func = name.lstrip("…").split("[", 1)[0]
        if func:
            assert f"def {func}(" in source_file.read_text(encoding="utf-8"), ref
            functions += 1
    assert files >= 30 and functions >= 12, (files, functions)
