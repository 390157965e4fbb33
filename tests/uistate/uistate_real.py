"""Real dumps from ../shared/fixtures/real (see PROVENANCE.md there)."""

from __future__ import annotations

import os
from pathlib import Path

FIXTURES = Path(os.environ.get("MIKA_REAL_FIXTURES", Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "real"))
DUMPS = FIXTURES / "ui_dumps"
ALL_DUMPS = sorted(DUMPS.glob("*.xml"))


def dump(name: str) -> bytes:
    return (DUMPS / f"{name}.xml").read_bytes()

# Missing fixtures are a broken checkout, not a reason to pass (or to skip).
assert len(ALL_DUMPS) >= 21, f"expected the real UI dumps in {DUMPS}"
