"""The store of learned skills: drafts waiting for the user, and the skills they became.

On disk (DESIGN §7, wave 5 formats):
- `state_dir()/skill_drafts/state.json` — every draft (its text, the run it came from)
  and every learned skill's status and last outcomes. One file, written atomically under
  a lock, so a crash or a second Mika process never leaves a half-moved skill in it.
- `$XDG_DATA_HOME/mika/skills-learned/<name>/SKILL.md` — an accepted skill (trial or
  active): the skill catalog reads it from there like any user skill.
- `state_dir()/skill_drafts/retired/<name>/SKILL.md` — a retired skill's text, kept so
  the user can see what was retired, but out of the catalog's reach.

Order of writes in a move: the skill file first, then the state; a crash between them
leaves the draft pending (accepting it again overwrites the same file) or a retired
skill still listed as before (the next outcome retires it again) — never a state that
points at a file that is not there.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mika.atomic_write import ensure_dir, read_json, write_json, write_text
from mika.config.paths import data_dir, state_dir
from mika.knowledge.learning import skill_file
from mika.knowledge.learning.trial import next_status

STATE_VERSION = 1
# Drafts nobody looks at must not grow without end: past this many, new ones are not kept
# until the user accepts or rejects some.
MAX_PENDING = 20
TRIAL, ACTIVE, RETIRED = "trial", "active", "retired"


class DraftError(Exception):
    """A draft or learned skill that is not there (or can't be stored); the sentence says
    which and what to do."""


def learned_skills_dir() -> Path:
    """`data_dir()/skills-learned/` (`$XDG_DATA_HOME/mika/`): the root the skill catalog
    reads with origin "learned" (`mika.knowledge.catalog.skill_roots`)."""
    return data_dir() / "skills-learned"


@dataclass(frozen=True)
class SkillDraft:
    name: str
    description: str
    body: str
    run_id: str
    goal: str
    created_at: float

    @property
    def text(self) -> str:
        """The SKILL.md this draft becomes when accepted."""
        return skill_file.render(self.name, self.description, self.body, _metadata(self))

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "body": self.body,
            "run_id": self.run_id,
            "goal": self.goal,
            "created_at": self.created_at,
        }


@dataclass(frozen=True)
class LearnedSkill:
    name: str
    status: str  # trial | active | retired
    outcomes: tuple[str, ...] = ()  # the last 3 uses, oldest first: "good" / "bad"
    description: str = ""
    run_id: str = ""  # the run it was learned from
    accepted_at: float = 0.0
    retired_at: float = 0.0
    path: Path | None = None  # its SKILL.md (under skills-learned, or the retired folder)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "outcomes": list(self.outcomes),
            "description": self.description,
            "run_id": self.run_id,
            "accepted_at": self.accepted_at,
            "retired_at": self.retired_at,
            "path": str(self.path) if self.path else "",
        }


def _metadata(draft: SkillDraft) -> dict[str, str]:
    return {"version": "1", "learned_from_run": draft.run_id}


@dataclass
class SkillDrafts:
    folder: Path  # state: state.json, retired/
    learned_dir: Path  # accepted skills: <name>/SKILL.md
    clock: Any = field(default=time.time)

    @classmethod
    def default(cls) -> SkillDrafts:
        return cls(state_dir() / "skill_drafts", learned_skills_dir())

    # -- reading -----------------------------------------------------------------

    @property
    def state_file(self) -> Path:
        return self.folder / "state.json"

    def pending(self) -> list[SkillDraft]:
        state = self._read()
        return [_draft(row) for row in state["drafts"].values()]

    def learned(self) -> list[LearnedSkill]:
        state = self._read()
        return [self._learned(name, row) for name, row in state["learned"].items()]

    def get_learned(self, name: str) -> LearnedSkill | None:
        row = self._read()["learned"].get(name)
        return self._learned(name, row) if row is not None else None

    # -- changing ----------------------------------------------------------------

    def add(
        self,
        name: str,
        description: str,
        body: str,
        *,
        run_id: str,
        goal: str,
        taken: frozenset[str] | set[str] = frozenset(),
    ) -> SkillDraft:
        """Store a new pending draft; a name already in use (or in `taken`: skills shipped
        or the user's own) gets a suffix. Raises DraftError for an invalid name or description."""
        for problem in (skill_file.name_problem(name), skill_file.description_problem(description)):
            if problem:
                raise DraftError(f"The skill draft {name!r} was not stored: {problem}.")
        with self._locked() as state:
            if len(state["drafts"]) >= MAX_PENDING:
                raise DraftError(
                    f"The skill draft {name!r} was not stored: {MAX_PENDING} drafts are already waiting; "
                    "accept or reject some with `mika skills accept|reject NAME`."
                )
            final = skill_file.with_suffix(name, set(state["drafts"]) | set(state["learned"]) | set(taken))
            draft = SkillDraft(final, description.strip(), body.strip("\n"), run_id, goal, self.clock())
            state["drafts"][final] = draft.to_dict()
        return draft

    def accept(self, name: str) -> LearnedSkill:
        """Move a pending draft to skills-learned; it is on trial until a good run uses it."""
        with self._locked() as state:
            row = state["drafts"].get(name)
            if row is None:
                raise DraftError(self._unknown_draft(name, state))
            draft = _draft(row)
            write_text(self._skill_dir(self.learned_dir, name) / "SKILL.md", draft.text)
            state["learned"][name] = {
                "status": TRIAL,
                "outcomes": [],
                "description": draft.description,
                "run_id": draft.run_id,
                "accepted_at": self.clock(),
                "retired_at": 0.0,
            }
            del state["drafts"][name]
            return self._learned(name, state["learned"][name])

    def reject(self, name: str) -> None:
        with self._locked() as state:
            if name not in state["drafts"]:
                raise DraftError(self._unknown_draft(name, state))
            del state["drafts"][name]

    def record_outcome(self, name: str, outcome: str) -> LearnedSkill:
        """One use of a learned skill ended "good" or "bad"; trial → active / retired,
        active → retired after 2 bad of its last 3 uses (`trial.next_status`)."""
        if outcome not in ("good", "bad"):
            raise ValueError(f"an outcome is 'good' or 'bad', not {outcome!r}")
        with self._locked() as state:
            row = state["learned"].get(name)
            if row is None:
                raise DraftError(
                    f"There is no learned skill named {name!r}; see `mika skills drafts` for the learned skills."
                )
            if row["status"] == RETIRED:
                return self._learned(name, row)  # a run that read it before it was retired
            status, outcomes = next_status(row["status"], tuple(row["outcomes"]), outcome)
            if status == RETIRED:
                self._retire_file(name)
                row["retired_at"] = self.clock()
            row["status"], row["outcomes"] = status, list(outcomes)
            return self._learned(name, row)

    # -- inside ------------------------------------------------------------------

    def _retire_file(self, name: str) -> None:
        source = self._skill_dir(self.learned_dir, name)
        target = self._skill_dir(self.folder / "retired", name)
        try:
            text = (source / "SKILL.md").read_text(encoding="utf-8")
        except FileNotFoundError:
            return  # the user removed it by hand: nothing to keep
        # The copy first (SKILL.md atomically, any files beside it after): a crash here
        # leaves the skill where it was, and the next bad outcome retires it again.
        write_text(target / "SKILL.md", text)
        for extra in sorted(source.rglob("*")):
            if extra.is_file() and extra != source / "SKILL.md":
                ensure_dir((target / extra.relative_to(source)).parent)
                shutil.copy2(extra, target / extra.relative_to(source))
        shutil.rmtree(source, ignore_errors=True)

    @staticmethod
    def _skill_dir(root: Path, name: str) -> Path:
        # Names come from state.json, which a person may edit: only a valid skill name
        # ("a-z0-9-", no dots or slashes) becomes a folder we write in or delete.
        problem = skill_file.name_problem(name)
        if problem:
            raise DraftError(
                f"The learned skill {name!r} in {root} has an invalid name ({problem}); fix or remove it in the state file."
            )
        return root / name

    def _learned(self, name: str, row: Mapping[str, Any]) -> LearnedSkill:
        status = str(row.get("status", TRIAL))
        base = self.folder / "retired" if status == RETIRED else self.learned_dir
        return LearnedSkill(
            name=name,
            status=status,
            outcomes=tuple(row.get("outcomes", ())),
            description=str(row.get("description", "")),
            run_id=str(row.get("run_id", "")),
            accepted_at=float(row.get("accepted_at", 0.0)),
            retired_at=float(row.get("retired_at", 0.0)),
            path=base / name / "SKILL.md",
        )

    def _unknown_draft(self, name: str, state: Mapping[str, Any]) -> str:
        if name in state["learned"]:
            return f"The skill {name!r} was already accepted (it is {state['learned'][name]['status']}); nothing to do."
        waiting = ", ".join(sorted(state["drafts"])) or "none"
        return (
            f"There is no skill draft named {name!r} (waiting: {waiting}). "
            "Run `mika skills drafts` to see the drafts and use one of their names."
        )

    def _read(self) -> dict[str, Any]:
        try:
            data = read_json(self.state_file, None)
        except (OSError, ValueError) as exc:
            raise DraftError(
                f"The skill draft file {self.state_file} cannot be read ({exc}); move it aside to start with no drafts."
            ) from exc
        if data is None:
            return {"version": STATE_VERSION, "drafts": {}, "learned": {}}
        problem = _shape_problem(data)
        if problem:
            raise DraftError(
                f"The skill draft file {self.state_file} is not in the expected form ({problem}); "
                "move it aside to start with no drafts."
            )
        return data

    @contextlib.contextmanager
    def _locked(self) -> Iterator[dict[str, Any]]:
        """Read-modify-write of state.json under an flock on a sibling lock file (two Mika
        processes may finish runs at once); written only when the block ends cleanly."""
        ensure_dir(self.folder)
        fd = os.open(self.folder / "state.json.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            state = self._read()
            yield state
            write_json(self.state_file, state)
        finally:
            os.close(fd)  # closing drops the flock


def _shape_problem(data: Any) -> str:
    """What is wrong with a state file's shape (a person may have edited it), or ""."""
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("drafts"), dict)
        or not isinstance(data.get("learned"), dict)
    ):
        return "it needs the tables 'drafts' and 'learned'"
    for name, row in data["drafts"].items():
        if not isinstance(row, dict) or row.get("name") != name:
            return f"draft {name!r} is not a table with its own name"
        if not isinstance(row.get("created_at", 0), (int, float)):
            return f"draft {name!r} has a created_at that is not a number"
    for name, row in data["learned"].items():
        if not isinstance(row, dict) or row.get("status") not in (TRIAL, ACTIVE, RETIRED):
            return f"learned skill {name!r} has no status trial, active or retired"
        outcomes = row.get("outcomes", [])
        if not isinstance(outcomes, list) or any(o not in ("good", "bad") for o in outcomes):
            return f"learned skill {name!r} has outcomes other than 'good' and 'bad'"
        if any(not isinstance(row.get(k, 0), (int, float)) for k in ("accepted_at", "retired_at")):
            return f"learned skill {name!r} has a time that is not a number"
    return ""


def _draft(row: Mapping[str, Any]) -> SkillDraft:
    return SkillDraft(
        name=str(row["name"]),
        description=str(row.get("description", "")),
        body=str(row.get("body", "")),
        run_id=str(row.get("run_id", "")),
        goal=str(row.get("goal", "")),
        created_at=float(row.get("created_at", 0.0)),
    )
