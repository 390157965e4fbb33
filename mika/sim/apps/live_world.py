"""The world with its apps running: World (mika/sim/world/world.py) is the phone's state and
the moves on it; this subclass is where the apps layer acts in it. The installed apps and
dialogs come from the app files, a screen entered runs its on_enter, time passing delivers
notifications and runs screens' "after", and a dump served starts an "after" countdown.

The engine reads and changes World, so World can't import the engine; the apps layer
subclasses it instead. Construct the phone's world as `LiveWorld(serial, scenario, faults)`.
"""

from __future__ import annotations

from typing import Any

from mika.sim.apps import engine, notifications
from mika.sim.apps.registry import load_apps, system_dialog
from mika.sim.world.display import Activity
from mika.sim.world.installed import AppDef
from mika.sim.world.world import World


class LiveWorld(World):
    def installed_apps(self) -> dict[str, AppDef]:
        return load_apps()

    def dialog_spec(self, name: str) -> dict[str, Any]:
        return system_dialog(name)

    def prepare_notifications(self) -> None:
        notifications.prepare(self)

    def enter_screen(self, activity: Activity) -> None:
        engine.enter_screen(self, activity)

    def tick(self) -> None:
        if self.scheduled:
            notifications.deliver_due(self)
        for display_id in list(self.displays):
            engine.run_after(self, display_id)
            # A list's next page that is due arrives now: a changed world is laid out (and
            # dumped, and drawn) afresh, so the page shows without anything else changing.
            top = self.top_activity(display_id)
            if top is not None and any(due <= self.clock.now() for due in top.more_at.values()):
                self.changed()

    def note_dump(self) -> None:
        for display_id in list(self.displays):
            engine.count_dump(self, display_id)
