"""The packages installed on the simulated phone: the apps of the app files plus the
system packages every phone has and one third-party keyboard, with the versions the
package manager reports for them.

`pm list packages`, `appops`, `dumpsys package` and mobilecli's on-device package lister
(mika/sim/devicekit) all read this one inventory, so they can't disagree on what is
installed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mika.sim.world.installed import AppDef
    from mika.sim.world.world import World

# Packages every phone has that aren't apps of ours (no screens).
SYSTEM_ONLY = (
    "android",
    "com.android.systemui",
    "com.android.phone",
    "com.android.shell",
    "com.android.providers.settings",
    "com.android.providers.contacts",
    "com.android.providers.calendar",
    "com.android.providers.media",
    "com.android.providers.telephony",
    "com.android.inputmethod.latin",
    "com.google.android.permissioncontroller",
    "com.android.webview",
    "com.android.packageinstaller",
)
THIRD_PARTY_ONLY = ("com.android.adbkeyboard",)


def installed_packages(world: World) -> list[tuple[str, bool]]:
    """(package, is_system), sorted by package."""
    out = [(p, True) for p in SYSTEM_ONLY] + [(p, False) for p in THIRD_PARTY_ONLY]
    out += [(a.package, a.system) for a in world.apps.values() if a.package not in SYSTEM_ONLY]
    return sorted(out)


def is_installed(world: World, package: str) -> bool:
    return package in world.apps or package in SYSTEM_ONLY or package in THIRD_PARTY_ONLY


def version_code(app: AppDef) -> int:
    # An app installed from an APK has what its manifest said (mika/sim/shell/commands/install.py).
    return app.version_code if app.version_code is not None else int(f"34{app.uid % 100:02d}")


def version_name(app: AppDef) -> str | None:
    if app.version_code is not None:
        return app.version_name
    return f"14.{app.uid % 10}.0"
