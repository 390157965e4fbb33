"""What an action did to the screen, judged from the screens before and after it.

* `place_changed` — another app or another page: the foreground package or activity
  changed, or most of the app's elements are different ones;
* `done` — the screen changed in place (a checkbox ticked, text typed, a list moved);
* `no_effect` — nothing visible changed (the status bar's clock does not count).

`tree_blind` is set on `no_effect` when the tree could not see the spot (seed §5):
the tree is not adequate, or the target point is inside no listed element. Then "no
visible change" does not mean the tap missed, and the result must say so.
`LimitNotice` and `TreeAdequacy` live in their own modules and are re-exported here.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from mika.uistate.adequacy import Adequacy, TreeAdequacy
from mika.uistate.limit_notice import LimitNotice
from mika.uistate.screen import Screen
from mika.uistate.tree import Bounds

__all__ = ["ActionEffect", "Adequacy", "EffectKind", "LimitNotice", "TreeAdequacy"]

_NEW_PAGE_SHARE = 0.5  # fewer than this share of elements kept: a new page


# Not StrEnum: that would change what str()/format() of a member prints
# ("EffectKind.DONE" becomes "done") wherever one is formatted; not a lint-level change.
class EffectKind(str, enum.Enum):  # noqa: UP042
    DONE = "done"
    PLACE_CHANGED = "place_changed"
    NO_EFFECT = "no_effect"


@dataclass(frozen=True)
class ActionEffect:
    kind: EffectKind
    tree_blind: bool = False
    limit: LimitNotice | None = None
    reason: str = ""

    @property
    def changed(self) -> bool:
        return self.kind is not EffectKind.NO_EFFECT

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"effect": self.kind.value}
        if self.tree_blind:
            out["treeBlind"] = True
        if self.limit is not None:
            out["limitReached"] = self.limit.text
        if self.reason:
            out["reason"] = self.reason
        return out

    @staticmethod
    def judge(before: Screen, after: Screen, target: tuple[float, float] | None = None) -> ActionEffect:
        limit = LimitNotice.detect(before, after)
        if before.foreground_package != after.foreground_package:
            return ActionEffect(
                EffectKind.PLACE_CHANGED,
                limit=limit,
                reason=f"{before.foreground_package} → {after.foreground_package}",
            )
        if before.activity and after.activity and before.activity != after.activity:
            return ActionEffect(EffectKind.PLACE_CHANGED, limit=limit, reason=f"{before.activity} → {after.activity}")
        if before.content_key() == after.content_key():
            blind = TreeAdequacy.assess(before).blind or (target is not None and TreeAdequacy.blind_at(before, *target))
            return ActionEffect(EffectKind.NO_EFFECT, tree_blind=blind, limit=limit)
        if _share_kept(before, after) < _NEW_PAGE_SHARE:
            return ActionEffect(EffectKind.PLACE_CHANGED, limit=limit, reason="most elements are new")
        return ActionEffect(EffectKind.DONE, limit=limit)


def _app_identities(screen: Screen, *, chrome_only: bool = True) -> set[tuple[object, ...]]:
    """The page's chrome: app elements that are not rows of a scrollable list.

    Rows come and go when a list scrolls; the title, tabs and buttons around the list
    stay. Comparing only those keeps "scrolled" apart from "another page"."""
    bars = {w.index for w in screen.windows if w.is_bar}
    lists = [e.bounds for e in screen.elements if e.node.scrollable and e.window not in bars]
    out: set[tuple[object, ...]] = set()
    for e in screen.elements:
        if e.window in bars:
            continue
        if chrome_only and not e.node.scrollable and any(_within(e.bounds, b) for b in lists):
            continue
        out.add((e.package, e.role, e.label, e.node.resource_id))
    return out


def _within(inner: Bounds, outer: Bounds) -> bool:
    return (
        outer.left <= inner.left
        and outer.top <= inner.top
        and inner.right <= outer.right
        and inner.bottom <= outer.bottom
    )


def _share_kept(before: Screen, after: Screen) -> float:
    old, new = _app_identities(before), _app_identities(after)
    if len(old) <= 1 or len(new) <= 1:
        # The whole page is one scroll view: its rows are all there is to compare.
        old, new = _app_identities(before, chrome_only=False), _app_identities(after, chrome_only=False)
    if not old and not new:
        return 1.0
    return len(old & new) / max(len(old | new), 1)
