"""Binding descriptions in the user's language, and which keys the footer shows now.

Bindings are declared on classes with an i18n key as description (and tooltip). The
footer, Textual's key panel and our palette all read a screen's bindings through
`Screen.active_bindings` (Textual's public view of "what the keys do here"), so a screen
with `TranslatedBindings` answers that property with the texts in English or Chinese, and
may decide which of them matter at this moment (`footer_binding`). Key handling does not
read this view, so nothing here changes what a key does. Ids stay fixed: they are what
settings.keymap remaps.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from textual.binding import ActiveBinding, Binding
from textual.dom import DOMNode

from mika_tui.i18n import TEXTS, Tr

if TYPE_CHECKING:
    from textual.app import App


def translated(tr: Tr, text: str) -> str:
    """An i18n key in the user's language; any other text as it is (Textual's own)."""
    return tr(text) if text in TEXTS["en"] else text


def app_tr(app: App) -> Tr:
    tr = getattr(app, "tr", None)
    return tr if isinstance(tr, Tr) else Tr("en")


class TranslatedBindings:
    """Mixin for a Screen (put it before Screen in the bases)."""

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        tr = app_tr(self.app)  # type: ignore[attr-defined]
        out: dict[str, ActiveBinding] = {}
        for key, active in super().active_bindings.items():  # type: ignore[misc]
            b = self.footer_binding(active)
            b = replace(b, description=translated(tr, b.description), tooltip=translated(tr, b.tooltip))
            out[key] = ActiveBinding(active.node, b, active.enabled, translated(tr, active.tooltip or b.tooltip))
        # The footer lists keys in this order (a focused Input's own keys would come first).
        ranked = sorted(out.items(), key=lambda item: self.footer_rank(item[1].binding))
        return dict(ranked)

    def footer_binding(self, active: ActiveBinding) -> Binding:
        """The binding as the footer should show it now (default: as declared)."""
        return active.binding

    def footer_rank(self, binding: Binding) -> int:
        """Where the footer puts a shown key (lower first; equal ranks keep their order):
        the screen's own keys, then quitting."""
        return 1 if binding.id == "app.quit" else 0


def _bare(action: str) -> str:
    return action.removeprefix("app.").removeprefix("screen.")


def key_of(app: App, screen: DOMNode, action: str) -> str:
    """How the key bound to `action` here is written ("^d", "?"), or "" if none is."""
    bindings = getattr(screen, "active_bindings", {})
    for active in bindings.values():
        if _bare(active.binding.action) == _bare(action):
            return app.get_key_display(active.binding)
    return ""


def all_binding_ids(nodes: list[type[DOMNode]]) -> list[str]:
    """Every remappable id, for the Settings keymap table."""
    ids: list[str] = []
    for cls in nodes:
        for b in getattr(cls, "BINDINGS", []):
            bid = getattr(b, "id", None)
            if bid and bid not in ids:
                ids.append(bid)
    return ids
