"""Three tasks to try, fitted to the phone that is attached.

The idle chat offers them. A task for an app the phone does not have is a task that
fails, so each example names the package it needs and is offered only when the phone
reports that package (`pm list packages`, asked once per phone in a worker thread). An
installed app the knowledge catalog knows but no example names gets a plain "look at
it" task by its catalog name. What is left is filled with tasks any phone can do. No
phone: no tasks, only how to attach one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from mika_tui.i18n import Tr

if TYPE_CHECKING:
    from mika.knowledge.catalog import KnowledgeCatalog

SHOWN = 3

# (package, i18n key), most useful first: the first three the phone has are offered.
BY_PACKAGE: tuple[tuple[str, str], ...] = (
    ("com.android.settings", "ex_settings_dark"),
    ("com.mika.shop", "ex_mika_shop"),
    ("com.google.android.deskclock", "ex_timer"),
    ("com.mika.notes", "ex_mika_notes"),
    ("com.tencent.mm", "ex_wechat"),
    ("com.whatsapp", "ex_whatsapp"),
    ("com.mika.chat", "ex_mika_chat"),
    ("com.google.android.calendar", "ex_calendar"),
    ("com.android.chrome", "ex_chrome"),
    ("com.google.android.gm", "ex_gmail"),
    ("com.taobao.taobao", "ex_taobao"),
    ("com.google.android.apps.maps", "ex_maps"),
    ("com.autonavi.minimap", "ex_amap"),
)
# Tasks every Android phone can do (the screen, the system's own settings).
ANY_PHONE = ("ex_screen", "ex_battery", "ex_android_version")


def examples_for(
    has_phone: bool,
    packages: Iterable[str] | None,
    tr: Tr,
    app_names: Mapping[str, str] | None = None,
) -> list[str]:
    """The examples for this phone. `packages`: what it reports (None: not known yet —
    only tasks any phone can do). `app_names`: package → the knowledge catalog's name."""
    if not has_phone:
        return [tr("ex_no_phone_1"), tr("ex_no_phone_2")]
    installed = set(packages or ())
    out = [tr(key) for package, key in BY_PACKAGE if package in installed]
    named = {p for p, _ in BY_PACKAGE}
    for package in sorted(installed - named):
        name = (app_names or {}).get(package)
        if name:
            out.append(tr("ex_look_at_app", app=name))
    out = out[:SHOWN]
    for key in ANY_PHONE:
        if len(out) >= SHOWN:
            break
        out.append(tr(key))
    return out


def catalog_names(catalog: KnowledgeCatalog | None) -> dict[str, str]:
    """package → app name from the knowledge catalog the assembly read (shipped and the
    user's own); empty without one (the examples then do without it)."""
    if catalog is None:
        return {}
    return {p: e.name for e in catalog.entries() if e.kind == "app" for p in e.packages}


AppsOf = Callable[[str], tuple[str, ...]]
