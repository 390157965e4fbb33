"""`MemoryStore`: what Mika remembers about the user, one JSON line per item in
`memory.jsonl` (state folder, 0600).

Every change rewrites the file atomically (temp file, fsync, rename: `mika.atomic_write`),
so a kill at any point leaves the old file or the new one. A line that is not a memory
item we can read — a torn write from an older version, a hand edit, odd bytes, an item
from a newer Mika — is kept byte for byte and written back in place; the other lines still
load. A file with no memory item and no header of ours is refused with a clear sentence
rather than overwritten.

Nothing reaches the file unless it passes the same gate the tools use: not empty, no
sensitive value (`SensitiveFilter`), supported by the words given as its source
(`support`), not a copy of an item already kept.
"""

from __future__ import annotations

import contextlib
import enum
import json
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from mika import atomic_write
from mika.memory.sensitive import SensitiveFilter
from mika.memory.support import support
from mika.memory.text import clean, normal, terms
from mika.search_terms import terms as search_terms

try:  # a second process (the CLI while the TUI runs) must not undo this one's change
    import fcntl
except ImportError:  # pragma: no cover - Windows: one process at a time is the rule there
    fcntl = None  # type: ignore[assignment]

FORMAT = "mika-memory"
VERSION = 1
MAX_TEXT = 500  # an item is one sentence or two, not a document
MAX_SOURCE = 2000


class MemoryKind(enum.Enum):
    FACT = "fact"
    PREFERENCE = "preference"
    PROCEDURE = "procedure"


class MemoryStatus(enum.Enum):
    ACTIVE = "active"
    PENDING = "pending"  # a procedure waiting for the user's approval
    FORGOTTEN = "forgotten"  # a tombstone: kept so an undo and the record stay honest


class MemoryRefused(Exception):
    """A save that was not stored. `code`: sensitive | empty | duplicate | not_from_user."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class MemoryFileError(Exception):
    """The memory file can't be used (not ours, not readable); the message says what to do."""


class MemoryNotFound(KeyError):
    def __init__(self, item_id: str) -> None:
        super().__init__(item_id)
        self.item_id = item_id

    def __str__(self) -> str:
        return f"No memory item has the id {self.item_id!r}; `mika memory list` shows the ids."


@dataclass(frozen=True)
class MemoryItem:
    id: str
    kind: MemoryKind
    text: str
    source_words: str
    conversation_id: str
    created_at: float
    status: MemoryStatus
    updated_at: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind.value,
            "text": self.text,
            "source_words": self.source_words,
            "conversation_id": self.conversation_id,
            "created_at": self.created_at,
            "updated_at": self.updated_at or self.created_at,
            "status": self.status.value,
        }

    @staticmethod
    def from_dict(d: dict[str, Any]) -> MemoryItem:
        # Strict on purpose: anything odd makes the line "not readable", and such lines are kept verbatim.
        if not isinstance(d.get("id"), str) or not isinstance(d.get("text"), str):
            raise ValueError("id and text must be strings")
        created = d.get("created_at")
        if not isinstance(created, (int, float)) or isinstance(created, bool):
            raise ValueError("created_at must be a number")
        updated = d.get("updated_at", created)
        return MemoryItem(
            id=d["id"],
            kind=MemoryKind(d.get("kind")),
            text=d["text"],
            source_words=str(d.get("source_words", "")),
            conversation_id=str(d.get("conversation_id", "")),
            created_at=float(created),
            status=MemoryStatus(d.get("status")),
            updated_at=float(updated) if isinstance(updated, (int, float)) else float(created),
        )


def _header_line() -> bytes:
    return (json.dumps({"format": FORMAT, "version": VERSION}) + "\n").encode()


def _is_header(value: Any) -> bool:
    return isinstance(value, dict) and value.get("format") == FORMAT


@dataclass
class _Line:
    raw: bytes  # as read, without its newline; what an unreadable line is written back as
    item: MemoryItem | None = None


def default_path() -> Path:
    from mika.config.paths import state_dir

    return state_dir() / "memory.jsonl"


def _key(text: str) -> str:
    return " ".join(terms(text)) or normal(text).lower()


_LOCK = threading.Lock()


class MemoryStore:
    def __init__(
        self,
        path: Path | str,
        *,
        sensitive: SensitiveFilter | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = Path(path)
        self.sensitive = sensitive or SensitiveFilter()
        self.clock = clock

    @classmethod
    def default(cls) -> MemoryStore:
        return cls(default_path())

    def __eq__(self, other: object) -> bool:
        # Two stores over one file are the same memory; run options are compared by value.
        return isinstance(other, MemoryStore) and self.path == other.path

    def __hash__(self) -> int:
        return hash(self.path)

    # -- reading ------------------------------------------------------------------------

    def _read(self) -> list[_Line]:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return []
        except IsADirectoryError:
            raise MemoryFileError(f"{self.path} is a folder, not Mika's memory file; move it away.") from None
        except OSError as e:
            raise MemoryFileError(f"Can't read the memory file {self.path}: {e.strerror}.") from None
        lines: list[_Line] = []
        header = False
        for raw in data.split(b"\n"):
            if not raw.strip():
                continue
            try:
                value = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                lines.append(_Line(raw))
                continue
            if _is_header(value):
                header = True
                continue  # written fresh at the top on every save
            try:
                lines.append(_Line(raw, MemoryItem.from_dict(value)))
            except (ValueError, TypeError, AttributeError):
                lines.append(_Line(raw))
        if lines and not header and not any(line.item for line in lines):
            raise MemoryFileError(
                f"{self.path} is not a Mika memory file (no memory item in it). "
                "Move it away, or set MIKA_STATE_DIR to another folder."
            )
        return lines

    def items(self, include_forgotten: bool = False) -> list[MemoryItem]:
        """Newest last."""
        found = [line.item for line in self._read() if line.item is not None]
        if not include_forgotten:
            found = [i for i in found if i.status is not MemoryStatus.FORGOTTEN]
        return sorted(found, key=lambda i: i.created_at)

    def unreadable_lines(self) -> int:
        """Lines kept verbatim because they are not items we can read (for `mika memory list`)."""
        return sum(1 for line in self._read() if line.item is None)

    def get(self, item_id: str) -> MemoryItem | None:
        return next((i for i in self.items(include_forgotten=True) if i.id == item_id), None)

    def search(self, query: str, limit: int = 8) -> list[MemoryItem]:
        """Active items sharing terms with the query, best first (more shared terms, then newer).
        Terms are the shared splitter's (`mika.search_terms`), so a query finds in memory what
        it finds in knowledge."""
        wanted = set(search_terms(query))
        if not wanted:
            return []
        scored = []
        for item in self.items():
            if item.status is not MemoryStatus.ACTIVE:
                continue
            have = set(search_terms(item.text))
            shared = len(wanted & have)
            if shared:
                # Numbers and rarer long terms say more; a ratio keeps short items from losing to long ones.
                weight = sum(2.0 if t.isdigit() else 1.0 for t in wanted & have) / (len(have) ** 0.5)
                scored.append((weight, item.created_at, item))
        scored.sort(key=lambda s: (s[0], s[1]), reverse=True)
        return [s[2] for s in scored[:limit]]

    # -- writing ------------------------------------------------------------------------

    @contextlib.contextmanager
    def _locked(self) -> Iterator[list[_Line]]:
        atomic_write.ensure_dir(self.path.parent)
        with _LOCK:
            lock_path = self.path.with_name(f".{self.path.name}.lock")
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, atomic_write.FILE_MODE)
            try:
                if fcntl is not None:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                yield self._read()
            finally:
                os.close(fd)  # closing releases the lock

    def _write(self, lines: list[_Line]) -> None:
        out = [_header_line()]
        for line in lines:
            if line.item is not None:
                out.append(json.dumps(line.item.as_dict(), ensure_ascii=False).encode("utf-8") + b"\n")
            else:
                out.append(line.raw + b"\n")
        # write_bytes: temp file at 0600 whatever the umask, fsync, rename; configured secrets masked.
        atomic_write.write_bytes(self.path, b"".join(out), mode=atomic_write.FILE_MODE)

    def check(self, kind: MemoryKind | str, text: str, source_words: str) -> tuple[MemoryKind, str]:
        """The gate, without storing: the cleaned text, or MemoryRefused."""
        try:
            kind = MemoryKind(kind.value if isinstance(kind, MemoryKind) else str(kind).strip().lower())
        except ValueError:
            raise MemoryRefused("empty", "The kind must be fact, preference or procedure.") from None
        text = clean(text)
        if not text:
            raise MemoryRefused("empty", "Nothing to remember: the text is empty.")
        if len(text) > MAX_TEXT:
            raise MemoryRefused(
                "empty",
                f"Too long to remember ({len(text)} characters; at most {MAX_TEXT}): say it in a sentence or two.",
            )
        finding = self.sensitive.first(text)
        if finding is not None:
            raise MemoryRefused(
                "sensitive",
                f"Not remembered: it holds {finding.describe()}, which Mika never keeps. "
                "Save it without the value, or not at all.",
            )
        if not clean(source_words):
            raise MemoryRefused("not_from_user", "Not remembered: there are no words of the user's to keep it from.")
        s = support(text, [source_words])
        if not s.ok:
            raise MemoryRefused(
                "not_from_user",
                "Not remembered: the user did not say this"
                + (f" (not in their words: {', '.join(s.missing[:5])})" if s.missing else "")
                + ". Only what the user said can be remembered; ask them if it should be.",
            )
        return kind, text

    def add(
        self,
        kind: MemoryKind | str,
        text: str,
        source_words: str,
        conversation_id: str = "",
        status: MemoryStatus | None = None,
    ) -> MemoryItem:
        kind, text = self.check(kind, text, source_words)
        if status is None:
            status = MemoryStatus.PENDING if kind is MemoryKind.PROCEDURE else MemoryStatus.ACTIVE
        # The source words are kept for the record, with any sensitive value in them withheld.
        source = clean(self.sensitive.redact(source_words))[:MAX_SOURCE]
        key = _key(text)
        with self._locked() as lines:
            for line in lines:
                if line.item and line.item.status is not MemoryStatus.FORGOTTEN and _key(line.item.text) == key:
                    raise MemoryRefused("duplicate", f"Already remembered as {line.item.id}: {line.item.text}")
            taken = {line.item.id for line in lines if line.item}
            item_id = _new_id(taken)
            now = self.clock()
            item = MemoryItem(item_id, kind, text, source, clean(conversation_id), now, status, now)
            lines.append(_Line(b"", item))
            self._write(lines)
        return item

    def _change(self, item_id: str, change: Callable[[MemoryItem], MemoryItem]) -> MemoryItem:
        with self._locked() as lines:
            for line in lines:
                if line.item is not None and line.item.id == item_id:
                    new = change(line.item)
                    if new != line.item:
                        line.item = replace(new, updated_at=self.clock())
                        self._write(lines)
                    return line.item
        raise MemoryNotFound(item_id)

    def forget(self, item_id: str, *, erase: bool = False) -> MemoryItem:
        """A tombstone: status FORGOTTEN, text kept so `restore` can undo it. `erase=True`
        (what `mika memory forget` does) blanks the text and its source words for good."""

        def change(item: MemoryItem) -> MemoryItem:
            item = replace(item, status=MemoryStatus.FORGOTTEN)
            return replace(item, text="", source_words="") if erase else item

        return self._change(item_id, change)

    def restore(self, item_id: str) -> MemoryItem:
        """Undo a forget that kept the text (procedures go back to waiting for approval)."""

        def change(item: MemoryItem) -> MemoryItem:
            if item.status is not MemoryStatus.FORGOTTEN:
                return item
            if not item.text:
                raise MemoryRefused("empty", f"{item.id} was erased; it can't be brought back.")
            back = MemoryStatus.PENDING if item.kind is MemoryKind.PROCEDURE else MemoryStatus.ACTIVE
            return replace(item, status=back)

        return self._change(item_id, change)

    def approve(self, item_id: str) -> MemoryItem:
        def change(item: MemoryItem) -> MemoryItem:
            if item.status is MemoryStatus.FORGOTTEN:
                raise MemoryRefused("forgotten", f"{item.id} was forgotten; add it again to keep it.")
            return replace(item, status=MemoryStatus.ACTIVE)

        return self._change(item_id, change)


def _new_id(taken: set[str]) -> str:
    while True:
        item_id = "m-" + secrets.token_hex(3)
        if item_id not in taken:
            return item_id
