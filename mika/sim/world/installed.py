"""What the phone knows of an installed app: its package, label, uid and screens.

The world keeps these (`World.apps`) and reads them; the app files they come from are the
apps layer's to read (mika/sim/apps/registry.py), as what a screen does is the apps
engine's: the world sits below both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ScreenDef:
    name: str
    activity: str  # ".AlarmsActivity"
    spec: dict[str, Any]


@dataclass(frozen=True)
class AppDef:
    package: str
    label: str
    label_zh: str
    main: str
    launcher: bool
    color: str
    screens: dict[str, ScreenDef]
    intents: tuple[dict[str, Any], ...] = field(default=())
    uid: int = 10000
    system: bool = False
    # Set for an app installed from an APK (mika/sim/shell/commands/install.py): what its
    # manifest says, which `dumpsys package` reports instead of the built-in apps' values.
    version_code: int | None = None
    version_name: str | None = None
    min_sdk: int | None = None
    target_sdk: int | None = None
    installed_at: float | None = None
    input_methods: tuple[str, ...] = ()  # "pkg/.Service" ids of the keyboards it brings

    def activity_component(self, screen: str) -> str:
        act = self.screens[screen].activity
        return f"{self.package}/{act}"

    def screen_for_activity(self, activity: str) -> str | None:
        short = activity[len(self.package) :] if activity.startswith(self.package + ".") else activity
        for screen in self.screens.values():
            if screen.activity in (short, activity) or f"{self.package}{screen.activity}" == activity:
                return screen.name
        return None
