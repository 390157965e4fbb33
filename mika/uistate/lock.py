"""Does the screen show the lock screen? (for the executor's lock-screen check)

From the tree alone: every non-bar window belongs to System UI and a visible node has
a keyguard id (`keyguard_root_view`, `keyguard_bottom_area`, `lock_icon`, vendor
variants like `com.oplus.keyguard…`). A notification shade pulled down over an app has
the app's window too, so it is not taken for a lock screen.
"""

from __future__ import annotations

from mika.uistate.screen import Screen
from mika.uistate.windows import SYSTEM_UI

_MARKS = ("keyguard", "lock_icon", "lockscreen", "lock_screen")


def looks_locked(screen: Screen) -> bool:
    main = [w for w in screen.windows if not w.is_bar and w.kind != "keyboard"]
    if not main or any(w.package != SYSTEM_UI for w in main):
        return False
    indices = {w.index for w in main}
    return any(
        node.visible_to_user and node.window in indices and any(m in node.resource_id.lower() for m in _MARKS)
        for node in screen.tree.nodes()
    )
