"""simctl: the command only the simulated phone has, to inspect and prepare its world.

simctl state [KEY]           the world as JSON (KEY: a dotted path, e.g. settings.wifi)
simctl reset [SCENARIO]      back to a scenario's initial state
simctl set KEY VALUE         KEY: time | screen_on | locked | pin | a data path; VALUE JSON or text
simctl fault SPEC | clear    add faults (drop_after=N,slow_ms=N,null_root=N,…) or clear them
simctl scenarios             list scenario names
simctl notify JSON           post a notification ({"package", "title", "text", "after_ms", "thread"})
simctl display add WxH [DPI] [NAME] | remove ID | list | off ID | on ID
                             virtual displays (tasks move with am display move-stack);
                             off/on: the framework powers a virtual display off (black
                             frames, `dumpsys display` state OFF) or on again
"""

from __future__ import annotations

import json

from mika.sim.apps import notifications
from mika.sim.apps import template as tpl
from mika.sim.faults import FaultSpec, FaultSpecError
from mika.sim.shell.context import Ctx
from mika.sim.shell.registry import command
from mika.sim.world.clock import parse_time
from mika.sim.world.world import ScenarioError, World, scenario_names

_USAGE = (__doc__ or "").split("\n", 2)[2]


def _value(text: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


@command("simctl")
async def simctl(ctx: Ctx) -> int:
    args = ctx.args[1:]
    world = ctx.phone.world
    if not args or args[0] in ("-h", "--help", "help"):
        ctx.print("usage: simctl state|reset|set|fault|scenarios …\n" + _USAGE)
        return 0 if args else 1
    verb, rest = args[0], args[1:]
    if verb == "state":
        state = world.state()
        state["displays"] = _displays_state(world)
        if rest:
            value = tpl.lookup(rest[0], state)
            if value is None and tpl.split_path(rest[0])[0] not in state:
                ctx.error(f"simctl: no state key {rest[0]!r}; top-level keys: {', '.join(sorted(state))}")
                return 1
            state = value
        ctx.print(json.dumps(state, ensure_ascii=False, sort_keys=True) + "\n")
        return 0
    if verb == "reset":
        name = rest[0] if rest else world.scenario
        try:
            world.reset(name)
        except ScenarioError as e:
            ctx.error(f"simctl: {e}")
            return 1
        ctx.print(f"reset to scenario {name}\n")
        return 0
    if verb == "scenarios":
        ctx.print("".join(n + "\n" for n in scenario_names()))
        return 0
    if verb == "notify":
        return _notify(ctx, " ".join(rest))
    if verb == "display":
        return _display(ctx, rest)
    if verb == "set":
        if len(rest) < 2:
            ctx.error("simctl: set needs KEY VALUE, e.g. simctl set settings.wifi false")
            return 1
        key, raw = rest[0], " ".join(rest[1:])
        return _set(ctx, key, raw)
    if verb == "fault":
        if not rest:
            ctx.print((world.faults.to_spec() or "none") + "\n")
            return 0
        if rest[0] == "clear":
            world.faults = FaultSpec()
            for k in world.pending:
                world.pending[k] = 0
            ctx.print("faults cleared\n")
            return 0
        try:
            spec = FaultSpec.parse(",".join(rest))
            world.add_faults(spec)
        except (FaultSpecError, ValueError) as e:
            ctx.error(f"simctl: {e}")
            return 1
        ctx.print(f"faults: {world.faults.to_spec() or 'none'}\n")
        return 0
    ctx.error(f"simctl: unknown verb {verb!r}; use state, reset, set, fault or scenarios")
    return 1


def _displays_state(world: World) -> dict[str, dict[str, object]]:
    """Each display's foreground, so a test sees what runs where (display 0 is the user's)."""
    out: dict[str, dict[str, object]] = {}
    for d in world.displays.values():
        task = d.top_task
        w, h = d.size
        out[str(d.id)] = {
            "foreground": task.package if task else None,
            "activity": world.apps[task.package].activity_component(task.top.screen) if task else None,
            "screen": task.top.screen if task else None,
            "tasks": [t.package for t in reversed(d.tasks)],  # top first
            "name": d.name,
            "owner": d.owner,
            "size": [w, h],
            "density": d.override_density or d.density,
            "focused": d.id == world.focused_display,
            "state": d.state,
        }
    return out


def _set(ctx: Ctx, key: str, raw: str) -> int:
    world = ctx.phone.world
    if key == "time":
        try:
            if raw.startswith("+"):
                world.clock.jump(float(raw[1:].rstrip("s")))
            else:
                world.clock.set(parse_time(raw))
        except ValueError:
            ctx.error(f"simctl: time must be ISO 8601 (2026-12-01T08:00) or +SECONDS, got {raw!r}")
            return 1
        world.changed()
        return 0
    if key == "clock.frozen":
        world.clock.frozen = bool(_value(raw))
        return 0
    if key in ("screen_on", "locked"):
        setattr(world, key, bool(_value(raw)))
        world.changed()
        return 0
    if key == "pin":
        world.pin = raw
        return 0
    value = _value(raw)
    try:
        container, last = tpl.parent_and_key(key, world.data)
    except tpl.TemplateError as e:
        ctx.error(f"simctl: {e}")
        return 1
    if isinstance(container, list) and last.lstrip("-").isdigit():
        container[int(last)] = value
    elif isinstance(container, dict):
        container[last] = value
    else:
        ctx.error(f"simctl: can't set {key!r}: its parent is not an object")
        return 1
    world.changed()
    return 0


def _notify(ctx: Ctx, raw: str) -> int:
    spec = _value(raw) if raw else None
    if not isinstance(spec, dict) or not isinstance(spec.get("text", ""), str) or not spec.get("package"):
        ctx.error('simctl: notify needs a JSON object with "package", "title", "text" (and optionally "after_ms")')
        return 1
    after = spec.pop("after_ms", 0)
    if not isinstance(after, int) or after < 0:
        ctx.error(f"simctl: notify: after_ms must be a whole number of milliseconds >= 0; got {after!r}")
        return 1
    notifications.schedule(ctx.phone.world, spec, after)
    ctx.phone.world.tick()
    return 0


def _display(ctx: Ctx, rest: list[str]) -> int:
    world = ctx.phone.world
    if not rest or rest[0] == "list":
        for d in world.displays.values():
            w, h = d.size
            ctx.print(f"{d.id} {w}x{h} {d.override_density or d.density}dpi {d.name}\n")
        return 0
    if rest[0] == "add" and len(rest) >= 2:
        ws, _, hs = rest[1].partition("x")
        dpi = rest[2] if len(rest) > 2 else "320"
        if not (ws.isdigit() and hs.isdigit() and dpi.isdigit()):
            ctx.error(f"simctl: display add needs WxH [DPI], e.g. 1080x1920 320; got {' '.join(rest[1:3])!r}")
            return 1
        name = " ".join(rest[3:]) or "Virtual Display"
        display = world.add_display(int(ws), int(hs), int(dpi), name)
        ctx.print(f"{display.id}\n")
        return 0
    if rest[0] == "remove" and len(rest) == 2 and rest[1].isdigit():
        if not world.remove_display(int(rest[1])):
            ctx.error(f"simctl: no removable display {rest[1]} (display 0 stays)")
            return 1
        return 0
    if rest[0] in ("off", "on") and len(rest) == 2 and rest[1].isdigit():
        virtual = world.displays.get(int(rest[1]))
        if virtual is None or virtual.id == 0:
            ctx.error(f"simctl: no virtual display {rest[1]} (display 0 follows simctl set screen_on)")
            return 1
        virtual.powered = rest[0] == "on"
        world.changed()
        return 0
    ctx.error("simctl: use display add WxH [DPI] [NAME], display remove ID, display off|on ID or display list")
    return 1
