"""Can the UI tree be trusted for this screen, or must text be read from pixels?

Following seed §5 (`TreeQuality`), `TreeAdequacy.assess` looks only at the tree:

* unusable  — fewer than 3 named elements in the app window (games, canvases: a Unity
  surface with one "Game view" node; near-empty trees);
* uncertain — the tree may miss text: most controls have no name, a WebView or drawing
  surface covers a large part of the window, or a large share of the window has no
  named element at all. Then text is read from pixels once (`ocr.merge_ocr`) and the
  screen is `partial` when that finds 3 or more lines the tree lacks;
* good      — enough named elements, mostly named controls, no large blank area.

When a large blank area is the only doubt, or the tree is near-empty, `blank` holds the
grid cells no named element touches (screen coordinates): a reader with the picture can
see whether anything is drawn there at all before paying for OCR (a sparse Settings page,
a browser's start page are blank in the pixels too).

`blind_at(x, y)` adds the point test: a tap whose point is inside no listed element is
one the tree cannot see, whatever the rest of the screen looks like.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mika.uistate.screen import Screen
from mika.uistate.tree import Bounds

GOOD = "good"
UNCERTAIN = "uncertain"
PARTIAL = "partial"
UNUSABLE = "unusable"

MIN_NAMED = 3  # fewer named elements in the app window: the tree is unusable
PARTIAL_MIN_LINES = 3  # OCR lines the tree lacks that make a screen "partial"
_LARGE_SHARE = 0.4  # a WebView/surface this big covers "a large part" of the window
_NAMED_CONTROLS = 0.5  # at least this share of controls should have a name
_BLANK_SHARE = 0.6  # more of the window than this without any name: a blank area
_GRID = 8
_SURFACES = ("WebView", "SurfaceView", "GLSurfaceView", "TextureView", "UnityPlayer", "FlutterView")


@dataclass(frozen=True)
class Adequacy:
    level: str  # good | uncertain | partial | unusable
    reasons: tuple[str, ...] = ()
    # The cells no named element touches, when they are the only reason for doubt.
    blank: tuple[Bounds, ...] = ()

    @property
    def blind(self) -> bool:
        """The tree is known not to see (all of) the screen."""
        return self.level in (PARTIAL, UNUSABLE)

    @property
    def needs_ocr(self) -> bool:
        return self.level != GOOD


class TreeAdequacy:
    @staticmethod
    def assess(screen: Screen) -> Adequacy:
        if screen.tree_blind:
            return Adequacy(PARTIAL, ("text read from pixels showed what the tree lacks",))
        app_windows = {w.index: w for w in screen.windows if w.kind in ("app", "dialog", "system")}
        elements = [e for e in screen.elements if e.window in app_windows]
        named = [e for e in elements if e.label and e.label_source != "id"]
        window = max(app_windows.values(), key=lambda w: w.bounds.area).bounds if app_windows else None
        # What the keyboard or a bar covers is theirs (listed from their own trees): the app's
        # blank area stops there, or a shown keyboard would send every sparse page to OCR.
        over = [w.bounds for w in screen.windows if w.index not in app_windows]
        if len(named) < MIN_NAMED:
            # A near-empty tree over a near-empty page (a browser's start page: one address
            # bar) is blank in the pixels too: its blank cells let the reader see that
            # before paying for OCR; a game or a canvas is drawn there and keeps it.
            cells = _blank_cells(window, [e.bounds for e in named], over) if window is not None else []
            return Adequacy(UNUSABLE, (f"only {len(named)} named element(s) in the app window",), tuple(cells))
        assert window is not None  # there are named elements, so there is an app window
        reasons: list[str] = []
        controls = [e for e in elements if e.actionable and not e.node.scrollable]
        if controls:
            share = sum(1 for e in controls if e.label) / len(controls)
            if share < _NAMED_CONTROLS:
                reasons.append(f"only {share:.0%} of the controls have a name")
        for node in screen.tree.nodes():
            if node.window in app_windows and node.visible_to_user and node.short_class.endswith(_SURFACES):
                share = node.bounds.intersection(window).area / max(window.area, 1)
                if share >= _LARGE_SHARE:
                    reasons.append(f"a {node.short_class} covers {share:.0%} of the window")
                    break
        cells = _blank_cells(window, [e.bounds for e in named if e.bounds.area < 0.25 * window.area], over)
        blank = len(cells) / (_GRID * _GRID)
        if blank > _BLANK_SHARE:
            if not reasons:
                return Adequacy(UNCERTAIN, (f"{blank:.0%} of the window has no named element",), tuple(cells))
            reasons.append(f"{blank:.0%} of the window has no named element")
        return Adequacy(UNCERTAIN, tuple(reasons)) if reasons else Adequacy(GOOD)

    @staticmethod
    def blind_at(screen: Screen, x: float, y: float) -> bool:
        """No element but a container (a scroll view, a WebView) is under the point."""
        return not any(
            e.bounds.contains(x, y) and not e.node.scrollable and e.role != "webview" for e in screen.elements
        )


def _blank_cells(window: Bounds, named: list[Bounds], over: Sequence[Bounds] = ()) -> list[Bounds]:
    """The grid cells of the window that no named element touches and no other window
    (`over`: the keyboard, the bars) covers at the cell's centre."""
    if window.empty:
        return []
    cw, ch = window.width / _GRID, window.height / _GRID
    # Plain int comparisons on tuples: this runs for every read of a screen (issue 35),
    # and Bounds objects per cell and per pair cost more than the whole rest of the check.
    boxes = [(b.left, b.top, b.right, b.bottom) for b in named]
    covers = [(b.left, b.top, b.right, b.bottom) for b in over]
    lefts = [int(window.left + i * cw) for i in range(_GRID + 1)]
    tops = [int(window.top + j * ch) for j in range(_GRID + 1)]
    empty: list[Bounds] = []
    for i in range(_GRID):
        left, right = lefts[i], lefts[i + 1]
        # The named boxes this column meets; a cell is touched when one meets its rows too.
        column = [(t, bo) for (le, t, r, bo) in boxes if max(left, le) < min(right, r)]
        cx = (left + right) // 2
        for j in range(_GRID):
            top, bottom = tops[j], tops[j + 1]
            cy = (top + bottom) // 2
            if any(le <= cx < r and t <= cy < bo for (le, t, r, bo) in covers):
                continue
            if not any(max(top, t) < min(bottom, bo) for (t, bo) in column):
                empty.append(Bounds(left, top, right, bottom))
    return empty
