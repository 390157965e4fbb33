"""DESIGN.md's dependency rules: the import-linter contracts (among them no import circle at
any depth), the simulated phone importing only itself, and headless never loading Textual."""

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


def _unit(module: str) -> str:
    """The package-level node a module belongs to: `mika.X` for mika/X/… and mika/X.py."""
    return ".".join(module.split(".")[:2])


def _mika_graph():
    import grimp

    return grimp.build_graph("mika", cache_dir=None)


# -- no import circle at any depth ----------------------------------------------------
# The contract "No import circles" (acyclic_siblings) holds that within every package the
# siblings import each other one way only; these keep it from being weakened unseen and
# show it catches what it is for.


def _circle_contract() -> dict:
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c["type"] == "acyclic_siblings"]
    assert not config.get("exclude_type_checking_imports"), "type-checking imports are edges too"
    return contract


def test_the_circle_contract_covers_both_packages_to_their_deepest_module():
    contract = _circle_contract()
    assert sorted(contract["ancestors"]) == ["mika", "mika_tui"]
    assert not contract.get("ignore_imports") and not contract.get("skip_descendants")
    deepest = max(
        len(p.relative_to(ROOT).parts) - 1 for package in ("mika", "mika_tui") for p in (ROOT / package).rglob("*.py")
    )
    assert contract.get("depth", 10) >= deepest, (contract.get("depth", 10), deepest)


def test_the_circle_contract_catches_a_type_checking_circle_deep_down(tmp_path):
    """Two modules three packages down that see each other only for typing: broken."""
    deep = tmp_path / "mika" / "a" / "b"
    deep.mkdir(parents=True)
    for folder in (tmp_path / "mika", tmp_path / "mika" / "a", deep):
        (folder / "__init__.py").write_text("")
    (deep / "left.py").write_text("from mika.a.b.right import B\nA = B\n")
    (deep / "right.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from mika.a.b.left import A\nB = 1\n"
    )
    (tmp_path / ".importlinter").write_text(
        "[importlinter]\nroot_package = mika\n\n[importlinter:contract:circles]\n"
        "name = No import circles\ntype = acyclic_siblings\nancestors =\n    mika\n"
    )
    exe = Path(sys.executable).parent / "lint-imports"
    env = {**__import__("os").environ, "PYTHONPATH": str(tmp_path)}
    r = subprocess.run([str(exe), "--no-cache"], cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "No cycles are allowed in mika.a.b" in r.stdout, r.stdout


def test_the_simulated_phone_imports_only_itself():
    graph = _mika_graph()
    leaks = sorted(
        (module, imported)
        for module in graph.find_descendants("mika.sim") | {"mika.sim"}
        for imported in graph.find_modules_directly_imported_by(module)
        if (imported == "mika" or imported.startswith("mika.")) and _unit(imported) != "mika.sim"
    )
    assert not leaks, leaks


def test_the_layers_contract_keeps_design_s_order():
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"][
        "contracts"
    ]
    (layers,) = [c["layers"] for c in contracts if c["type"] == "layers"]
    flat = [name.strip("() ") for layer in layers for name in layer.replace(":", "|").split("|")]
    order = [
        "mika_tui",
        "mika.cli",
        "mika.commands",
        "mika.assembly",
        "mika.cap",
        "mika.run",
        "mika.agent",
        "mika.action",
        "mika.tool",
        "mika.record",
        "mika.usage",
        "mika.model",
        "mika.atomic_write",
        "mika.config",
    ]
    assert [flat.index(name) for name in order] == sorted(flat.index(name) for name in order)
    # the observe/record/runtypes layer and the model/uistate layer hold independent siblings
    assert "mika.observe | mika.record | mika.runtypes" in layers and "mika.model | mika.uistate" in layers
