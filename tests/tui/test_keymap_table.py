"""The Settings keymap table lists every remappable key of the app (issue 17: the
sidebar's search and close keys were missing), and a remapped sidebar key works and is
what the help screen says."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from textual.binding import Binding
from textual.dom import DOMNode
from textual.widgets import DataTable

import mika_tui
from mika.config.settings import Settings
from mika.model.testing import Reply, ScriptedModel
from mika_tui.screens.keymap import binding_table
from tests.tui import scenes
from tests.tui.conftest import make_app, settle


def every_bound_id() -> set[str]:
    """Each binding id declared by any class anywhere in mika_tui."""
    ids: set[str] = set()
    for info in pkgutil.walk_packages(mika_tui.__path__, "mika_tui."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, DOMNode) and cls.__module__.startswith("mika_tui"):
                for b in cls.__dict__.get("BINDINGS", ()):
                    if isinstance(b, Binding) and b.id:
                        ids.add(b.id)
    return ids


def test_the_table_holds_every_bound_id():
    table = [bid for bid, _ in binding_table()]
    assert "sidebar.search" in table and "sidebar.close" in table
    assert len(table) == len(set(table))
    assert every_bound_id() <= set(table), every_bound_id() - set(table)


async def test_settings_shows_the_sidebar_keys(tmp_path):
    app = make_app(tmp_path, ScriptedModel(["hi"]))
    async with app.run_test(size=(120, 60)) as pilot:
        await settle(pilot)
        app.action_open("settings")
        await pilot.pause()
        table = app.screen.query_one("#keymap", DataTable)
        rows = {str(table.get_row_at(i)[0]): str(table.get_row_at(i)[1]) for i in range(table.row_count)}
        assert rows["sidebar.search"] == "slash" and rows["sidebar.close"] == "escape"


async def test_a_remapped_search_key_searches_and_help_says_it(tmp_path):
    model = ScriptedModel([Reply.call("toy_read"), "Three toys."])
    settings = Settings(language="en", keymap={"sidebar.search": "ctrl+f"})
    app = make_app(tmp_path, model, settings=settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await scenes.run_to_end(pilot, "what is on the shop's home screen")
        await pilot.press("ctrl+b")
        await pilot.pause()
        await pilot.press("ctrl+f")
        await pilot.pause()
        sidebar = app.main_screen.query_one("#sidebar")
        assert sidebar.has_class("-searching") and app.focused.id == "conv-search"
        await pilot.press("escape", "escape")
        await pilot.pause()
        app.action_open("help")
        await pilot.pause()
        text = "\n".join(str(s.render()) for s in app.screen.query(".help-table"))
        assert "^f" in text and "Search titles" in text
