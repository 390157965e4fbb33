"""Text from models, screens and people is shown as text, never as Textual markup.

Before: `[/b]` in an ask_user question crashed the app (MarkupError), and
`[@click=app.quit]x[/]` in it became a live action. Here the same hostile text goes
through every route a run has into a widget — the goal the user types (the chat line
and the conversation's title in the sidebar), a screen the toy app shows (a source
and its dialog), a tapped label (a timeline step and its result), an ask_user question
and its options, the answer the user types back, the model's final answer — and the
app must still be running, show the characters literally, carry no click action the
text asked for, and hold no terminal control (`ESC [ 2 J` would clear the screen).
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Button, Input, OptionList, Static

from mika.model.testing import Reply, ScriptedModel
from mika_tui.screens.dialogs import SourceDialog
from mika_tui.widgets.cards import QuestionCard
from mika_tui.widgets.sidebar import ConversationList
from mika_tui.widgets.timeline import Timeline
from tests.tui import scenes
from tests.tui.conftest import make_app, settle, until

SIZE = (140, 45)
HOSTILE = "Pay [/b] now [@click=app.quit]x[/] [bold red]red\x1b[2J [$accent]v[/] \x1b]0;title\x07end"
SHOWN = "Pay [/b] now [@click=app.quit]x[/] [bold red]red [$accent]v[/] end"


def shown(widget: Static) -> Content:
    visual = widget.render()
    assert isinstance(visual, Content), type(visual)
    return visual


def assert_literal(content: Content, expected: str = SHOWN) -> None:
    assert expected in content.plain, content.plain
    assert "\x1b" not in content.plain and "\x07" not in content.plain
    # No span the text asked for: no click to quit, no bold/red/$accent styling taken from it.
    asked = [s for s in content.spans if any(w in str(s.style) for w in ("quit", "red", "$accent"))]
    assert not asked, content.spans


def hostile_model() -> ScriptedModel:
    return ScriptedModel(
        [
            Reply.call("toy_open", page=HOSTILE),
            Reply.call("toy_tap", label=HOSTILE),
            Reply.call("toy_read"),
            Reply.call("ask_user", question=HOSTILE, options=[HOSTILE, "no"]),
            Reply.call("toy_tap", label="OK"),  # the answer is acted on, so the next reply is the answer
            HOSTILE,
        ]
    )


async def test_hostile_text_on_every_route_is_shown_literally(tmp_path):
    app = make_app(tmp_path, hostile_model())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        prompt = app.screen.query_one("#prompt", Input)
        prompt.focus()
        prompt.value = HOSTILE
        await pilot.press("enter")
        await until(lambda: scenes.view(pilot) is not None and scenes.view(pilot).card is not None)
        await until(lambda: len(app.screen.query(QuestionCard)) > 0)
        await settle(pilot)

        # The question card: the text asked, the option buttons, and a click on it.
        card = app.screen.query_one(QuestionCard)
        question = [w for w in card.query(Static) if not isinstance(w, Button) and SHOWN in shown(w).plain]
        assert question, [shown(w).plain for w in card.query(Static) if not isinstance(w, Button)]
        assert_literal(shown(question[0]))
        option = card.query_one("#option-0", Button)
        assert SHOWN in str(option.label) and "\x1b" not in str(option.label)
        await pilot.click(question[0])
        await pilot.pause()
        assert app.is_running and app.return_code is None

        # The user answers with the same text.
        free = card.query_one("#free-answer", Input)
        free.focus()
        free.value = HOSTILE
        await pilot.press("enter")
        await until(lambda: not scenes.view(pilot).running)
        await until(lambda: len(app.main_screen.query(".summary")) > 0)
        await settle(pilot)
        assert app.is_running

        # The chat: the user's line shows the goal as typed, controls dropped.
        user_line = app.main_screen.query_one(".user", Static)
        assert_literal(shown(user_line))

        # The timeline: the tapped label is the step's target; no control in any row it draws.
        timeline = app.main_screen.query_one(Timeline)
        tap = next(s for s in timeline.steps if s.name == "toy_tap")
        assert tap.target == SHOWN
        for y in range(len(timeline._rows)):
            assert "\x1b" not in "".join(seg.text for seg in timeline.render_line(y))
        asked = next(s for s in timeline.steps if s.name == "ask_user")
        assert asked.text == f"The user answered: {SHOWN}"  # the user's answer, as typed, controls dropped
        read = next(s for s in timeline.steps if s.name == "toy_read")
        assert SHOWN in read.text and "\x1b" not in read.text  # the screen's text in a result

        # The model's answer, in the chat's Markdown: the characters as written, no controls.
        from textual.widgets import Markdown

        answer = app.main_screen.query(Markdown).last()
        assert SHOWN in answer.source and "\x1b" not in answer.source

        # The sources line names a screen observation; its dialog shows the screen's text as text.
        view = scenes.view(pilot)
        assert view.sources, "the answer rests on the screen it read"
        sources = app.main_screen.query_one(".sources", Static)
        assert "quit" not in str(shown(sources).spans)
        app.main_screen.action_open_source(view.run_id, 0)
        await until(lambda: isinstance(app.screen, SourceDialog))
        await settle(pilot)
        bodies = [shown(w) for w in app.screen.query(Static) if SHOWN[:20] in shown(w).plain]
        assert bodies
        assert_literal(bodies[-1])
        assert "<untrusted" not in bodies[-1].plain  # the fence is for the model, not for a person
        await pilot.press("escape")
        await pilot.pause()

        # The conversation's title in the sidebar.
        center = app.center
        center.conversations.rename(app.main_screen.conversation_id, HOSTILE)
        app.main_screen._refresh_sidebar()
        await pilot.pause()
        options = app.main_screen.query_one(ConversationList).query_one(OptionList)
        prompts = [options.get_option_at_index(i).prompt for i in range(options.option_count)]
        titled = [p for p in prompts if SHOWN[:30] in str(p)]
        assert titled, prompts
        assert isinstance(titled[0], Content) and not titled[0].spans and "\x1b" not in titled[0].plain
        assert app.is_running and app.return_code is None


async def test_a_question_with_markup_alone_does_not_crash(tmp_path):
    """The reported crash: `[/b]` as the whole question, and a bare click action."""
    model = ScriptedModel([Reply.call("ask_user", question="[/b]", options=["[@click=app.quit]x[/]"]), "ok"])
    app = make_app(tmp_path, model)
    async with app.run_test(size=SIZE) as pilot:
        await scenes.run_to_card(pilot, "ask me", "question")
        card = app.screen.query_one(QuestionCard)
        assert any(shown(w).plain == "[/b]" for w in card.query(Static) if not isinstance(w, Button))
        button = card.query_one("#option-0", Button)
        assert str(button.label) == "[@click=app.quit]x[/]"
        await pilot.click(button)
        await until(lambda: not scenes.view(pilot).running)
        assert app.is_running and app.return_code is None


def test_a_desktop_notification_carries_text_not_options_or_markup():
    """notify-send parses options anywhere before `--` and servers read the body as markup."""
    from mika_tui.deps import notify_argv

    argv = notify_argv("/usr/bin/notify-send", "Mika\x1b]0;t\x07", "-u critical <a href='http://evil'>x</a> &\x1b[2J")
    assert argv[:4] == ["/usr/bin/notify-send", "-a", "Mika", "--"]
    assert argv[4] == "Mika"
    assert argv[5] == "-u critical &lt;a href='http://evil'&gt;x&lt;/a&gt; &amp;"
