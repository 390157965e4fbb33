"""Where each real captured fixture (UI dumps, screenshots, adb outputs, provider
recordings) is read from.

Files whose source licence lets us pass them on (MIT, Apache-2.0) are copied into
`tests/fixtures/real/` with their notices (see PROVENANCE.md there), so a plain clone
tests with them. The others (published without a licence, or under GPL/AGPL) are never
copied into this repo: they are read from the folder `MIKA_REAL_FIXTURES` names (nothing
outside the repository is looked at without it), and a test that needs one skips, naming
the file and the folder it looked in, when that folder does not hold it. CI names its
folder and sets `MIKA_REQUIRE_REAL_FIXTURES=1` (.ci/run), which turns that skip into a
failure: there a missing file is a broken checkout, not a reason to pass.

Every test finds its real fixtures through this module; none spells the path itself.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BUNDLED = REPO / "tests" / "fixtures" / "real"
ENV = "MIKA_REAL_FIXTURES"
REQUIRE_ENV = "MIKA_REQUIRE_REAL_FIXTURES"


def shared_dir() -> Path:
    """The folder the non-redistributable fixtures are read from: `MIKA_REAL_FIXTURES`, or
    without it the bundled folder itself (so only the bundled ones are found)."""
    named = os.environ.get(ENV)
    return Path(named) if named else BUNDLED


def _missing(what: str) -> None:
    reason = f"needs the real fixture {what}, which is not redistributable and so is read from " + (
        f"{ENV}; {shared_dir()} does not hold it" if os.environ.get(ENV) else f"{ENV}, which is not set"
    )
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{REQUIRE_ENV}=1 but the test {reason}", pytrace=False)
    pytest.skip(reason)


def locate(rel: str) -> Path | None:
    """The path of fixture `rel` (e.g. "ui_dumps/gmail__inbox_compose.xml"), bundled copy
    first; None when neither place has it. For collection time, where skipping is not
    possible yet."""
    for root in (BUNDLED, shared_dir()):
        path = root / rel
        if path.exists():
            return path
    return None


def real(rel: str) -> Path:
    """The path of fixture `rel`; inside a test, skips (with the reason) when it is absent."""
    path = locate(rel)
    if path is None:
        _missing(rel)
        raise AssertionError("unreachable")  # pragma: no cover - skip/fail raise
    return path


def real_bytes(rel: str) -> bytes:
    return real(rel).read_bytes()


def is_bundled(rel: str) -> bool:
    return (BUNDLED / rel).exists()


@lru_cache(maxsize=1)
def manifest() -> tuple[dict, ...]:
    """Every real fixture the tests know of, bundled or not (tests/fixtures/real/provenance.json)."""
    return tuple(json.loads((BUNDLED / "provenance.json").read_text(encoding="utf-8")))


def listing(folder: str, suffix: str = "") -> list[str]:
    """Every fixture under `folder` whose name ends with `suffix`, as paths relative to the
    fixture root, sorted: the whole manifest whether or not this machine holds the file (a
    test parametrised over them skips, by name, the ones it lacks), plus any file the
    shared folder adds."""
    names = {e["rel"] for e in manifest() if e["rel"].startswith(folder + "/")}
    base = shared_dir() / folder
    if base.is_dir():
        names.update(str(p.relative_to(shared_dir())) for p in base.rglob("*") if p.is_file())
    return sorted(n for n in names if n.endswith(suffix))


def require_shared(what: str) -> Path:
    """The shared folder, for a test that needs the whole set (e.g. "every real output
    has a parser"); skips with the reason when it is absent."""
    root = shared_dir()
    if not os.environ.get(ENV) or not root.is_dir():
        _missing(what)
    return root
