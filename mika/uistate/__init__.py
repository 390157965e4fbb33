"""Platform-free screen model shared by the phone and (later) the web capability.

How a port uses it (one `ScreenTracker` per display)::

    tree = parse_hierarchy(xml)  # HierarchyError(kind, retryable)
    screen = tracker.update(build_screen(tree, size=wm_size, display_id=0, activity=act))
    if TreeAdequacy.assess(screen).needs_ocr:  # WebView, game, blank areas
        screen = tracker.update(merge_ocr(screen, read_text(png), image_size=png_size))
    text_for_model = screen.listing()  # never raw XML, never passwords
    element = tracker.resolve(number, seen_version)  # StaleElement carries .listing
    effect = ActionEffect.judge(before, after, target=element.centre)  # + .limit
    result = await UntilWait(expect="完成").run(read_screen, new_message_event)
    hits = find_nodes(screen, text="设置")  # phone_query over the full tree

(`merge_ocr` / `read_text` live in `mika.cap.phone.ocr`; this package has no
platform code and imports nothing from `mika.cap` or `mika.tool`.)
"""

from mika.uistate.adequacy import Adequacy, TreeAdequacy
from mika.uistate.effect import ActionEffect, EffectKind
from mika.uistate.elements import Element
from mika.uistate.errors import HierarchyError, StaleElement, UnknownElement
from mika.uistate.limit_notice import LimitNotice
from mika.uistate.listing import ListingParts, listing_parts
from mika.uistate.lock import looks_locked
from mika.uistate.query import QueryError, QueryHit, find_nodes
from mika.uistate.screen import Screen, ScreenTracker, build_screen
from mika.uistate.seen_text import SeenText
from mika.uistate.tokens import estimate_tokens
from mika.uistate.tree import Bounds, UiNode, UiTree, UiWindow, parse_hierarchy
from mika.uistate.until_wait import UntilWait, WaitResult, WaitSpecError
from mika.uistate.windows import WindowInfo

__all__ = [
    "ActionEffect",
    "Adequacy",
    "Bounds",
    "EffectKind",
    "Element",
    "HierarchyError",
    "LimitNotice",
    "ListingParts",
    "QueryError",
    "QueryHit",
    "Screen",
    "ScreenTracker",
    "SeenText",
    "StaleElement",
    "TreeAdequacy",
    "UiNode",
    "UiTree",
    "UiWindow",
    "UnknownElement",
    "UntilWait",
    "WaitResult",
    "WaitSpecError",
    "WindowInfo",
    "build_screen",
    "estimate_tokens",
    "find_nodes",
    "listing_parts",
    "looks_locked",
    "parse_hierarchy",
]
