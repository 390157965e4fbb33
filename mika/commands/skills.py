"""`mika skills list|show|check`: the procedures Mika can load on demand (seed §11).

stdout carries data only; problems and hints go to stderr.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from mika.commands.knowledge import _finish, _warn
from mika.exit_codes import ExitCode
from mika.terminal_text import echo, for_terminal, json_for_terminal, one_line


@click.group("skills")
def skills_group() -> None:
    """Skills: shipped, your own (they win) and learned ones."""


@skills_group.command("list")
@click.option("--json", "as_json", is_flag=True)
def skills_list(as_json: bool) -> None:
    """Every skill: name, where it comes from, what it is for."""
    from mika.knowledge.catalog import SkillCatalog

    catalog = SkillCatalog.load()
    skills = catalog.skills()
    if as_json:
        rows = [
            {"name": s.name, "description": s.description, "origin": s.origin, "path": str(s.path), "files": s.files()}
            for s in skills
        ]
        echo(json_for_terminal({"skills": rows, "problems": [p.as_dict() for p in catalog.problems]}, indent=1))
    else:
        for s in skills:
            echo(f"{s.name:28} {s.origin:8} {one_line(s.description)[:90]}")
        if not skills:
            echo("No skills found.", err=True)
    _warn(catalog.problems)


@skills_group.command("show")
@click.argument("name")
def skills_show(name: str) -> None:
    """One skill's description and body."""
    from mika.knowledge.catalog import SkillCatalog

    catalog = SkillCatalog.load()
    skill = catalog.get(name)
    if skill is None:
        near = ", ".join(s.name for s in catalog.search(name.replace("-", " "), limit=3))
        hint = f" Did you mean: {near}?" if near else " See `mika skills list`."
        echo(f"mika: no skill {name!r}.{hint}", err=True)
        sys.exit(int(ExitCode.USAGE))
    echo(f"{skill.name} — {skill.origin}: {skill.path}")
    echo(one_line(skill.description))
    files = skill.files()
    if files:
        echo(f"files: {one_line(', '.join(files))}")
    echo("")
    echo(for_terminal(skill.body))


@skills_group.command("check")
@click.argument("path", required=False, type=click.Path(path_type=Path))
def skills_check(path: Path | None) -> None:
    """Validate a skills folder (default: yours, the learned and the shipped ones). Exit 2 on any problem."""
    from mika.knowledge.catalog import skill_roots
    from mika.knowledge.check import check_skills

    roots = [path] if path is not None else [r for r, _ in skill_roots() if r.is_dir()]
    checked, problems = 0, []
    for root in roots:
        report = check_skills(root)
        checked += report.checked
        problems.extend(report.problems)
    _finish(checked, problems, "skill")
