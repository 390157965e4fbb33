"""Every module of mika/ and mika_tui/ imports alone, in an interpreter holding no other
module of Mika (issue 36): an import circle fails here whatever order the rest of the
suite imports things in. The import-linter contract "No import circles" keeps the graph
acyclic; this shows the same thing where it matters, at import time.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def own_modules() -> list[str]:
    names = []
    for package in ("mika", "mika_tui"):
        for file in sorted((ROOT / package).rglob("*.py")):
            parts = file.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__main__":
                continue  # running the program is its import
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def test_every_module_imports_alone() -> None:
    modules = own_modules()
    assert len(modules) > 400, "the walk found Mika's modules"
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "import_alone_probe.py"), str(ROOT)],
        input="\n".join(modules),
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["checked"] == len(modules)
    failed = report["failed"]
    assert not failed, "modules that do not import alone:\n" + "\n".join(f"  {m}: {e}" for m, e in failed.items())


def test_the_probe_reports_a_circle(tmp_path: Path) -> None:
    """The probe itself: two modules that import each other's names fail, alone."""
    package = tmp_path / "mika"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "left.py").write_text("from mika.right import B\nA = 1\n")
    (package / "right.py").write_text("from mika.left import A\nB = 2\n")
    (package / "fine.py").write_text("import json\nC = json.dumps(3)\n")
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "import_alone_probe.py"), str(tmp_path)],
        input="mika.left\nmika.right\nmika.fine\n",
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(report["failed"]) == {"mika.left", "mika.right"}
    assert "circular import" in report["failed"]["mika.left"]
