"""`mika knowledge list|show|check`: what Mika knows about apps and sites (seed §11).

stdout carries data only; problems and hints go to stderr.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from mika.exit_codes import ExitCode
from mika.terminal_text import echo, for_terminal, json_for_terminal, one_line


@click.group("knowledge")
def knowledge_group() -> None:
    """App and site knowledge: the shipped files and your own (which win)."""


@knowledge_group.command("list")
@click.option("--json", "as_json", is_flag=True)
def knowledge_list(as_json: bool) -> None:
    """Every entry: id, kind, name, where it comes from."""
    from mika.knowledge.catalog import KnowledgeCatalog

    catalog = KnowledgeCatalog.load()
    entries = catalog.entries()
    if as_json:
        rows = [
            {
                "id": e.id,
                "kind": e.kind,
                "name": e.name,
                "packages": list(e.packages),
                "domains": list(e.domains),
                "aliases": list(e.aliases),
                "pace": e.pace,
                "verified": e.verified,
                "skills": list(e.skills),
                "origin": e.origin,
                "path": str(e.path),
            }
            for e in entries
        ]
        echo(json_for_terminal({"entries": rows, "problems": [p.as_dict() for p in catalog.problems]}, indent=1))
    else:
        for e in entries:
            flags = " ".join(f for f in (e.pace, "verified" if e.verified else "", e.origin) if f)
            echo(f"{one_line(e.id):42} {e.kind:4} {one_line(e.name)[:28]:28} {flags}")
        if not entries:
            echo("No knowledge found.", err=True)
    _warn(catalog.problems)


@knowledge_group.command("show")
@click.argument("entry_id")
def knowledge_show(entry_id: str) -> None:
    """One entry, as the model would read it. ID is an app's package or a site's domain."""
    from mika.knowledge.catalog import KnowledgeCatalog

    catalog = KnowledgeCatalog.load()
    entry = catalog.get(entry_id) or catalog.for_package(entry_id) or catalog.for_domain(entry_id)
    if entry is None:
        near = ", ".join(e.id for e in catalog.search(entry_id, limit=3))
        hint = f" Did you mean: {near}?" if near else " See `mika knowledge list`."
        echo(f"mika: no knowledge {entry_id!r}.{hint}", err=True)
        sys.exit(int(ExitCode.USAGE))
    echo(f"{entry.name} ({entry.kind} {entry.id}) — {entry.origin}: {entry.path}")
    for label, values in (("packages", entry.packages), ("domains", entry.domains), ("aliases", entry.aliases)):
        if values:
            echo(f"{label}: {one_line(', '.join(values))}")
    echo(f"pace: {entry.pace or 'normal'} · verified: {'yes' if entry.verified else 'no'}")
    echo("")
    echo(for_terminal(entry.body))


@knowledge_group.command("check")
@click.argument("path", required=False, type=click.Path(path_type=Path))
def knowledge_check(path: Path | None) -> None:
    """Validate a knowledge folder (default: yours and the shipped one). Exit 2 on any problem."""
    from mika.knowledge.catalog import knowledge_roots
    from mika.knowledge.check import check_knowledge

    roots = [path] if path is not None else [r for r, _ in knowledge_roots() if r.is_dir()]
    checked, problems = 0, []
    for root in roots:
        report = check_knowledge(root)
        checked += report.checked
        problems.extend(report.problems)
    _finish(checked, problems, "knowledge file")


def _warn(problems: list) -> None:
    for p in problems:
        echo(f"mika: skipped {one_line(str(p))}", err=True)


def _finish(checked: int, problems: list, noun: str) -> None:
    for p in problems:
        echo(one_line(str(p)), err=True)
    s = "" if checked == 1 else "s"
    if problems:
        echo(f"{checked} {noun}{s} checked: {len(problems)} problem(s).", err=True)
        sys.exit(int(ExitCode.USAGE))
    echo(f"{checked} {noun}{s} checked: no problems.", err=True)
