"""What a restart leaves of the phone (`adb reboot`): what is stored stays — files, apps
and their data, settings, the rotation lock — and what lived in memory goes: every app's
tasks and the virtual displays, the clipboard, posted notifications, dialogs, the shade,
the keyboard, toasts and touches. It comes back with the screen on at the launcher, and
locked when it has a PIN. The connection and what ran over it (shell commands, the
uiautomator and scrcpy servers, forwards and reverses) end with the adbd (mika/sim/phone.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mika.sim.world.world import LAUNCHER

if TYPE_CHECKING:
    from mika.sim.world.world import World


def reboot(world: World) -> None:
    for display_id in sorted(world.displays, reverse=True):
        if display_id != 0:
            world.remove_display(display_id)
    world.displays[0].tasks.clear()
    world.data["clipboard"] = ""
    if "notifications" in world.data:
        world.data["notifications"] = []
    world.dialog = None
    world.shade_open = False
    world.ime_visible = False
    world.bouncer = False
    world.pin_entry = ""
    world.locked = world.locked or bool(world.pin)
    world.screen_on = True
    world.touches.clear()
    world.toast = None
    world.last_toast = None
    world.frame_cache.clear()
    world.shot_cache.clear()
    world.launch(LAUNCHER, display_id=0)
    world.changed()
