"""Binding descriptions in the user's language.

Bindings are declared on classes with an i18n key as description (and tooltip); each
screen calls `localize` once after init so the footer, palette and tooltips read in
English or Chinese. Ids stay fixed: they are what settings.keymap remaps.
"""

from __future__ import annotations

from dataclasses import replace

from textual.dom import DOMNode

from mika_tui.i18n import TEXTS, Tr


def localize(node: DOMNode, tr: Tr) -> None:
    # Textual keeps a per-instance copy of the merged bindings; rewriting its texts is
    # the one way to change descriptions without redeclaring every binding per language.
    table = node._bindings.key_to_bindings
    for key, bindings in table.items():
        table[key] = [
            replace(
                b,
                description=tr(b.description) if b.description in TEXTS["en"] else b.description,
                tooltip=tr(b.tooltip) if b.tooltip in TEXTS["en"] else b.tooltip,
            )
            for b in bindings
        ]


def all_binding_ids(nodes: list[type[DOMNode]]) -> list[str]:
    """Every remappable id, for the Settings keymap table."""
    ids: list[str] = []
    for cls in nodes:
        for b in getattr(cls, "BINDINGS", []):
            bid = getattr(b, "id", None)
            if bid and bid not in ids:
                ids.append(bid)
    return ids
