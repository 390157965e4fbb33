"""Every class whose keys the user may remap (`[keymap]` in the config, by binding id).

One list, read by the Settings keymap table and checked by a test against every
binding in the app, so a key added to a widget (the sidebar's `/` and Esc, the idle
chat's Esc) cannot be missing from the table the user remaps keys in.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.dom import DOMNode


def remappable_classes() -> list[type[DOMNode]]:
    from mika_tui.app import MikaApp
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

    return [
        MikaApp,
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
    for cls in remappable_classes():
        for b in getattr(cls, "BINDINGS", ()):
            if isinstance(b, Binding) and b.id and b.id not in seen:
                seen.add(b.id)
                out.append((b.id, b.key))
    return out
