"""The bell and desktop notification when a run needs the user (issue 17, mika_tui/notify.py).

The desktop side is a real subprocess: a fake `notify-send` script put first on PATH that
records the argv it was started with (this machine has no notification server). The
terminal side is what the app writes to its driver: Textual's headless test driver
throws bytes away, so each test captures its `write` — the one boundary we neither own
nor can run here without a real terminal.

The user "leaves" the terminal the way the terminal says so: an AppBlur event, which
Textual's driver posts when the terminal reports focus-out (mode 1004). Any key they press
afterwards brings the app's focus back (Textual does that), so the model is held at a gate
after the task is typed, the app is blurred, and only then does the card come up.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest
from textual import events

from mika.config.errors import ConfigError
from mika.config.settings import Settings, load_settings
from mika.model.testing import Reply, ScriptedModel
from mika_tui.notify import BEL, Attention, osc_notification
from tests.tui import scenes
from tests.tui.conftest import make_app, settle, until

SIZE = (120, 40)
# A question a page or the model could have written, made to look like a system message
# and to break out of a notification's markup or a terminal escape.
HOSTILE = "\x1b]9;Your bank: call +1 555 0100 now\x07 -u critical <a href='http://evil'>verify</a>; rm -rf"


class Gated:
    """The scripted model, held before its first reply until the test opens the gate."""

    provider, name, context_window, supports_images = "test", "gated", 128_000, True

    def __init__(self, inner: ScriptedModel) -> None:
        self.inner = inner
        self.gate = asyncio.Event()
        self.waiting = False

    def stream(self, request):
        async def run():
            self.waiting = True
            await self.gate.wait()
            async for event in self.inner.stream(request):
                yield event

        return run()


def question_model(question: str = "Which size of beans?") -> Gated:
    return Gated(ScriptedModel([Reply.call("ask_user", question=question, options=["250 g", "500 g"]), "ok"]))


def approval_model() -> Gated:
    return Gated(scenes.approval_model())


def takeover_model() -> Gated:
    return Gated(ScriptedModel([Reply.call("hand_to_user", reason="login", message=HOSTILE), "ok"]))


@pytest.fixture
def fake_notify_send(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A `notify-send` on PATH that writes its argv (and pid) as JSON to a log, then
    behaves as `behaviour` says: "ok", "fail" (exit 1) or "hang" (never returns)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "notify-send.log"
    script = bin_dir / "notify-send"
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys, time\n"
        f"log = {str(log)!r}\n"
        "with open(log, 'a') as f:\n"
        "    f.write(json.dumps({'argv': sys.argv[1:], 'pid': os.getpid()}) + '\\n')\n"
        "behaviour = os.environ.get('FAKE_NOTIFY', 'ok')\n"
        "if behaviour == 'hang':\n"
        "    time.sleep(600)  # the fault under test: a notification server that never answers\n"
        "sys.exit(1 if behaviour == 'fail' else 0)\n"
    )
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    # A local desktop session, as notify-send needs one.
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus")
    for name in ("SSH_CONNECTION", "SSH_TTY", "TMUX", "ConEmuPID", "VTE_VERSION", "TERM_PROGRAM"):
        monkeypatch.delenv(name, raising=False)

    def calls() -> list[dict]:
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]

    return calls


@pytest.fixture
def no_desktop(monkeypatch: pytest.MonkeyPatch):
    """A terminal without a desktop session (an SSH login): only the terminal can notify."""
    for name in ("DBUS_SESSION_BUS_ADDRESS", "WAYLAND_DISPLAY", "DISPLAY", "TMUX", "ConEmuPID", "VTE_VERSION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("TERM_PROGRAM", raising=False)
    monkeypatch.setenv("SSH_CONNECTION", "192.0.2.1 50000 192.0.2.2 22")
    monkeypatch.setenv("TERM", "xterm-256color")


def capture_terminal(app) -> list[str]:
    written: list[str] = []
    app._driver.write = written.append  # the headless driver drops bytes; see the module doc
    return written


async def card_while_away(pilot, model: Gated, task: str, kind: str, *, away: bool = True) -> None:
    """Type the task (keys), leave the terminal (AppBlur), then let the run reach its card."""
    await settle(pilot)
    await scenes.type_task(pilot, task)
    await until(lambda: model.waiting)
    if away:
        pilot.app.post_message(events.AppBlur())
        await until(lambda: not pilot.app.app_focus)
    model.gate.set()
    view = scenes.view
    await until(lambda: view(pilot) is not None and view(pilot).card is not None and view(pilot).card.kind == kind)
    await settle(pilot)


async def wait_sent(app):
    await until(lambda: bool(app.attention.history))
    sent = app.attention.history[-1]
    await asyncio.wait_for(asyncio.to_thread(sent.done.wait, 10), 12)
    return sent


class TestDesktopNotification:
    async def test_question_while_away_rings_and_runs_notify_send_with_our_words(self, tmp_path, fake_notify_send):
        model = question_model(HOSTILE)
        app = make_app(tmp_path, model)
        async with app.run_test(size=SIZE) as pilot:
            written = capture_terminal(app)
            await card_while_away(pilot, model, "buy coffee beans", "question")
            sent = await wait_sent(app)
            assert sent.ways == ["bell", "notify-send"] and sent.desktop_result == "sent"
            assert BEL in written
            calls = fake_notify_send()
            assert len(calls) == 1
            assert calls[0]["argv"] == ["-a", "Mika", "--", "Mika", "Mika needs you: answer a question"]
            # Not a byte of the question reaches the notification or the terminal's raw stream.
            everything = json.dumps(calls) + "".join(written)
            for piece in ("bank", "555", "evil", "rm -rf", "critical", "\x1b]9"):
                assert piece not in everything
            # The card itself is still on screen for the user to answer.
            assert app.screen.query(".card")

    async def test_approval_in_chinese_names_a_payment(self, tmp_path, fake_notify_send):
        model = approval_model()
        app = make_app(tmp_path, model, language="zh")
        async with app.run_test(size=SIZE) as pilot:
            capture_terminal(app)
            await card_while_away(pilot, model, "买咖啡豆", "approval")
            await wait_sent(app)
            (call,) = fake_notify_send()
            assert call["argv"][-1] == "Mika 需要你：确认一笔付款"
            assert "23.50" not in json.dumps(call, ensure_ascii=False)  # the amount is the screen's, not ours

    async def test_takeover_while_away_names_the_takeover_not_the_models_message(self, tmp_path, fake_notify_send):
        model = takeover_model()
        app = make_app(tmp_path, model)
        async with app.run_test(size=SIZE) as pilot:
            capture_terminal(app)
            await card_while_away(pilot, model, "log in to the shop", "takeover")
            await wait_sent(app)
            (call,) = fake_notify_send()
            assert call["argv"][-1] == "Mika needs you: take over the phone"
            assert "bank" not in json.dumps(call) and "evil" not in json.dumps(call)
            assert app.app_focus is False  # nothing but the card's arrival happened; the user is still away

    async def test_a_hanging_notify_send_never_blocks_the_ui_and_is_killed(
        self, tmp_path, fake_notify_send, monkeypatch
    ):
        monkeypatch.setenv("FAKE_NOTIFY", "hang")
        model = question_model()
        app = make_app(tmp_path, model)
        async with app.run_test(size=SIZE) as pilot:
            capture_terminal(app)
            # Long enough that the answer below surely comes before it ends, even on a busy
            # machine: the claim is that the UI answered while notify-send still hung.
            app.attention.timeout_s = 5.0
            await card_while_away(pilot, model, "buy coffee beans", "question")
            await until(lambda: bool(fake_notify_send()))  # the fake is up and hanging
            sent = app.attention.history[-1]
            # The UI answers while notify-send hangs: the user picks an option and the run ends.
            await pilot.click("#option-0")
            await until(lambda: scenes.view(pilot).status == "answered")
            assert not sent.done.is_set(), (
                "the timeout ended before the answer: the UI was not shown answering during the hang"
            )
            await asyncio.wait_for(asyncio.to_thread(sent.done.wait, 10), 12)
            assert sent.desktop_result == "timed out"
            pid = fake_notify_send()[0]["pid"]
            with pytest.raises(ProcessLookupError):
                os.kill(pid, 0)  # killed and reaped when the timeout ended

    async def test_a_failing_notify_send_is_recorded_and_the_bell_still_rang(
        self, tmp_path, fake_notify_send, monkeypatch
    ):
        monkeypatch.setenv("FAKE_NOTIFY", "fail")
        model = question_model()
        app = make_app(tmp_path, model)
        async with app.run_test(size=SIZE) as pilot:
            written = capture_terminal(app)
            await card_while_away(pilot, model, "buy coffee beans", "question")
            sent = await wait_sent(app)
            assert sent.desktop_result == "failed (exit 1)"
            assert BEL in written


class TestTerminalNotification:
    async def test_over_ssh_the_terminal_gets_osc_9(self, tmp_path, fake_notify_send, no_desktop):
        model = question_model(HOSTILE)
        app = make_app(tmp_path, model)
        async with app.run_test(size=SIZE) as pilot:
            written = capture_terminal(app)
            await card_while_away(pilot, model, "buy coffee beans", "question")
            sent = await wait_sent(app)
            assert sent.ways == ["bell", "osc"]
            assert written == [BEL, "\x1b]9;Mika needs you: answer a question\x07"]
            assert fake_notify_send() == []  # the SSH host's desktop is not the user's

    async def test_foot_gets_osc_777_with_title_and_body(self, tmp_path, no_desktop, monkeypatch):
        monkeypatch.setenv("TERM", "foot")
        model = approval_model()
        app = make_app(tmp_path, model)
        async with app.run_test(size=SIZE) as pilot:
            written = capture_terminal(app)
            await card_while_away(pilot, model, "buy coffee beans", "approval")
            await wait_sent(app)
            assert written == [BEL, "\x1b]777;notify;Mika;Mika needs you: approve a payment\x07"]

    def test_inside_tmux_the_escape_is_wrapped_for_passthrough(self):
        seq = osc_notification("Mika", "Mika needs you: answer a question", {"TERM": "screen", "TMUX": "/tmp/t,1,0"})
        assert seq == "\x1bPtmux;\x1b\x1b]9;Mika needs you: answer a question\x07\x1b\\"

    @pytest.mark.parametrize("term", ["linux", "dumb", ""])
    def test_a_console_that_would_print_the_escape_gets_none(self, term):
        assert osc_notification("Mika", "x", {"TERM": term}) == ""

    def test_conemu_gets_no_osc_9(self):
        assert osc_notification("Mika", "x", {"ConEmuPID": "42"}) == ""

    def test_a_translation_cannot_end_the_escape_early(self):
        seq = osc_notification("Mi;ka\x1b]0;x\x07", "body\x1b\\;more\x9c", {"TERM": "foot"})
        assert seq == "\x1b]777;notify;Mika]0x;body\\more\x07"
        assert seq.count("\x1b") == 1 and seq.count("\x07") == 1


class TestNothing:
    async def test_focused_app_means_nothing(self, tmp_path, fake_notify_send):
        model = question_model()
        app = make_app(tmp_path, model)
        async with app.run_test(size=SIZE) as pilot:
            written = capture_terminal(app)
            await card_while_away(pilot, model, "buy coffee beans", "question", away=False)
            assert app.app_focus
            assert app.attention.history == []
            assert written == [] and fake_notify_send() == []
            assert app.main_screen.query_one("#status").has_class("-needs-you")  # the header still says it

    async def test_coming_back_by_a_key_means_nothing_for_the_next_card(self, tmp_path, fake_notify_send):
        # Away for the first question (notified), back with a key, a second question: nothing more.
        inner = ScriptedModel(
            [
                Reply.call("ask_user", question="Which size?", options=["S", "M"]),
                Reply.call("ask_user", question="Which colour?", options=["red", "blue"]),
                "ok",
            ]
        )
        model = Gated(inner)
        app = make_app(tmp_path, model)
        async with app.run_test(size=SIZE) as pilot:
            capture_terminal(app)
            await card_while_away(pilot, model, "buy a shirt", "question")
            await wait_sent(app)
            await pilot.press("x")  # a key: the user is back (Textual sets app_focus again)
            assert app.app_focus
            await pilot.click("#option-0")
            await until(lambda: scenes.view(pilot).card is not None and "colour" in scenes.view(pilot).card.text)
            await settle(pilot)
            assert app.app_focus
            assert len(app.attention.history) == 1 and len(fake_notify_send()) == 1

    async def test_off_means_nothing(self, tmp_path, fake_notify_send):
        model = question_model()
        app = make_app(tmp_path, model, settings=Settings(language="en", notify="off"))
        async with app.run_test(size=SIZE) as pilot:
            written = capture_terminal(app)
            await card_while_away(pilot, model, "buy coffee beans", "question")
            assert app.attention.history == []
            assert written == [] and fake_notify_send() == []

    async def test_bell_mode_rings_only(self, tmp_path, fake_notify_send):
        model = question_model()
        app = make_app(tmp_path, model, settings=Settings(language="en", notify="bell"))
        async with app.run_test(size=SIZE) as pilot:
            written = capture_terminal(app)
            await card_while_away(pilot, model, "buy coffee beans", "question")
            sent = await wait_sent(app)
            assert sent.ways == ["bell"] and written == [BEL] and fake_notify_send() == []


class TestConfig:
    def _load(self, tmp_path: Path, body: str) -> Settings:
        path = tmp_path / "config.toml"
        path.write_text(body)
        return load_settings(path, warn=None)

    @pytest.mark.parametrize("mode", ["auto", "bell", "off"])
    def test_each_mode_loads(self, tmp_path, mode):
        settings = self._load(tmp_path, f'[ui]\nnotify = "{mode}"\n')
        assert settings.notify == mode and not settings.warnings

    def test_default_is_auto(self, tmp_path):
        assert self._load(tmp_path, "[ui]\n").notify == "auto"

    @pytest.mark.parametrize("value", ['"loud"', '"Auto"', "true", "1", '""'])
    def test_a_bad_value_names_the_key(self, tmp_path, value):
        with pytest.raises(ConfigError) as err:
            self._load(tmp_path, f"[ui]\nnotify = {value}\n")
        assert "ui.notify" in str(err.value)

    def test_the_example_config_documents_it(self):
        example = Path(__file__).resolve().parents[2] / "config.example.toml"
        assert load_settings(example, warn=None).notify == "auto"
        assert 'notify = "auto"' in example.read_text()

    def test_attention_refuses_an_unknown_mode(self):
        with pytest.raises(ValueError, match=r"ui\.notify"):
            Attention("loud", lambda key, **_: key, lambda data: None)
