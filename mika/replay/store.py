"""`RouteStore`: the recorded routes on disk, one JSON file a route under `routes/`.

Every write is atomic (mika.atomic_write). A file that does not read as a route (broken
JSON, a hand edit gone wrong, a newer format) is skipped by `list` with a note in
`problems` and logged — never a traceback — and `get` raises `RouteNotFound` naming it.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
from dataclasses import replace
from pathlib import Path

from mika.atomic_write import ensure_dir, write_json
from mika.config.paths import routes_dir
from mika.replay.route import Route, RouteFormatError

log = logging.getLogger(__name__)

_ID = re.compile(r"[0-9a-f]{4,32}")


class RouteNotFound(LookupError):
    pass


class RouteStore:
    def __init__(self, state_dir: Path) -> None:
        self.dir = routes_dir(Path(state_dir))
        # (file name, what is wrong) of the files the last `list` skipped.
        self.problems: list[tuple[str, str]] = []

    @staticmethod
    def new_id() -> str:
        return secrets.token_hex(4)

    def _path(self, route_id: str) -> Path:
        if not _ID.fullmatch(route_id):
            raise RouteNotFound(f"{route_id!r} is not a route id (ids are hex, as `mika routes list` shows them)")
        return self.dir / f"{route_id}.json"

    def save(self, route: Route) -> Path:
        path = self._path(route.id)
        ensure_dir(self.dir)
        write_json(path, route.to_dict())
        return path

    def list(self) -> list[Route]:
        """Every readable route, most recently used (or made) first."""
        self.problems = []
        if not self.dir.is_dir():
            return []
        routes: list[Route] = []
        for path in sorted(self.dir.glob("*.json")):
            try:
                routes.append(self._read(path))
            except RouteFormatError as exc:
                self.problems.append((path.name, str(exc)))
                log.warning("route file %s skipped: %s", path, exc)
        routes.sort(key=lambda r: max(r.last_used, r.created), reverse=True)
        return routes

    def get(self, route_id: str) -> Route:
        path = self._path(route_id)
        if not path.is_file():
            raise RouteNotFound(f"no route {route_id!r} (see `mika routes list`)")
        try:
            return self._read(path)
        except RouteFormatError as exc:
            raise RouteNotFound(
                f"route file {path.name} can't be read: {exc}; delete it with `mika routes delete {route_id}`"
            ) from None

    def delete(self, route_id: str) -> None:
        path = self._path(route_id)
        if not path.is_file():
            raise RouteNotFound(f"no route {route_id!r} (see `mika routes list`)")
        path.unlink()

    def used(self, route: Route, at: float) -> Route:
        """Count a replay that went to the end."""
        updated = replace(route, uses=route.uses + 1, last_used=at)
        self.save(updated)
        return updated

    def _read(self, path: Path) -> Route:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise RouteFormatError(f"not valid JSON ({exc})") from None
        route = Route.from_dict(data)
        if route.id != path.stem:
            raise RouteFormatError(f"its id {route.id!r} is not its file name")
        return route
