"""The TUI's chat shows what a run remembered (the MemoryRemembered event), with how to undo it."""

from __future__ import annotations

from textual.widgets import Static

from mika.model.testing import ScriptedModel
from mika.record import events as ev
from mika_tui.screens.main import RunEventPosted
from tests.tui.conftest import make_app, settle, until


async def test_the_chat_shows_remembered_items(tmp_path) -> None:
    app = make_app(tmp_path, ScriptedModel(["hi"]))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        event = ev.MemoryRemembered(
            run_id="r-mem",
            conversation_id=screen.conversation_id,
            items=(
                {"id": "m-1a2b3c", "kind": "fact", "text": "always takes the 7:30 train", "status": "active"},
                {"id": "m-4d5e6f", "kind": "procedure", "text": "book trains in 12306", "status": "pending"},
            ),
        )
        screen.post_message(RunEventPosted(event))

        def notices() -> str:
            return "\n".join(str(w.render()) for w in screen.query(Static).filter(".notice"))

        await until(lambda: "m-4d5e6f" in notices())
        text = notices()
        assert "always takes the 7:30 train" in text and "mika memory forget m-1a2b3c" in text
        assert "mika memory approve m-4d5e6f" in text
