"""The system's "which copy?" window after opening an app installed twice (dual apps,
App Cloner, a work profile): recognised from a screen, pure logic.

It is a chooser only when the window in front belongs to a package known to draw it and at least
two of its clickable options name the app; an app's own dialog that mentions its name is
not one (any app can draw "Open Chat?"). Which option is the other copy is read from a
marker in its label ("(dual)", "双开", "分身", "Work"…); two options with the same label
and no marker can't be told apart, so the caller asks instead of guessing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mika.uistate.screen import Screen

# Packages that draw the system's chooser: AOSP's ResolverActivity lives in "android"
# (Android 12+ may use com.android.intentresolver), vendors use their own security apps.
_CHOOSER_PACKAGES = frozenset(
    {
        "android",
        "com.android.intentresolver",
        "com.miui.securitycore",
        "com.miui.securitycenter",
        "com.coloros.safecenter",
        "com.oplus.safecenter",
        "com.huawei.systemmanager",
        "com.samsung.android.da.daagent",
        "com.vivo.doubleinstance",
    }
)
# com.android.* is the platform's own, but Chrome and the Play Store also live there.
_NOT_SYSTEM = frozenset({"com.android.chrome", "com.android.vending"})
_OTHER_MARKERS = re.compile(
    r"dual|clone|cloned|twin|second space|work|双开|分身|克隆|工作|副本|\(2\)|（2）|2$", re.IGNORECASE
)


def is_chooser_package(package: str) -> bool:
    """Only the packages known to draw the chooser: the home screen, the shade or Settings
    (all com.android.*) can show two clickable things naming an app too."""
    return package in _CHOOSER_PACKAGES


def is_system_package(package: str) -> bool:
    if package in _NOT_SYSTEM:
        return False
    return package in _CHOOSER_PACKAGES or package.startswith("com.android.")


@dataclass(frozen=True)
class ChooserOption:
    number: int  # the element's number on the screen it was read from
    label: str
    other: bool  # carries a marker of the other copy


@dataclass(frozen=True)
class Chooser:
    package: str  # the system package showing it
    options: tuple[ChooserOption, ...]

    @property
    def main(self) -> ChooserOption | None:
        plain = [o for o in self.options if not o.other]
        return plain[0] if len(plain) == 1 else None

    @property
    def other(self) -> ChooserOption | None:
        marked = [o for o in self.options if o.other]
        return marked[0] if len(marked) == 1 else None

    @property
    def clear(self) -> bool:
        """Exactly one plain and one marked option: which is which is known."""
        return self.main is not None and self.other is not None

    def pick(self, profile: str) -> ChooserOption | None:
        return self.main if profile == "main" else self.other if profile == "other" else None


def find_chooser(screen: Screen, label: str, package: str) -> Chooser | None:
    """The chooser for the app (`label`, `package`) if the window in front is one."""
    front = screen.foreground_package
    if front == package or not is_chooser_package(front):
        return None
    names = {n.casefold() for n in (label, package) if n}
    options = []
    for e in screen.elements:
        if e.package != front or not e.node.clickable or not e.node.enabled:
            continue
        text = e.label.strip()
        if not text or not any(n in text.casefold() for n in names):
            continue
        rest = text.casefold()
        for n in names:
            rest = rest.replace(n, " ")
        options.append(ChooserOption(e.number, text, bool(_OTHER_MARKERS.search(rest.strip()))))
    if len(options) < 2:
        return None
    return Chooser(front, tuple(options))
