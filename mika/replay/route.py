"""A recorded route (seed §9 经验回放): what a verified run did, kept so it can be done again.

Fields (the TUI's routes list and `mika routes show` read these):

`Route`
- `id` — short hex, also the file name (`routes/<id>.json`);
- `goal` — the goal as the user wrote it when the route was recorded;
- `normalised_goal` — casefolded, punctuation and runs of whitespace folded (`normalise`),
  what the matcher compares without a light model;
- `params` — {name: value} taken from the goal (`p1`, `p2`…: the "7:30" of "set an alarm
  for 7:30"); a step's arguments hold them as `{p1}` placeholders;
- `place` — where the run started ({"app", "activity", "title"}; empty when unknown);
- `steps` — the `RouteStep`s, in order;
- `answer` — the answer the recorded run gave (a template: its param values as placeholders);
- `created` — Unix time; `source_run` — the run it was recorded from;
- `uses`, `last_used` — how often it was replayed to the end, and when last.

`RouteStep`
- `tool` — the tool's name; `args` — its arguments, params as placeholders, never an
  element number or a coordinate (the anchor says what to act on);
- `place` — the place expected before the step ({"app", "activity", "title"});
- `anchor` — the element it acted on ({"label", "resource_id", "role", "desc"}), or {}
  for an anchor-free step (launch an app, a key, back);
- `effect` — the effect it had (done / place_changed / "" for a tool that checks itself).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import asdict, dataclass, field
from typing import Any

FORMAT = 1  # the file's "format"; a newer one is skipped with a note, never guessed at
_PLACEHOLDER = re.compile(r"\{(p\d+)\}")


class RouteFormatError(ValueError):
    """A route file that does not hold a route: what is wrong, said for the user."""


def normalise(goal: str) -> str:
    """Casefold; punctuation (ASCII and CJK) and runs of whitespace become one space."""
    out = []
    for ch in unicodedata.normalize("NFKC", goal).casefold():
        out.append(" " if unicodedata.category(ch)[0] in "PZ" or ch.isspace() else ch)
    return " ".join("".join(out).split())


@dataclass(frozen=True)
class RouteStep:
    tool: str
    args: dict[str, Any] = field(default_factory=dict)
    place: dict[str, str] = field(default_factory=dict)
    anchor: dict[str, str] = field(default_factory=dict)
    effect: str = ""


@dataclass(frozen=True)
class Route:
    id: str
    goal: str
    normalised_goal: str
    params: dict[str, str] = field(default_factory=dict)
    place: dict[str, str] = field(default_factory=dict)
    steps: tuple[RouteStep, ...] = ()
    answer: str = ""
    created: float = 0.0
    source_run: str = ""
    uses: int = 0
    last_used: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["steps"] = [asdict(s) for s in self.steps]
        return {"format": FORMAT, **data}

    @staticmethod
    def from_dict(data: Any) -> Route:
        if not isinstance(data, dict):
            raise RouteFormatError("not a JSON object")
        if data.get("format", FORMAT) != FORMAT:
            raise RouteFormatError(f"format {data.get('format')!r}; this Mika reads format {FORMAT}")
        for key in ("id", "goal"):
            if not isinstance(data.get(key), str) or not data[key]:
                raise RouteFormatError(f"'{key}' must be a non-empty string")
        steps = data.get("steps")
        if not isinstance(steps, list) or not steps:
            raise RouteFormatError("'steps' must be a non-empty list")
        return Route(
            id=data["id"],
            goal=data["goal"],
            normalised_goal=_str(data, "normalised_goal") or normalise(data["goal"]),
            params=_str_map(data, "params"),
            place=_str_map(data, "place"),
            steps=tuple(_step(s, i) for i, s in enumerate(steps, 1)),
            answer=_str(data, "answer"),
            created=_num(data, "created"),
            source_run=_str(data, "source_run"),
            uses=int(_num(data, "uses")),
            last_used=_num(data, "last_used"),
        )


def fill(value: Any, params: dict[str, str]) -> Any:
    """A step's argument with its `{pN}` placeholders replaced by `params` (an argument
    that is one placeholder takes the value's type back: an hour stays a number)."""
    if isinstance(value, str):
        whole = _PLACEHOLDER.fullmatch(value)
        if whole is not None and whole.group(1) in params:
            return _typed(params[whole.group(1)])
        return _PLACEHOLDER.sub(lambda m: params.get(m.group(1), m.group(0)), value)
    if isinstance(value, list):
        return [fill(v, params) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, params) for k, v in value.items()}
    return value


def placeholders(value: Any) -> set[str]:
    if isinstance(value, str):
        return set(_PLACEHOLDER.findall(value))
    if isinstance(value, list):
        return set().union(*(placeholders(v) for v in value)) if value else set()
    if isinstance(value, dict):
        return set().union(*(placeholders(v) for v in value.values())) if value else set()
    return set()


def _typed(text: str) -> Any:
    return int(text) if re.fullmatch(r"-?\d{1,9}", text) else text


def _step(raw: Any, index: int) -> RouteStep:
    if not isinstance(raw, dict):
        raise RouteFormatError(f"step {index} is not an object")
    tool = raw.get("tool")
    if not isinstance(tool, str) or not tool:
        raise RouteFormatError(f"step {index}: 'tool' must be a tool name")
    args = raw.get("args", {})
    if not isinstance(args, dict):
        raise RouteFormatError(f"step {index}: 'args' must be an object")
    return RouteStep(
        tool=tool,
        args=dict(args),
        place=_str_map(raw, "place", f"step {index}: "),
        anchor=_str_map(raw, "anchor", f"step {index}: "),
        effect=_str(raw, "effect"),
    )


def _str(data: dict[str, Any], key: str) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise RouteFormatError(f"'{key}' must be a string")
    return value


def _num(data: dict[str, Any], key: str) -> float:
    value = data.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RouteFormatError(f"'{key}' must be a number")
    return float(value)


def _str_map(data: dict[str, Any], key: str, where: str = "") -> dict[str, str]:
    value = data.get(key, {})
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise RouteFormatError(f"{where}'{key}' must be an object of strings")
    return dict(value)
