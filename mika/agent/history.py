"""The run's message history (zone 2): append-only, messages never change once sent.

User-side content that arrives next to each other (tool results, the runtime state, a
steer) is gathered into one user message so roles alternate as every protocol wants.

Beside the messages it keeps what compression must know and cannot read back from the
text: which texts are the user's own words (never trimmed), which assistant turns asked
the user something (never folded), and what each tool result came from (observation
ids, whether it was a screen read). The full history is never rewritten; compression
works on a copy.

What is sent also leaves out old screens (`sent_messages`): a listing is ~270 tokens and
only the current one is worth reading again, so all but the last `recent` screen reads go
out as placeholders with their observation ids (the run's record keeps each observation
whole, and view_past_screens shows an old one again). A screen that a whole one still
builds on (a delta names its base as "(observation o12)" in Mika's words, outside any
fence) is never folded before it. Old runtime lines ("[step 3 · on … · local time …]")
are left out too: only the current step's is news.

Folding rewrites a message the provider has cached, so where the cut lands matters. With
the default window (recent 1, batch 1) a screen folds in the request right after the one
that brought it, and its runtime line goes with it: both sit at the end of the previous
request, where this step's new content begins anyway, so the cached prefix loses only
the one screen it would have had to re-read. A wider window (`recent` > 1) folds `batch`
screens at a time further back and breaks the prefix there once every `batch` screens;
issue 16's run_tokens benchmark measured 1/1 the cheapest in total and in uncached input.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field

from mika.model.messages import Image, Message, Part, Text, ToolResult


class ResultKind(enum.Enum):
    SCREEN = "screen"  # a read of a screen: becomes a placeholder once old
    TEXT = "text"  # page, command, file text: cut when long
    PLAIN = "plain"  # an action's short report


@dataclass(frozen=True)
class ResultInfo:
    call_id: str
    tool: str
    step: int
    kind: ResultKind = ResultKind.PLAIN
    observation_ids: tuple[str, ...] = ()
    # The result carries the user's words (an answer, a hand-back): never shrunk.
    protected: bool = False
    code: str = ""


@dataclass(frozen=True)
class ScreenWindow:
    """Which screen reads are sent whole: the last `recent` to `recent + batch - 1`."""

    recent: int = 1
    batch: int = 1

    def __post_init__(self) -> None:
        if self.recent < 1 or self.batch < 1:
            raise ValueError("a screen window keeps at least the current screen and moves by at least one")


# The default for new histories; None sends every screen whole (the behaviour before
# issue 16, kept for the benchmark's baseline).
SCREEN_WINDOW: ScreenWindow | None = ScreenWindow()
# Old runtime lines left out of what is sent (False: kept, the behaviour before issue 16).
DROP_OLD_RUNTIME = True


@dataclass
class History:
    messages: list[Message] = field(default_factory=list)
    # Message indexes that hold the user's words (the opening, steers, answers).
    user_words: set[int] = field(default_factory=set)
    # The exact texts of the user's words, so a compressed copy can keep them verbatim.
    user_texts: list[str] = field(default_factory=list)
    # Assistant message indexes whose calls asked the user (ask / confirm / takeover).
    exchanges: set[int] = field(default_factory=set)
    # Context blocks added mid-run (app / site knowledge): like the user's words, never
    # trimmed or folded, and put back by ContextRecovery if a level lost one.
    kept_texts: list[str] = field(default_factory=list)
    results: dict[str, ResultInfo] = field(default_factory=dict)
    # Bumped on every append: "new input since the last compression" is a change here.
    version: int = 0
    screen_window: ScreenWindow | None = field(default_factory=lambda: SCREEN_WINDOW)
    # Call ids of screen reads in the order they were noted (the window counts from the end).
    screen_calls: list[str] = field(default_factory=list)
    # The runtime lines appended after each step's results, by identity (the user may type
    # the same words; those are never dropped): sent only in the last message. The values
    # keep the parts alive, so an id is never reused.
    runtime_lines: dict[int, Text] = field(default_factory=dict)

    def add_assistant(self, message: Message, *, exchange: bool = False) -> None:
        if not message.parts:
            message = Message("assistant", (Text("(no reply)"),))
        self.messages.append(message)
        if exchange:
            self.exchanges.add(len(self.messages) - 1)
        self.version += 1

    def add_user(self, *parts: Part, users_words: bool = False) -> None:
        if not parts:
            return
        if self.messages and self.messages[-1].role == "user":
            last = self.messages.pop()
            self.messages.append(Message("user", last.parts + tuple(parts)))
        else:
            self.messages.append(Message("user", tuple(parts)))
        if users_words:
            self.user_words.add(len(self.messages) - 1)
            self.user_texts.extend(p.text for p in parts if isinstance(p, Text))
        self.version += 1

    def add_step_end(self, *parts: Part, runtime: str) -> None:
        """A step's results followed by its runtime line (zone 3)."""
        line = Text(runtime)
        self.runtime_lines[id(line)] = line
        self.add_user(*parts, line)

    def note_result(self, info: ResultInfo) -> None:
        if info.kind is ResultKind.SCREEN and not info.protected and info.call_id not in self.results:
            self.screen_calls.append(info.call_id)
        self.results[info.call_id] = info

    def old_screens(self) -> set[str]:
        """Call ids of the screen reads that are sent as placeholders now."""
        window = self.screen_window
        if window is None:
            return set()
        over = len(self.screen_calls) - window.recent
        if over < window.batch:
            return set()
        return set(self.screen_calls[: over // window.batch * window.batch])

    def __len__(self) -> int:
        return len(self.messages)


def observation_ids_text(ids: tuple[str, ...]) -> str:
    return f"observation {', '.join(ids)}" if ids else "no observation"


# How every screen placeholder starts (a benchmark counts them to see where screens were folded).
PLACEHOLDER_MARK = "[old screen "


def screen_placeholder(result: ToolResult, info: ResultInfo) -> ToolResult:
    """An old screen read as one short line that keeps its observation ids (the call before
    it says what was done; every placeholder is sent again in every later request, so
    each word here is paid for many times)."""
    ids = ", ".join(info.observation_ids)
    text = f"{PLACEHOLDER_MARK}{ids + ' ' if ids else ''}omitted]"
    return ToolResult(result.call_id, result.name, text, None, result.is_error)


# Mika's own words naming the observation a result builds on; fenced app text is cut out
# first, so a screen cannot name one (it could only keep a screen whole, but still).
_BASE = re.compile(r"\(observation ([A-Za-z0-9_-]+)\)")
_FENCED = re.compile(r"<untrusted[^>]*>.*?</untrusted>", re.S)


def still_needed(messages: list[Message], history: History, old: set[str]) -> set[str]:
    """Of the `old` screens (call ids), those a result in `messages` sent whole names as its base."""
    by_obs = {o: cid for cid in old if cid in history.results for o in history.results[cid].observation_ids}
    needed: set[str] = set()
    for m in messages:
        for p in m.parts:
            if isinstance(p, ToolResult) and p.call_id not in old and "(observation " in p.text:
                for obs_id in _BASE.findall(_FENCED.sub("", p.text)):
                    if obs_id in by_obs:
                        needed.add(by_obs[obs_id])
    return needed


def without_old_screens(messages: list[Message], history: History) -> list[Message]:
    old = history.old_screens()
    if old:
        old -= still_needed(messages, history, old)
    if not old:
        return list(messages)
    out = []
    for m in messages:
        if not any(isinstance(p, ToolResult) and p.call_id in old for p in m.parts):
            out.append(m)
            continue
        parts = tuple(
            screen_placeholder(p, history.results[p.call_id]) if isinstance(p, ToolResult) and p.call_id in old else p
            for p in m.parts
        )
        out.append(Message(m.role, parts))
    return out


def without_old_runtime(messages: list[Message], history: History) -> list[Message]:
    """Runtime lines only in the last message; the same words typed by the user are other parts, and stay."""
    if not history.runtime_lines or not DROP_OLD_RUNTIME:
        return list(messages)
    lines = history.runtime_lines
    last = len(messages) - 1
    out = []
    for i, m in enumerate(messages):
        if i == last or m.role != "user" or not any(lines.get(id(p)) is p for p in m.parts):
            out.append(m)
            continue
        parts = tuple(p for p in m.parts if lines.get(id(p)) is not p)
        out.append(Message(m.role, parts) if parts else m)
    return out


def sent_messages(messages: list[Message], history: History) -> list[Message]:
    """The messages as a request carries them: old screens as placeholders, the runtime
    line and the image of the current step only."""
    return only_last_image(without_old_runtime(without_old_screens(messages, history), history))


def image_line(image: Image) -> Text:
    ref = f" {image.ref}" if image.ref else ""
    return Text(f"[screenshot{ref} from an earlier step, not re-sent]")


def only_last_image(messages: list[Message]) -> list[Message]:
    """Only the current step's screenshot is sent: an image anywhere but in the last
    message becomes one line of text, and is never re-sent.

    Turning it into a line at the very next request (not when a newer image comes) keeps
    the break in the cached prefix at the end, where this step's content begins."""
    last = len(messages) - 1
    out = []
    for i, m in enumerate(messages):
        if i == last or not any(isinstance(p, Image) for p in m.parts):
            out.append(m)
            continue
        out.append(Message(m.role, tuple(image_line(p) if isinstance(p, Image) else p for p in m.parts)))
    return out
