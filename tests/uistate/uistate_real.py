"""Real UI dumps for the uistate tests, found through tests/real_fixtures.py (bundled when
their licence allows, else from MIKA_REAL_FIXTURES; see tests/fixtures/real/PROVENANCE.md)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests.real_fixtures import BUNDLED, listing, real, real_bytes


@dataclass(frozen=True)
class RealDump:
    """One dump of the manifest, read only when a test asks: a test parametrised over
    ALL_DUMPS skips, naming the file, the ones this checkout does not hold."""

    rel: str

    @property
    def stem(self) -> str:
        return Path(self.rel).stem

    @property
    def path(self) -> Path:
        return real(self.rel)

    def read_bytes(self) -> bytes:
        return real_bytes(self.rel)


ALL_DUMPS = [RealDump(rel) for rel in listing("ui_dumps", ".xml")]


def dump(name: str) -> bytes:
    return real_bytes(f"ui_dumps/{name}.xml")


# The manifest is part of the repo: fewer names means a broken checkout, not a reason to
# pass (or to skip).
assert len(ALL_DUMPS) >= 21, f"expected the 21 real UI dumps in the manifest under {BUNDLED}"
