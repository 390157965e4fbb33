"""DESIGN.md's dependency rules: the import-linter contracts, no import cycle between mika's
packages, the simulated phone importing only itself, and headless never loading Textual."""

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


# -- no import cycle between mika's packages -------------------------------------------


def _unit(module: str) -> str:
    """The package-level node a module belongs to: `mika.X` for mika/X/… and mika/X.py."""
    return ".".join(module.split(".")[:2])


def _package_edges(graph) -> dict[tuple[str, str], list[tuple[str, str]]]:
    edges: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for module in graph.modules:
        if module != "mika" and not module.startswith("mika."):
            continue
        for imported in graph.find_modules_directly_imported_by(module):
            if not imported.startswith("mika.") and imported != "mika":
                continue
            a, b = _unit(module), _unit(imported)
            if a != b:
                edges.setdefault((a, b), []).append((module, imported))
    return edges


def _cycles(edges) -> list[list[str]]:
    """Strongly connected groups of more than one package (Tarjan), each sorted."""
    succ: dict[str, set[str]] = {}
    for a, b in edges:
        succ.setdefault(a, set()).add(b)
        succ.setdefault(b, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(succ[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(succ):
        if node not in index:
            visit(node)
    return found


def _mika_graph():
    import grimp

    return grimp.build_graph("mika", cache_dir=None)


def test_the_cycle_finder_sees_a_cycle_through_three_packages():
    import grimp

    graph = grimp.ImportGraph()
    for a, b in [
        ("mika.a.x", "mika.b.y"),
        ("mika.b.y", "mika.c"),
        ("mika.c", "mika.a.z"),
        ("mika.d", "mika.a.x"),
        ("mika.a.x", "mika.a.z"),
    ]:  # the last one stays inside mika.a: not a package edge
        graph.add_import(importer=a, imported=b)
    assert _cycles(_package_edges(graph)) == [["mika.a", "mika.b", "mika.c"]]


def test_no_import_cycle_between_mika_packages():
    edges = _package_edges(_mika_graph())
    assert ("mika.agent", "mika.tool") in edges  # the graph really holds the package edges
    report = []
    for group in _cycles(edges):
        members = set(group)
        report.append(
            " <-> ".join(group)
            + ": "
            + "; ".join(
                f"{m} -> {i}"
                for (a, b), pairs in sorted(edges.items())
                if a in members and b in members
                for m, i in pairs[:2]
            )
        )
    assert not report, "import cycles between packages:\n" + "\n".join(report)


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
