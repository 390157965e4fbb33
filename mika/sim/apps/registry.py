"""Loads the app files (mika/sim/apps/data/*.json): one app per file, screens as data; and
the system dialogs (_dialogs.json). What a loaded app is (AppDef) is the world's
(mika/sim/world/installed.py), which keeps the installed apps without reading their files."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from mika.sim.world.installed import AppDef, ScreenDef


class AppFileError(ValueError):
    """An app file that doesn't say what the engine needs; names the file and the key."""


def _parse(name: str, raw: dict[str, Any], uid: int) -> AppDef:
    for key in ("package", "label", "main", "screens"):
        if key not in raw:
            raise AppFileError(f"app file {name}: missing key {key!r}")
    screens = {}
    for sname, spec in raw["screens"].items():
        activity = spec.get("activity", f".{sname}Activity")
        screens[sname] = ScreenDef(sname, activity, spec)
    if raw["main"] not in screens:
        raise AppFileError(f"app file {name}: main screen {raw['main']!r} is not in screens")
    return AppDef(
        package=raw["package"],
        label=raw["label"],
        label_zh=raw.get("label_zh", raw["label"]),
        main=raw["main"],
        launcher=bool(raw.get("launcher", True)),
        color=raw.get("color", "#3367d6"),
        screens=screens,
        intents=tuple(raw.get("intents", [])),
        uid=uid,
        system=bool(raw.get("system", False)),
    )


@lru_cache(maxsize=1)
def _load_all() -> dict[str, AppDef]:
    folder = resources.files("mika.sim.apps") / "data"
    apps: dict[str, AppDef] = {}
    files = sorted(
        (p for p in folder.iterdir() if p.name.endswith(".json") and not p.name.startswith("_")), key=lambda p: p.name
    )
    for i, path in enumerate(files):
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise AppFileError(f"app file {path.name} is not valid JSON: {e}") from e
        app = _parse(path.name, raw, 10100 + i)
        apps[app.package] = app
    return apps


def load_apps() -> dict[str, AppDef]:
    return _load_all()


@lru_cache(maxsize=1)
def _dialogs() -> dict[str, dict[str, Any]]:
    path = resources.files("mika.sim.apps") / "data" / "_dialogs.json"
    return json.loads(path.read_text(encoding="utf-8"))


def dialog_names() -> list[str]:
    return sorted(_dialogs())


def system_dialog(name: str) -> dict[str, Any]:
    dialogs = _dialogs()
    if name not in dialogs:
        raise AppFileError(f"unknown dialog {name!r}; known dialogs: {', '.join(sorted(dialogs))}")
    return {"name": name, **dialogs[name]}
