"""Every binding whose key the user may remap (`[keymap]` in the config, by binding id).

One list, read by the Settings keymap table and checked by a test against every
binding in the app, so a key added to a widget (the sidebar's `/` and Esc, the idle
chat's Esc) cannot be missing from the table the user remaps keys in. It lives with the
screens because it lists them; the app's own keys come from mika_tui/global_keys.py, so
nothing here imports the app (which imports the screens).
"""

from __future__ import annotations

from textual.binding import Binding
from textual.dom import DOMNode

from mika_tui.global_keys import GLOBAL_BINDINGS
from mika_tui.screens.base import SubScreen
from mika_tui.screens.devices import DevicesScreen
from mika_tui.screens.dialogs import ConfirmDialog, PromptDialog, SourceDialog
from mika_tui.screens.main import MainScreen
from mika_tui.screens.memory import MemoryScreen
from mika_tui.screens.plans import PlansScreen
from mika_tui.screens.routes import RoutesScreen
from mika_tui.widgets.cards import ApprovalCard, TakeoverCard
from mika_tui.widgets.chat import IdleOptions
from mika_tui.widgets.sidebar import ConversationList
from mika_tui.widgets.step_detail import StepDetail
from mika_tui.widgets.timeline import Timeline


def remappable_classes() -> list[type[DOMNode]]:
    """The classes with remappable bindings, in the table's order (after the app's keys)."""
    return [
        MainScreen,
        ConversationList,
        IdleOptions,
        ApprovalCard,
        TakeoverCard,
        Timeline,
        StepDetail,
        SubScreen,
        DevicesScreen,
        MemoryScreen,
        PlansScreen,
        RoutesScreen,
        ConfirmDialog,
        PromptDialog,
        SourceDialog,
    ]


def binding_table() -> list[tuple[str, str]]:
    """(binding id, default key) for every remappable binding of the app, once each."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    declared = [GLOBAL_BINDINGS, *(getattr(cls, "BINDINGS", ()) for cls in remappable_classes())]
    for bindings in declared:
        for b in bindings:
            if isinstance(b, Binding) and b.id and b.id not in seen:
                seen.add(b.id)
                out.append((b.id, b.key))
    return out
