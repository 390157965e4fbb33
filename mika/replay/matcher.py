"""`RouteMatcher`: which recorded route, if any, does this goal repeat — and with what values?

The light model decides (seed: 路线匹配优先用轻量模型), given the goal and each route's
goal and parameters, and answers JSON {"route": id|null, "params": {...}}. Its answer
must name a listed route and give exactly that route's parameters, else it is no match
(logged): a replay is never started on a guess. Without a light model only an exact
match counts: the same normalised goal (casefold, punctuation, whitespace), which means
the same parameter values.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

from mika.agent.model_caller import side_call
from mika.model.base import Model
from mika.model.messages import Message, ModelRequest
from mika.replay.route import Route, normalise
from mika.resources import prompt

log = logging.getLogger(__name__)

MATCH_TIMEOUT_S = 15.0
MAX_ROUTES = 40  # most recently used first; older ones are not offered to the light model


@dataclass(frozen=True)
class RouteMatch:
    route: Route
    params: dict[str, str] = field(default_factory=dict)
    by: str = "exact"  # exact | light


def exact_match(goal: str, routes: Sequence[Route]) -> RouteMatch | None:
    wanted = normalise(goal)
    for route in routes:
        if route.normalised_goal == wanted:
            return RouteMatch(route, dict(route.params), "exact")
    return None


def match_request(goal: str, routes: Sequence[Route]) -> ModelRequest:
    lines = [f"New task: {goal}", "", "Routes:"]
    for r in routes[:MAX_ROUTES]:
        params = ", ".join(f"{k} = {v!r}" for k, v in r.params.items()) or "none"
        lines.append(f"- id {r.id}: {r.goal!r}; parameters: {params}")
    return ModelRequest(
        system=prompt("roles/route_match.md"),
        messages=(Message.user("\n".join(lines)),),
        max_output_tokens=200,
        purpose="route_match",
    )


def parse_match(text: str, routes: Sequence[Route]) -> RouteMatch | None:
    """The light model's answer, or None (a malformed or impossible answer is no match)."""
    body = text.strip()
    if body.startswith("```"):
        body = body.strip("`").removeprefix("json").strip()
    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        log.info("route match: the light model's answer is not JSON: %.120s", text)
        return None
    if not isinstance(data, dict) or data.get("route") is None:
        return None
    by_id = {r.id: r for r in routes}
    route = by_id.get(str(data.get("route")))
    if route is None:
        log.info("route match: the light model named no listed route: %.120s", text)
        return None
    params = data.get("params")
    if not isinstance(params, dict) or set(params) != set(route.params):
        log.info("route match: parameters %s do not fit route %s (%s)", params, route.id, sorted(route.params))
        return None
    values = {str(k): str(v) for k, v in params.items() if isinstance(v, (str, int, float)) and not isinstance(v, bool)}
    if len(values) != len(route.params) or any(not v.strip() for v in values.values()):
        log.info("route match: empty or non-text parameter values for route %s: %s", route.id, params)
        return None
    return RouteMatch(route, values, "light")


@dataclass
class RouteMatcher:
    light: Model | None
    timeout: float = MATCH_TIMEOUT_S
    calls: int = 0

    async def match(self, goal: str, routes: Sequence[Route]) -> RouteMatch | None:
        if not routes:
            return None
        if self.light is None:
            return exact_match(goal, routes)
        self.calls += 1
        response = await side_call([self.light], match_request(goal, routes), self.timeout)
        if response is None:
            # The light model did not answer: the exact match still stands on its own.
            return exact_match(goal, routes)
        return parse_match(response.message.text, routes)
