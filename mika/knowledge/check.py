"""`mika knowledge check` / `mika skills check`: everything the loader would skip, and the
mistakes only a whole folder shows (two files claiming one package, a related skill that
does not exist, a file marked verified that says it is not).

The loader is forgiving so a run never stops on a personal typo; the checker is strict,
because CI runs it on the shipped folders and a user runs it before relying on a file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mika.knowledge.catalog import KnowledgeCatalog, SkillCatalog, skill_roots
from mika.knowledge.front_matter import FrontMatterError

UNVERIFIED_MARK = "(unverified)"


@dataclass
class CheckReport:
    checked: int = 0
    problems: list[FrontMatterError] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, path: Path, line: int, message: str) -> None:
        self.problems.append(FrontMatterError(path, line, message))


def _layout(root: Path, report: CheckReport, folders: dict[str, str]) -> None:
    """Folders that hold no entry file, and files where an entry folder belongs."""
    for folder, filename in folders.items():
        base = root / folder if folder else root
        if not base.is_dir():
            continue
        for child in sorted(base.iterdir()):
            if child.name.startswith("."):
                continue
            if child.is_file():
                if child.suffix.lower() == ".md" and folder:
                    report.add(child, 0, f"a loose file; each entry is a folder holding {filename}")
                continue
            if not (child / filename).is_file():
                near = [p.name for p in child.iterdir() if p.name.lower() == filename.lower()]
                hint = f" (found {near[0]!r}; the name is case-sensitive)" if near else ""
                report.add(child, 0, f"no {filename} in this folder{hint}")


def check_knowledge(root: Path, skills_root: Path | None = None) -> CheckReport:
    """Check one knowledge folder (holding apps/ and/or sites/)."""
    report = CheckReport()
    if not root.is_dir():
        report.add(root, 0, "no such folder")
        return report
    if not (root / "apps").is_dir() and not (root / "sites").is_dir():
        report.add(root, 0, "not a knowledge folder: it needs apps/<package>/APP.md or sites/<domain>/SITE.md")
        return report
    _layout(root, report, {"apps": "APP.md", "sites": "SITE.md"})
    catalog = KnowledgeCatalog.load([(root, "checked")])
    report.checked = len(catalog.entries()) + len(catalog.problems)
    report.problems.extend(catalog.problems)
    skills = _skill_names(skills_root if skills_root is not None else root.parent / "skills")
    claimed: dict[str, Path] = {}
    for entry in catalog.entries():
        for key in ("packages", "domains"):
            for value in getattr(entry, key):
                if value in claimed:
                    report.add(entry.path, _line(entry.path, key), f"{value!r} is claimed by {claimed[value]} too")
                else:
                    claimed[value] = entry.path
        for name in entry.skills:
            if name not in skills:
                report.add(entry.path, _line(entry.path, "skills"), f"related skill {name!r} does not exist")
        if entry.verified and UNVERIFIED_MARK in entry.body:
            report.add(
                entry.path,
                _line(entry.path, "verified"),
                "marked 'verified: true' but the body has statements marked (unverified)",
            )
    return report


def check_skills(root: Path) -> CheckReport:
    report = CheckReport()
    if not root.is_dir():
        report.add(root, 0, "no such folder")
        return report
    _layout(root, report, {"": "SKILL.md"})
    catalog = SkillCatalog.load([(root, "checked")])
    report.checked = len(catalog.skills()) + len(catalog.problems)
    report.problems.extend(catalog.problems)
    return report


def _skill_names(sibling: Path) -> set[str]:
    roots = [(r, o) for r, o in skill_roots() if o != "shipped"]
    if sibling.is_dir():
        roots.append((sibling, "shipped"))
    else:
        roots.extend((r, o) for r, o in skill_roots() if o == "shipped")
    return {s.name for s in SkillCatalog.load(roots).skills()}


def _line(path: Path, key: str) -> int:
    try:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.startswith(f"{key}:"):
                return number
    except (OSError, UnicodeDecodeError):
        pass
    return 1
