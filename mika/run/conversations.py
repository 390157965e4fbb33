"""Conversations on disk: one JSON file each under `<state>/conversations/`.

A conversation is a list of turns — one per run: what the user said (and steered),
the answer, the outcome, the run id, the tool groups the run really used — plus a
title, a pin time and timestamps.

Only `begin_turn` creates a conversation. Everything that arrives later (the answer,
a stop summary, an automatic title) updates an existing file and is dropped if the
conversation is gone, so a late write never brings a deleted conversation back. A new
turn begun under a deleted id starts the conversation afresh (seed §15).

All reads and writes of this folder take one directory lock (two Mika processes may
share the state dir); every write is atomic.
"""

from __future__ import annotations

import re
import secrets
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mika.atomic_write import write_json
from mika.config.paths import state_dir as default_state_dir
from mika.run.state_lock import quarantine, read_state, state_lock
from mika.run.ui_text import t
from mika.runtypes.spec import PriorTurn

# Outcomes a turn has while its run has not ended yet.
OPEN_OUTCOMES = ("queued", "running")
PRIOR_TURNS = 6  # turns the next run sees in full; older ones via history_read
_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_AUTO_TITLE_CHARS = 40


class ConversationError(Exception):
    """A request about a conversation that cannot be done; `str()` is for the user."""


class ConversationNotFound(ConversationError):
    def __init__(self, conversation_id: str) -> None:
        self.conversation_id = conversation_id
        super().__init__(t("conversation_not_found", id=conversation_id))


class BadConversationId(ConversationError):
    def __init__(self, conversation_id: str) -> None:
        self.conversation_id = conversation_id
        super().__init__(t("bad_conversation_id", id=conversation_id))


def new_conversation_id() -> str:
    return "c" + time.strftime("%Y%m%d%H%M%S") + "-" + secrets.token_hex(3)


def check_id(conversation_id: str) -> str:
    if not isinstance(conversation_id, str) or not _ID.match(conversation_id):
        raise BadConversationId(str(conversation_id))
    return conversation_id


@dataclass(frozen=True)
class Turn:
    run_id: str
    user: str
    answer: str = ""
    outcome: str = "running"
    subtype: str = ""
    groups: tuple[str, ...] = ()
    steers: tuple[str, ...] = ()
    started_at: float = 0.0
    ended_at: float = 0.0
    recovered: bool = False

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Turn:
        return cls(
            run_id=str(d.get("run_id", "")),
            user=str(d.get("user", "")),
            answer=str(d.get("answer", "")),
            outcome=str(d.get("outcome", "")),
            subtype=str(d.get("subtype", "")),
            groups=tuple(d.get("groups", ()) or ()),
            steers=tuple(d.get("steers", ()) or ()),
            started_at=float(d.get("started_at", 0.0) or 0.0),
            ended_at=float(d.get("ended_at", 0.0) or 0.0),
            recovered=bool(d.get("recovered", False)),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "user": self.user,
            "answer": self.answer,
            "outcome": self.outcome,
            "subtype": self.subtype,
            "groups": list(self.groups),
            "steers": list(self.steers),
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "recovered": self.recovered,
        }

    @property
    def user_words(self) -> str:
        """Everything the user said in this turn: the task and its steers."""
        return "\n\n".join((self.user, *self.steers)) if self.steers else self.user

    def as_prior(self) -> PriorTurn:
        return PriorTurn(
            user=self.user_words,
            answer=self.answer,
            outcome=self.outcome,
            run_id=self.run_id,
            groups=self.groups,
        )


@dataclass(frozen=True)
class Conversation:
    id: str
    title: str
    title_by: str  # "" (none yet) | "auto" | "user"
    pinned_at: float
    created_at: float
    updated_at: float
    turns: tuple[Turn, ...]

    @property
    def display_title(self) -> str:
        if self.title:
            return self.title
        for turn in self.turns:
            if turn.user.strip():
                return _shorten(turn.user)
        return ""

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Conversation:
        return cls(
            id=str(d["id"]),
            title=str(d.get("title", "")),
            title_by=str(d.get("title_by", "")),
            pinned_at=float(d.get("pinned_at", 0.0) or 0.0),
            created_at=float(d.get("created_at", 0.0) or 0.0),
            updated_at=float(d.get("updated_at", 0.0) or 0.0),
            turns=tuple(Turn.from_dict(x) for x in d.get("turns", ())),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "title_by": self.title_by,
            "pinned_at": self.pinned_at,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "turns": [x.to_dict() for x in self.turns],
        }


@dataclass(frozen=True)
class ConversationSummary:
    id: str
    title: str
    pinned_at: float
    updated_at: float
    turns: int
    last_outcome: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "pinned_at": self.pinned_at,
            "updated_at": self.updated_at,
            "turns": self.turns,
            "last_outcome": self.last_outcome,
        }


def _shorten(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= _AUTO_TITLE_CHARS else line[: _AUTO_TITLE_CHARS - 1] + "…"


class ConversationStore:
    def __init__(self, state_dir: Path | str | None = None, *, clock: Callable[[], float] = time.time) -> None:
        self.state_dir = Path(state_dir) if state_dir is not None else default_state_dir()
        self.folder = self.state_dir / "conversations"
        self._clock = clock

    # -- paths ------------------------------------------------------------------------

    def path(self, conversation_id: str) -> Path:
        return self.folder / f"{check_id(conversation_id)}.json"

    def workspace(self, conversation_id: str) -> Path:
        """Files that belong to this conversation (attachments, files a task wrote)."""
        return self.state_dir / "workspaces" / check_id(conversation_id)

    # -- reading ----------------------------------------------------------------------

    def _load(self, conversation_id: str) -> Conversation | None:
        path = self.path(conversation_id)
        data = read_state(path, None)
        if data is None:
            return None
        try:
            if not isinstance(data, dict) or data.get("id") != conversation_id:
                raise ValueError("not a conversation of this id")
            return Conversation.from_dict(data)
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            quarantine(path, f"is not a conversation ({exc})")
            return None

    def get(self, conversation_id: str) -> Conversation:
        with state_lock(self.folder):
            conv = self._load(conversation_id)
        if conv is None:
            raise ConversationNotFound(conversation_id)
        return conv

    def exists(self, conversation_id: str) -> bool:
        return self.path(conversation_id).exists()

    def list(self) -> list[ConversationSummary]:
        """Pinned first (most recently pinned on top), then most recently changed."""
        out: list[ConversationSummary] = []
        with state_lock(self.folder):
            paths = sorted(self.folder.glob("*.json")) if self.folder.exists() else []
            for path in paths:
                if not _ID.match(path.stem):
                    continue
                conv = self._load(path.stem)
                if conv is None:
                    continue
                out.append(
                    ConversationSummary(
                        id=conv.id,
                        title=conv.display_title,
                        pinned_at=conv.pinned_at,
                        updated_at=conv.updated_at,
                        turns=len(conv.turns),
                        last_outcome=conv.turns[-1].outcome if conv.turns else "",
                    )
                )
        out.sort(key=lambda s: (0 if s.pinned_at else 1, -s.pinned_at, -s.updated_at))
        return out

    def prior_turns(
        self, conversation_id: str, *, before_run: str = "", last: int = PRIOR_TURNS
    ) -> tuple[PriorTurn, ...]:
        """What the next run of this conversation sees of the earlier ones: the last
        `last` finished turns before `before_run` (the rest via `history_read`)."""
        try:
            conv = self.get(conversation_id)
        except ConversationNotFound:
            return ()
        turns = _turns_before(conv.turns, before_run)
        done = [x for x in turns if x.outcome not in OPEN_OUTCOMES]
        return tuple(x.as_prior() for x in done[-last:]) if last > 0 else ()

    def last_groups(self, conversation_id: str, *, before_run: str = "") -> tuple[str, ...]:
        """Tool groups the previous finished turn really used (opened from the start next time)."""
        prior = self.prior_turns(conversation_id, before_run=before_run, last=1)
        return prior[-1].groups if prior else ()

    def older_turn_count(self, conversation_id: str, *, before_run: str = "", last: int = PRIOR_TURNS) -> int:
        """How many earlier turns are not in `prior_turns` (readable with history_read)."""
        try:
            conv = self.get(conversation_id)
        except ConversationNotFound:
            return 0
        done = [x for x in _turns_before(conv.turns, before_run) if x.outcome not in OPEN_OUTCOMES]
        return max(0, len(done) - last)

    # -- writing ----------------------------------------------------------------------

    def _update(
        self, conversation_id: str, change: Callable[[Conversation], Conversation], *, create: bool = False
    ) -> Conversation | None:
        path = self.path(conversation_id)
        with state_lock(self.folder):
            conv = self._load(conversation_id)
            if conv is None:
                if not create:
                    return None  # deleted (or never was): a late write is dropped
                now = self._clock()
                conv = Conversation(conversation_id, "", "", 0.0, now, now, ())
            new = change(conv)
            if new is conv:
                return conv
            write_json(path, new.to_dict())
            return new

    def create(self, conversation_id: str | None = None) -> Conversation:
        cid = check_id(conversation_id) if conversation_id else new_conversation_id()
        return self._update(cid, lambda c: _touch(c, self._clock(), force=True), create=True)  # type: ignore[return-value]

    def begin_turn(self, conversation_id: str, run_id: str, user: str, *, outcome: str = "running") -> Conversation:
        """Record the user's words for run `run_id` (creates the conversation if needed).
        Begun twice for one run, the second call only updates the outcome."""
        now = self._clock()

        def change(conv: Conversation) -> Conversation:
            for i, turn in enumerate(conv.turns):
                if turn.run_id == run_id:
                    if turn.outcome == outcome:
                        return conv
                    return _replace_turn(conv, i, _with(turn, outcome=outcome), now)
            turn = Turn(run_id=run_id, user=user, outcome=outcome, started_at=now)
            return _touch(_set_turns(conv, (*conv.turns, turn)), now)

        return self._update(conversation_id, change, create=True)  # type: ignore[return-value]

    def add_steer(self, conversation_id: str, run_id: str, text: str) -> bool:
        """A message the user sent into run `run_id` while it ran."""
        return self._update_turn(conversation_id, run_id, lambda x: _with(x, steers=(*x.steers, text))) is not None

    def finish_turn(
        self,
        conversation_id: str,
        run_id: str,
        *,
        outcome: str,
        answer: str = "",
        subtype: str = "",
        groups: tuple[str, ...] = (),
        recovered: bool = False,
        only_if_open: bool = False,
        steers: tuple[str, ...] | None = None,
    ) -> bool:
        """Write the end of a turn. `only_if_open` (recovery) leaves a turn that already
        has its outcome alone, so a second recovery does not overwrite the first.
        `steers`, when given, replaces the turn's steers (with the ones the run read)."""
        now = self._clock()

        def change(turn: Turn) -> Turn:
            if only_if_open and turn.outcome not in OPEN_OUTCOMES:
                return turn
            extra = {} if steers is None else {"steers": tuple(steers)}
            return _with(
                turn,
                outcome=outcome,
                answer=answer,
                subtype=subtype,
                groups=tuple(groups),
                recovered=recovered or turn.recovered,
                ended_at=now,
                **extra,
            )

        return self._update_turn(conversation_id, run_id, change) is not None

    def update_turn(self, conversation_id: str, run_id: str, **fields: Any) -> bool:
        """Change fields of one turn (the stop summary arriving later writes `answer`)."""
        allowed = {"answer", "outcome", "subtype", "groups", "recovered", "steers"}
        unknown = set(fields) - allowed
        if unknown:
            raise TypeError(f"update_turn: unknown fields {sorted(unknown)}")
        return self._update_turn(conversation_id, run_id, lambda x: _with(x, **fields)) is not None

    def _update_turn(self, conversation_id: str, run_id: str, change: Callable[[Turn], Turn]) -> Conversation | None:
        now = self._clock()
        found = False

        def conv_change(conv: Conversation) -> Conversation:
            nonlocal found
            for i, turn in enumerate(conv.turns):
                if turn.run_id == run_id:
                    found = True
                    new = change(turn)
                    return conv if new == turn else _replace_turn(conv, i, new, now)
            return conv

        result = self._update(conversation_id, conv_change)
        return result if found else None

    def set_title(self, conversation_id: str, title: str) -> bool:
        """The automatic title: written only while the conversation has none, so one
        arriving late never overwrites the user's rename."""
        title = " ".join(title.split())
        if not title:
            return False
        written = False

        def change(conv: Conversation) -> Conversation:
            nonlocal written
            if conv.title_by:
                return conv
            written = True
            return _conv(conv, title=title, title_by="auto")

        self._update(conversation_id, change)
        return written

    def rename(self, conversation_id: str, title: str) -> Conversation:
        title = " ".join(title.split())
        if not title:
            raise ConversationError(t("empty_title"))
        conv = self._update(conversation_id, lambda c: _conv(c, title=title, title_by="user"))
        if conv is None:
            raise ConversationNotFound(conversation_id)
        return conv

    def pin(self, conversation_id: str, pinned: bool = True) -> Conversation:
        """Pinning records when; it does not change `updated_at` (unpinned, the
        conversation returns to its old place among the recent ones)."""
        at = self._clock() if pinned else 0.0
        conv = self._update(conversation_id, lambda c: _conv(c, pinned_at=at))
        if conv is None:
            raise ConversationNotFound(conversation_id)
        return conv

    def delete(self, conversation_id: str) -> bool:
        """Remove the conversation's workspace, its file and any temp or corrupt-aside
        files of it. Stopping its runs and schedules first is the caller's job
        (`TaskCenter.delete_conversation`)."""
        path = self.path(conversation_id)
        with state_lock(self.folder):
            existed = path.exists()
            workspace = self.workspace(conversation_id)
            if workspace.is_symlink():
                workspace.unlink()  # never follow a link out of the state dir
            elif workspace.exists():
                shutil.rmtree(workspace)
            for leftover in self.folder.glob(f".{path.name}.*.tmp"):
                leftover.unlink(missing_ok=True)
            for leftover in self.folder.glob(f"{path.name}.corrupt-*"):
                leftover.unlink(missing_ok=True)
            path.unlink(missing_ok=True)
        return existed


# -- paging through a conversation for the model (history_read) ----------------------


def read_history(
    conversation_id: str, offset: int = 0, limit: int = 10, *, store: ConversationStore | None = None
) -> str:
    """One page of this conversation's turns for the `history_read` tool, oldest first.

    The text is for the model, so it is English; user words and answers are quoted as
    they were said. Offsets past the end give an empty page that says so.
    """
    store = store or ConversationStore()
    try:
        conv = store.get(conversation_id)
    except ConversationError as exc:
        return f"history_read: {exc}"
    offset = max(0, int(offset))
    limit = max(1, min(int(limit), 50))
    turns = conv.turns
    total = len(turns)
    page = turns[offset : offset + limit]
    if not page:
        return f"Conversation history: no turns at offset {offset} (the conversation has {total})."
    lines = [f"Conversation history, turns {offset + 1}-{offset + len(page)} of {total} (oldest first)."]
    for n, turn in enumerate(page, start=offset + 1):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(turn.started_at)) if turn.started_at else "?"
        lines.append(f"\n[{n}] {when} · run {turn.run_id} · outcome: {turn.outcome}")
        lines.append(f"User: {turn.user_words}")
        if turn.answer:
            lines.append(f"Mika: {turn.answer}")
    if offset + len(page) < total:
        lines.append(f"\nMore turns follow: call history_read with offset={offset + len(page)}.")
    return "\n".join(lines)


# -- small value helpers -------------------------------------------------------------


def _turns_before(turns: tuple[Turn, ...], run_id: str) -> tuple[Turn, ...]:
    if not run_id:
        return turns
    for i, turn in enumerate(turns):
        if turn.run_id == run_id:
            return turns[:i]
    return turns


def _with(turn: Turn, **fields: Any) -> Turn:
    data = turn.to_dict()
    data.update({k: (list(v) if isinstance(v, tuple) else v) for k, v in fields.items()})
    return Turn.from_dict(data)


def _conv(conv: Conversation, **fields: Any) -> Conversation:
    data = conv.to_dict()
    data.update(fields)
    return Conversation.from_dict(data)


def _set_turns(conv: Conversation, turns: tuple[Turn, ...]) -> Conversation:
    return Conversation(conv.id, conv.title, conv.title_by, conv.pinned_at, conv.created_at, conv.updated_at, turns)


def _touch(conv: Conversation, now: float, *, force: bool = False) -> Conversation:
    if not force and conv.updated_at >= now:
        return _set_turns(conv, conv.turns)
    return Conversation(conv.id, conv.title, conv.title_by, conv.pinned_at, conv.created_at, now, conv.turns)


def _replace_turn(conv: Conversation, index: int, turn: Turn, now: float) -> Conversation:
    turns = list(conv.turns)
    turns[index] = turn
    return _touch(_set_turns(conv, tuple(turns)), now)
