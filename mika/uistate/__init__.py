"""Platform-free screen model shared by the phone and (later) the web capability.

Parse a dump with `parse_hierarchy`, turn it into a numbered `Screen` with
`build_screen`, stamp versions with `ScreenTracker`, show the model `Screen.listing()`,
judge actions with `ActionEffect.judge`, wait with `UntilWait`.
"""

from mika.uistate.adequacy import Adequacy, TreeAdequacy
from mika.uistate.effect import ActionEffect, EffectKind
from mika.uistate.elements import Element
from mika.uistate.errors import HierarchyError, StaleElement, UnknownElement
from mika.uistate.limit_notice import LimitNotice
from mika.uistate.lock import looks_locked
from mika.uistate.query import QueryError, QueryHit, find_nodes
from mika.uistate.screen import Screen, ScreenTracker, SeenText, build_screen
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
    "looks_locked",
    "parse_hierarchy",
]
