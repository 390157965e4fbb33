"""The simulated phone's whole state: displays and their tasks, app data, system settings,
clipboard, lock screen, screen power, clock, the dialog on top and pending faults.

Apps are data (mika/sim/apps); this class keeps state and offers the moves the shell and
the uiautomator2 server make (launch, back, home, tap, type…). What a screen does is the
apps engine's, and the engine reads and changes this world, so the world can't import it:
World leaves the moments the apps act abstract (a screen entered, time passing, a dump
served, the installed apps and dialogs), and the apps layer's LiveWorld
(mika/sim/apps/live_world.py) fills them in. Every world in the phone is a LiveWorld.
"""

from __future__ import annotations

import abc
import copy
import dataclasses
import json
import threading
import zlib
from collections.abc import Callable
from importlib import resources
from typing import Any

from mika.sim.faults import ONE_SHOT, FaultSpec
from mika.sim.world import rotation
from mika.sim.world.clock import Clock, parse_time
from mika.sim.world.display import Activity, Display, Task
from mika.sim.world.installed import AppDef
from mika.sim.world.props import default_props

LAUNCHER = "com.android.launcher3"
# The system's "open with" window (ResolverActivity) lives in package "android".
CHOOSER = "android"

# settings keys that are views of app-visible state, so `settings put` and the Settings
# app agree. (namespace, key) -> (path in data["settings"], how to encode it)
_LINKED_SETTINGS: dict[tuple[str, str], tuple[str, str]] = {
    ("global", "wifi_on"): ("wifi", "bool"),
    ("global", "bluetooth_on"): ("bluetooth", "bool"),
    ("global", "airplane_mode_on"): ("airplane", "bool"),
    ("secure", "ui_night_mode"): ("dark_mode", "night"),
    ("system", "screen_brightness"): ("brightness", "brightness"),
    ("global", "zen_mode"): ("dnd", "bool"),
    ("secure", "location_mode"): ("location", "location"),
}


class ScenarioError(ValueError):
    """An unknown scenario name; the message lists the known ones."""


def scenario_names() -> list[str]:
    folder = resources.files("mika.sim.world") / "scenarios"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".json"))


def _load_scenario(name: str) -> dict[str, Any]:
    path = resources.files("mika.sim.world") / "scenarios" / f"{name}.json"
    if not path.is_file():
        raise ScenarioError(f"unknown scenario {name!r}; known scenarios: {', '.join(scenario_names())}")
    spec = json.loads(path.read_text(encoding="utf-8"))
    base = spec.pop("base", None)
    parts = spec.pop("data_files", [])
    if base is None:
        merged = spec
    else:
        merged = _load_scenario(base)
        for key, value in spec.items():
            if key == "set":
                merged["data"].update(copy.deepcopy(value))
            else:
                merged[key] = value
    for part in parts:
        merged["data"].update(_load_data_file(part))
    return merged


def _load_data_file(name: str) -> dict[str, Any]:
    """A big piece of world data kept in its own file (`scenarios/data/NAME.json`), so a
    300-message chat doesn't bury the scenario that uses it."""
    path = resources.files("mika.sim.world") / "scenarios" / "data" / f"{name}.json"
    if not path.is_file():
        raise ScenarioError(f"scenario data file {name!r} is missing (looked for scenarios/data/{name}.json)")
    value = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(value, dict):
        raise ScenarioError(f"scenario data file {name!r} must hold a JSON object of data keys")
    return value


@dataclasses.dataclass(frozen=True)
class AppCrash:
    """An app that died of an uncaught exception, for the crash log buffer."""

    time: float
    pid: int
    package: str
    activity: str  # ".NotesListActivity", the screen whose onCreate threw


class World(abc.ABC):
    def __init__(self, serial: str, scenario: str | None, faults: FaultSpec | None) -> None:
        self.serial = serial
        self.props = default_props(serial)
        self.apps = self.installed_apps()
        self.faults = faults or FaultSpec()
        self.version = 0
        # Tests wait on this for what another thread (the control socket) changes.
        self._change = threading.Condition()
        self.reset(scenario or "default")
        if self.faults.dialog:
            self.show_system_dialog(self.faults.dialog)

    # -- scenario --------------------------------------------------------------------
    def reset(self, scenario: str) -> None:
        spec = _load_scenario(scenario)
        self.scenario = scenario
        self.apps = self.installed_apps()  # what `pm uninstall` took comes back
        self.crashes: list[AppCrash] = []
        self.props = default_props(self.serial, spec.get("props"))  # an older Android's build
        # clock_frozen: the clock stands still (screenshots stay byte-identical) until set
        self.clock = Clock(parse_time(spec.get("time", "2026-12-01T08:00:00")), frozen=bool(spec.get("clock_frozen")))
        self.data: dict[str, Any] = copy.deepcopy(spec["data"])
        self.data["clipboard"] = ""
        self.screen_on = bool(spec.get("screen_on", True))
        self.locked = bool(spec.get("locked", False))
        self.pin = str(spec.get("pin", ""))
        self.displays: dict[int, Display] = {0: Display(0, 1080, 2400, 440)}
        self._last_focus = 0
        self._pending_launch: dict[int, tuple[str | None, dict[str, Any], dict[str, Any]]] = {}
        # `appops set`: package → op → (mode, when it was set); an op never set (or set
        # back to "default") has no entry, and `appops get` then says "No operations."
        self.appops: dict[str, dict[str, tuple[str, float]]] = {}
        self.extra_settings: dict[str, dict[str, str]] = {
            "system": {
                "font_scale": "1.0",
                "screen_off_timeout": "30000",
                "screen_brightness_mode": "0",
                # A phone out of the box: portrait, auto-rotate off (a real Android 14
                # phone has both rows; clients read user_rotation as an integer).
                "user_rotation": "0",
                "accelerometer_rotation": "0",
            },
            "secure": {
                "default_input_method": "com.android.inputmethod.latin/.LatinIME",
                "enabled_input_methods": "com.android.inputmethod.latin/.LatinIME",
                "android_id": "5e1a" + format(zlib.crc32(self.serial.encode()), "012x"),
            },
            "global": {"adb_enabled": "1", "development_settings_enabled": "1", "stay_on_while_plugged_in": "0"},
        }
        self.ime_id = "com.android.inputmethod.latin/.LatinIME"
        # Every value a text field took, in order (field name, value): tests of paced typing
        # read how a text grew. Not part of the world state a task checks.
        self.field_history: list[tuple[str, str]] = []
        self.imes = ["com.android.inputmethod.latin/.LatinIME"]
        self.dialog: dict[str, Any] | None = None  # system dialog over everything
        # The display it is drawn on: 0 for the system's own (a fault, a surprise), the
        # app's display for one an app asked for (a runtime permission prompt is an
        # activity in the app's task, so Android shows it where the app is).
        self.dialog_display = 0
        self.ime_visible = False
        self.bouncer = False  # the PIN pad of a locked phone is up
        self.shade_open = False  # the notification shade is pulled down
        self.pin_entry = ""
        # Per-frame caches and in-flight touches; derived state, rebuilt freely.
        self.frame_cache: dict[int, tuple[Any, Any]] = {}
        self.shot_cache: dict[int, tuple[Any, bytes]] = {}
        self.touches: dict[str, tuple[int, int, float]] = {}
        self.last_toast: str | None = None
        self.taps = 0
        self.surprise: dict[str, Any] | None = spec.get("surprise")
        self.toast: tuple[str, float] | None = None
        self.pending = {key: getattr(self.faults, key) for key in ONE_SHOT}
        self.scheduled: list[dict[str, Any]] = []  # notifications due later (notify_later)
        self.next_note_id = 1
        self.prepare_notifications()
        self.launch(LAUNCHER, display_id=0)
        fg = spec.get("foreground")
        if fg and fg != LAUNCHER:
            self.launch(fg, display_id=0)
        self.changed()

    def changed(self) -> None:
        self.version += 1
        with self._change:
            self._change.notify_all()

    def wait_until(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Block until `predicate()` holds after some change (or already does); False on timeout."""
        with self._change:
            return self._change.wait_for(predicate, timeout)

    # -- what the apps do (filled in by mika/sim/apps/live_world.py) -------------------------
    @abc.abstractmethod
    def installed_apps(self) -> dict[str, AppDef]:
        """The apps on the phone by package, read from the app files."""

    @abc.abstractmethod
    def dialog_spec(self, name: str) -> dict[str, Any]:
        """What the system dialog `name` shows (raises for an unknown name)."""

    @abc.abstractmethod
    def prepare_notifications(self) -> None:
        """The scenario's notifications get their records (a reset's data was just loaded)."""

    @abc.abstractmethod
    def enter_screen(self, activity: Activity) -> None:
        """A new activity opens its screen: its fields, loading time, focus and on_enter ops."""

    @abc.abstractmethod
    def tick(self) -> None:
        """Let what was due by now happen (scheduled notifications, screens that change by
        themselves); every reader calls it."""

    @abc.abstractmethod
    def note_dump(self) -> None:
        """A hierarchy dump was served: a screen whose "after" waits for its Nth dump starts
        its countdown (so a test knows the reader saw the old screen before it changes)."""

    def add_faults(self, spec: FaultSpec) -> None:
        # simctl fault adds to what is in force: spec's non-default values win.
        changes = {
            f.name: getattr(spec, f.name) for f in dataclasses.fields(spec) if getattr(spec, f.name) != f.default
        }
        self.faults = dataclasses.replace(self.faults, **changes)
        for key in self.pending:
            extra = getattr(spec, key)
            if extra:
                self.pending[key] = extra
        if spec.dialog:
            self.show_system_dialog(spec.dialog)

    def take_fault(self, key: str) -> bool:
        """Consumes one pending fault of this kind, if any."""
        if self.pending.get(key, 0) > 0:
            self.pending[key] -= 1
            return True
        return False

    # -- system settings ----------------------------------------------------------
    def settings_table(self, namespace: str) -> dict[str, str]:
        table = dict(self.extra_settings[namespace])
        for (ns, key), (name, how) in _LINKED_SETTINGS.items():
            if ns == namespace:
                table[key] = _encode(how, self.data["settings"][name])
        return table

    def put_setting(self, namespace: str, key: str, value: str) -> None:
        link = _LINKED_SETTINGS.get((namespace, key))
        if link:
            name, how = link
            self.data["settings"][name] = _decode(how, value)
        else:
            self.extra_settings[namespace][key] = value
        if namespace == "system" and key in ("user_rotation", "accelerometer_rotation"):
            rotation.follow_settings(self)
        self.changed()

    def delete_setting(self, namespace: str, key: str) -> bool:
        self.changed()
        return self.extra_settings[namespace].pop(key, None) is not None

    # -- displays -----------------------------------------------------------------------
    def add_display(
        self,
        width: int,
        height: int,
        density: int,
        name: str = "scrcpy",
        *,
        owner: str = "com.android.shell",
        destroy_content: bool = True,
    ) -> Display:
        """A new virtual display, as DisplayManager.createVirtualDisplay makes one: the next
        free logical id (Android counts up from the built-in screen's 0 and never reuses an id
        while the phone is up), empty until an app is started on it."""
        new_id = max(self.displays) + 1 if self.displays else 0
        new_id = max(new_id, self._next_display_id)
        self._next_display_id = new_id + 1
        display = Display(new_id, width, height, density, name=name, owner=owner, destroy_content=destroy_content)
        self.displays[new_id] = display
        self.changed()
        return display

    def remove_display(self, display_id: int) -> bool:
        """The virtual display released: its tasks are destroyed, or moved to the top of
        display 0 when it was created to keep its content. The built-in screen stays
        (False, as for an unknown id)."""
        if display_id == 0 or display_id not in self.displays:
            return False
        display = self.displays.pop(display_id)
        if not display.destroy_content:
            for task in display.tasks:
                self.displays[0].tasks.append(task)
        if self._last_focus == display_id:
            self._last_focus = 0
        self.changed()
        return True

    def move_task(self, task_id: int, display_id: int) -> bool:
        """`am display move-stack`: the task, wherever it is, goes on top of `display_id`."""
        target = self.displays[display_id]
        for display in self.displays.values():
            for task in display.tasks:
                if task.id == task_id:
                    display.tasks.remove(task)
                    target.tasks.append(task)
                    self._last_focus = display_id
                    self.changed()
                    return True
        return False

    def remove_task(self, task_id: int) -> bool:
        """`am stack remove ROOT_TASK_ID`: the task is finished, on whatever display it is."""
        for display in self.displays.values():
            for task in display.tasks:
                if task.id == task_id:
                    display.tasks.remove(task)
                    self.changed()
                    return True
        return False

    def set_appop(self, package: str, op: str, mode: str) -> None:
        ops = self.appops.setdefault(package, {})
        if mode == "default":
            ops.pop(op, None)
        else:
            ops[op] = (mode, self.clock.now())
        self.changed()

    # -- tasks and activities ---------------------------------------------------------
    def display(self, display_id: int) -> Display:
        return self.displays[display_id]

    def top_activity(self, display_id: int = 0) -> Activity | None:
        task = self.displays[display_id].top_task
        return task.top if task else None

    _last_focus = 0
    _next_display_id = 1

    @property
    def focused_display(self) -> int:
        return self._last_focus if self._last_focus in self.displays else 0

    def launch(
        self,
        package: str,
        display_id: int = 0,
        screen: str | None = None,
        params: dict[str, Any] | None = None,
        fields: dict[str, Any] | None = None,
        new_task: bool = False,
    ) -> Activity:
        """Brings the app's task to front (or starts it) on a display; with `screen`, pushes
        that screen unless it is already on top."""
        if self._asks_which_copy(package):
            # what was asked for (a page, a shared text) opens once a copy is picked
            self._pending_launch[display_id] = (screen, dict(params or {}), dict(fields or {}))
            return self._show_chooser(package, display_id)
        app = self.apps[package]
        display = self.displays[display_id]
        if self.faults.crash == package and all(d.task_for(package) is None for d in self.displays.values()):
            return self._crash_on_start(app, display_id, screen or app.main)
        for d in self.displays.values():
            if d is not display:
                task = d.task_for(package)
                if task:
                    d.tasks.remove(task)
                    display.tasks.append(task)
        task = display.task_for(package)
        if task is not None and (new_task or screen):
            if screen and (new_task or task.top.screen != screen or (params and task.top.params != params)):
                if new_task:
                    task.stack = []
                task.stack.append(self.new_activity(package, screen, params, fields))
            display.tasks.remove(task)
            display.tasks.append(task)
        elif task is not None:
            display.tasks.remove(task)
            display.tasks.append(task)
        else:
            first = screen or app.main
            task = Task(package, [self.new_activity(package, first, params, fields)])
            display.tasks.append(task)
        if package == LAUNCHER:
            # Home sits at the bottom; every other task goes behind the launcher's view.
            display.tasks.remove(task)
            display.tasks.append(task)
        self._last_focus = display_id
        self.changed()
        return task.top

    def _crash_on_start(self, app: AppDef, display_id: int, screen: str) -> Activity:
        """The `crash=` fault: the app's onCreate throws, its process dies before a window
        shows, and what was in front stays there."""
        self.faults = dataclasses.replace(self.faults, crash=None)
        self.crashes.append(
            AppCrash(self.clock.now(), 3000 + app.uid % 1000, app.package, app.screens[screen].activity)
        )
        self.changed()
        top = self.top_activity(display_id)
        return top if top is not None else self.launch(LAUNCHER, display_id)

    # -- an app installed twice (dual apps / work profile) -------------------------------
    def _asks_which_copy(self, package: str) -> bool:
        """A cold start of an app that is also installed in another user: the system first
        asks which copy to open (MIUI "dual apps", ColorOS "App Cloner")."""
        if package not in (self.data.get("dual_apps") or {}):
            return False
        return all(d.task_for(package) is None for d in self.displays.values())

    def _show_chooser(self, package: str, display_id: int) -> Activity:
        app = self.apps[package]
        label = app.label
        other = str(self.data.get("dual_label", "{label} (dual)")).replace("{label}", label)
        params = {
            "target": package,
            "main_label": label,
            "other_label": other,
            "other_user": int(self.data["dual_apps"][package]),
        }
        display = self.displays[display_id]
        task = Task(CHOOSER, [self.new_activity(CHOOSER, "Chooser", params, {})])
        display.tasks.append(task)
        self._last_focus = display_id
        self.changed()
        return task.top

    def defer_launch(self, display_id: int, screen: str, params: dict[str, Any], fields: dict[str, Any]) -> None:
        """The page an intent asked for, opened once the chooser on that display is answered."""
        self._pending_launch[display_id] = (screen, params, fields)

    def pick_copy(self, display_id: int, package: str, user: int) -> None:
        """An item of the chooser tapped: the chooser finishes and that user's copy starts."""
        display = self.displays[display_id]
        chooser = display.task_for(CHOOSER)
        if chooser is not None:
            display.tasks.remove(chooser)
        copies = [c for c in self.data.setdefault("running_copies", []) if c.get("package") != package]
        self.data["running_copies"] = [*copies, {"package": package, "user": user}]
        app = self.apps[package]
        screen, params, fields = self._pending_launch.pop(display_id, (None, {}, {}))
        display.tasks.append(Task(package, [self.new_activity(package, screen or app.main, params, fields)]))
        self._last_focus = display_id
        self.changed()

    def new_activity(
        self,
        package: str,
        screen: str,
        params: dict[str, Any] | None = None,
        fields: dict[str, Any] | None = None,
    ) -> Activity:
        activity = Activity(package, screen, dict(params or {}), dict(fields or {}))
        self.enter_screen(activity)
        return activity

    def push(self, display_id: int, screen: str, params: dict[str, Any], fields: dict[str, Any]) -> None:
        task = self.displays[display_id].top_task
        assert task is not None
        task.stack.append(self.new_activity(task.package, screen, params, fields))
        self.changed()

    def back(self, display_id: int = 0) -> None:
        display = self.displays[display_id]
        task = display.top_task
        self.changed()
        if task is None:
            return
        if len(task.stack) > 1:
            task.stack.pop()
        elif task.package == CHOOSER:
            display.tasks.remove(task)  # the chooser dismissed: nothing opens
            if display.top_task is None:
                self._raise_launcher(display)
        elif task.package != LAUNCHER:
            # The root activity finishes; the task goes to the back (Android 12+ moves it).
            display.tasks.remove(task)
            display.tasks.insert(0, task)
            self._raise_launcher(display)

    def home(self, display_id: int = 0) -> None:
        display = self.displays[display_id]
        self._raise_launcher(display)
        self.changed()

    def _raise_launcher(self, display: Display) -> None:
        launcher = display.task_for(LAUNCHER)
        if launcher is None:
            self.launch(LAUNCHER, display.id)
            return
        display.tasks.remove(launcher)
        display.tasks.append(launcher)

    def uninstall(self, package: str) -> bool:
        """`pm uninstall`: a downloaded app leaves the phone, its tasks with it; False (pm's
        refusal) for a system app, the home app or a package that isn't there."""
        app = self.apps.get(package)
        if app is None or app.system or package == LAUNCHER:
            return False
        self.force_stop(package)
        # A new dict: the app files' table is shared by every world in the process.
        self.apps = {name: a for name, a in self.apps.items() if name != package}
        self.changed()
        return True

    def force_stop(self, package: str) -> None:
        for display in self.displays.values():
            task = display.task_for(package)
            if task:
                display.tasks.remove(task)
        if self.displays[0].task_for(LAUNCHER) is None:
            self.launch(LAUNCHER, 0)
        self.changed()

    def enter_pin(self, what: str) -> None:
        """A digit, "DEL" or "ENTER" on the keyguard's PIN pad."""
        if what == "DEL":
            self.pin_entry = self.pin_entry[:-1]
        elif what == "ENTER":
            if self.pin_entry == self.pin:
                self.locked = False
                self.bouncer = False
            else:
                self.show_toast("Wrong PIN")
            self.pin_entry = ""
        elif what.isdigit():
            self.pin_entry = (self.pin_entry + what)[:16]
        self.changed()

    def touch_focus(self, display_id: int) -> None:
        """A touch on a display makes it the focused one (mTopFocusedDisplayId)."""
        if display_id in self.displays and self._last_focus != display_id:
            self._last_focus = display_id
            self.changed()

    def count_tap(self) -> None:
        """Scenarios may pop a dialog over the screen after N taps ("surprise")."""
        self.taps += 1
        if self.surprise and self.taps == int(self.surprise.get("after_taps", 0)):
            self.show_system_dialog(self.surprise["dialog"])

    # -- power, lock, dialogs ---------------------------------------------------------
    def set_screen(self, on: bool) -> None:
        if not on:
            self.locked = True  # the keyguard comes up whenever the screen goes off
            self.bouncer = False
            self.pin_entry = ""
        self.screen_on = on
        self.changed()

    def show_system_dialog(self, name: str, display_id: int = 0) -> None:
        self.dialog = self.dialog_spec(name)
        self.dialog_display = display_id
        self.changed()

    def dialog_on(self, display_id: int) -> dict[str, Any] | None:
        """The system dialog drawn on this display, if any (one whose display went away
        is on the main screen, where Android moves that display's tasks)."""
        if not self.dialog:
            return None
        shown = self.dialog_display if self.dialog_display in self.displays else 0
        return self.dialog if shown == display_id else None

    def show_toast(self, text: str) -> None:
        self.toast = (text, self.clock.now() + 3.5)
        self.last_toast = text
        self.changed()

    def current_toast(self) -> str | None:
        if self.toast and self.toast[1] > self.clock.now():
            return self.toast[0]
        return None

    # -- what simctl state shows -------------------------------------------------------
    def state(self) -> dict[str, Any]:
        self.tick()
        out = copy.deepcopy(self.data)
        out["foreground"] = {
            str(d.id): (
                f"{t.package}/{self.apps[t.package].screens[t.top.screen].activity}" if (t := d.top_task) else None
            )
            for d in self.displays.values()
        }
        out["screen"] = {str(d.id): (t.top.screen if (t := d.top_task) else None) for d in self.displays.values()}
        out["time"] = self.clock.local().strftime("%Y-%m-%dT%H:%M:%S")
        out["screen_on"] = self.screen_on
        out["locked"] = self.locked
        out["scenario"] = self.scenario
        out["dialog"] = self.dialog["name"] if self.dialog else None
        out["faults"] = self.faults.to_spec()
        return out


def _encode(how: str, value: Any) -> str:
    if how == "bool":
        return "1" if value else "0"
    if how == "night":
        return "2" if value else "1"
    if how == "brightness":
        return str(round(int(value) * 255 / 100))
    if how == "location":
        return "3" if value else "0"
    return str(value)


def _decode(how: str, text: str) -> Any:
    if how == "bool":
        return text.strip() not in ("0", "", "false")
    if how == "night":
        return text.strip() == "2"
    if how == "brightness":
        return round(int(text) * 100 / 255) if text.strip().isdigit() else 50
    if how == "location":
        return text.strip() not in ("0", "")
    return text
