"""A scripted model read from a JSON file: offline demos, CI, headless tests, and the
reference solutions of the simulated phone's tasks (`mika eval --model reference`).

The script is a list of replies; each is a string (a plain answer) or an object
{"text": "...", "tool_calls": [{"name": "...", "arguments": {...}}], "delay": 0.5}.
A tool call may name its element by what it says instead of by number:
{"name": "phone_tap", "pick": "Display", "role": "button"} — the player reads the number
off the latest screen listing in the run's tool results, as a model does, and sends it
as the call's `element`. "{match}" in an argument or an answer stands for the last
`Match: …` line a tool returned (a one-time code read off a notification by phone_event),
so a script can type what the run read. How a listing is read is not this layer's business (mika.uistate
knows listings; the model layer may not import it): the assembly hands the player a
`resolver`. A reply whose pick came back stale_element (the screen changed before the tap
landed; nothing was done) is played again, picked off the new listing, as a model would.
A pick that matches nothing, or a script that runs out of replies, ends the run with a
model error of kind `script_mismatch` naming what did not fit.
Select it with `--model script:PATH` or a provider `kind = "scripted"` with `script = PATH`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mika.config.errors import ConfigError
from mika.model.errors import ModelError, ModelErrorKind
from mika.model.messages import ModelRequest, ToolResult
from mika.model.testing import FunctionModel, Reply

# (tool result texts of the run so far, oldest first; label; role or None) -> element
# number; raises LookupError (with a sentence) when no element fits.
PickResolver = Callable[[Iterable[str], str, str | None], int]
_MATCH = re.compile(r"^Match: (\S+)$", re.M)
# A pick whose screen changed before the tap landed is picked again this many times.
MAX_REPICKS = 3


@dataclass(frozen=True)
class _Call:
    name: str
    arguments: dict[str, Any]
    pick: str | None = None
    role: str | None = None


@dataclass(frozen=True)
class _Step:
    text: str
    calls: tuple[_Call, ...]
    delay: float


class ScriptPlayer(FunctionModel):
    """Plays a script's replies in order, filling each `pick` from the listings seen.
    Streams like an adapter (it is a FunctionModel whose function is the script)."""

    def __init__(self, steps: Sequence[_Step], name: str, resolver: PickResolver | None) -> None:
        super().__init__(self._reply, provider="script", name=name)
        self.steps = list(steps)
        self.resolver = resolver
        self.played = 0
        self._results: list[str] = []
        self._seen: set[str] = set()
        self._fresh: list[ToolResult] = []  # the results of the reply played last
        self._retries = 0

    @property
    def remaining(self) -> int:
        return len(self.steps) - self.played

    def _take_results(self, request: ModelRequest) -> None:
        # Every tool result the run has sent so far, once each, in order: a delta's base
        # may be several requests back (and history compression may drop it later).
        self._fresh = []
        for message in request.messages:
            for part in message.parts:
                if isinstance(part, ToolResult) and part.call_id not in self._seen:
                    self._seen.add(part.call_id)
                    self._results.append(part.text)
                    self._fresh.append(part)

    def _picked_stale(self) -> bool:
        """The reply played last picked an element, and the screen changed before the tap
        landed (stale_element, nothing done): a model reads the new listing and picks again."""
        if not self.played or self._retries >= MAX_REPICKS:
            return False
        last = self.steps[self.played - 1]
        if not any(c.pick is not None for c in last.calls):
            return False
        return any(r.text.startswith("[stale_element]") for r in self._fresh)

    def _reply(self, request: ModelRequest) -> Reply:
        self._take_results(request)
        if self.played >= len(self.steps):
            raise ModelError(
                ModelErrorKind.SCRIPT_MISMATCH,
                f"the model script {self.name} has no reply left after {len(self.steps)}: the run wanted one more",
                provider="script",
            )
        if self._picked_stale():
            self._retries += 1
            step = self.steps[self.played - 1]
        else:
            self._retries = 0
            step = self.steps[self.played]
            self.played += 1
        calls = []
        for call in step.calls:
            args = self._fill(dict(call.arguments))
            if call.pick is not None:
                args["element"] = self._resolve(call)
            calls.append((call.name, args))
        return Reply(text=self._fill(step.text), tool_calls=tuple(calls), delay=step.delay)

    def _fill(self, value: Any) -> Any:
        if isinstance(value, str) and "{match}" in value:
            found = [m for r in self._results for m in _MATCH.findall(r)]
            if not found:
                raise ModelError(
                    ModelErrorKind.SCRIPT_MISMATCH,
                    f"reply {self.played} of the model script {self.name} uses {{match}}, "
                    "but no tool of the run returned a `Match: …` line",
                    provider="script",
                )
            return value.replace("{match}", found[-1])
        if isinstance(value, dict):
            return {k: self._fill(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._fill(v) for v in value]
        return value

    def _resolve(self, call: _Call) -> int:
        assert self.resolver is not None  # checked when the script was loaded
        try:
            return self.resolver(self._results, call.pick or "", call.role)
        except LookupError as exc:
            what = f"{call.role} {call.pick!r}" if call.role else repr(call.pick)
            raise ModelError(
                ModelErrorKind.SCRIPT_MISMATCH,
                f"reply {self.played} of the model script {self.name}: {call.name} picks {what}, "
                f"which the latest screen listing does not have ({exc})",
                provider="script",
            ) from None


def load_script(path: Path | str, resolver: PickResolver | None = None) -> ScriptPlayer:
    path = Path(path).expanduser()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(path, "", "an existing model script (a JSON list of replies)") from None
    except ValueError as exc:
        raise ConfigError(path, "", f"valid JSON ({exc})") from None
    return script_model(data, name=path.name, source=path, resolver=resolver)


def script_model(
    data: Any, *, name: str, source: Path | None = None, resolver: PickResolver | None = None
) -> ScriptPlayer:
    """A player for a script given as data (a task's `solution`); errors name `source`."""
    if not isinstance(data, list) or not data:
        raise ConfigError(source, "", "a non-empty JSON list of replies", type(data).__name__)
    steps = [_step(item, source, i, resolver) for i, item in enumerate(data)]
    return ScriptPlayer(steps, name, resolver)


def _step(item: Any, path: Path | None, index: int, resolver: PickResolver | None) -> _Step:
    if isinstance(item, str):
        return _Step(item, (), 0.0)
    if not isinstance(item, dict):
        raise ConfigError(path, f"[{index}]", "a string or an object with text / tool_calls", item)
    calls = []
    for c in item.get("tool_calls", []):
        if not isinstance(c, dict) or not isinstance(c.get("name"), str):
            raise ConfigError(path, f"[{index}].tool_calls", 'objects like {"name": "...", "arguments": {...}}', c)
        arguments = c.get("arguments", {})
        if not isinstance(arguments, dict):
            raise ConfigError(path, f"[{index}].tool_calls.arguments", "an object of the tool's arguments", arguments)
        pick, role = c.get("pick"), c.get("role")
        if pick is not None and not isinstance(pick, str):
            raise ConfigError(path, f"[{index}].tool_calls.pick", "the label of an element, as text", pick)
        if role is not None and not isinstance(role, str):
            raise ConfigError(path, f"[{index}].tool_calls.role", "an element role, as text (e.g. button)", role)
        if pick is not None and resolver is None:
            raise ConfigError(path, f"[{index}].tool_calls.pick", "no pick here: this player cannot read listings")
        calls.append(_Call(c["name"], dict(arguments), pick, role))
    return _Step(str(item.get("text", "")), tuple(calls), float(item.get("delay", 0.0)))
