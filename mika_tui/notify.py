"""Telling the user a run needs them while they look at another window.

When a run asks a question, asks for a payment approval or hands the phone over, and the
terminal is in the background (Textual's AppBlur; terminals report it through focus
reporting, mode 1004), the app rings the terminal bell and, in "auto" mode, sends a
desktop notification: `notify-send` where there is a desktop session to show it, else
the terminal's own notification escape (OSC 777 for terminals known to read it, OSC 9
for the rest), so a notification also reaches the user over SSH.

The text is always one of our own fixed sentences ("Mika needs you: approve a payment"),
never what a page, an app or the model wrote: a notification is shown outside the app's
frame, where a crafted question could pass for a system message.

Nothing here blocks the UI: notify-send runs on a daemon thread with a timeout, and a
notification server that hangs is killed when the timeout ends.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from mika.config.settings import NOTIFY as MODES
from mika_tui.deps import notify_argv

# The fixed sentence for each kind of card (mika_tui/i18n.py).
TEXT_KEYS = {"approval": "notify_approval", "question": "notify_question", "takeover": "notify_takeover"}
BEL = "\x07"
NOTIFY_SEND_TIMEOUT_S = 5.0


def _plain(text: str) -> str:
    """Printable text only, and no ';' (OSC 777 separates its fields with it): even our own
    sentences go through this, so a translation can never end the escape early."""
    return "".join(ch for ch in text if ch.isprintable() and ch != ";")


def osc_notification(title: str, body: str, environ: Mapping[str, str]) -> str:
    """The escape that asks this terminal for a desktop notification ("" when it has none
    we trust). Inside tmux it is wrapped for tmux's passthrough (`allow-passthrough on`)."""
    if "ConEmuPID" in environ:
        return ""  # ConEmu reads OSC 9 as its own commands (9;1 sleeps, 9;2 opens a message box)
    term = environ.get("TERM", "")
    if term in ("linux", "dumb", ""):
        return ""  # the Linux console prints an OSC it does not know as text on the screen
    program = environ.get("TERM_PROGRAM", "").lower()
    title, body = _plain(title), _plain(body)
    # OSC 777 (urxvt's notify, foot, VTE terminals, Ghostty, WezTerm) carries title and body;
    # OSC 9 (iTerm2, kitty, WezTerm, Windows Terminal) one line.
    if term.startswith(("rxvt", "foot")) or "VTE_VERSION" in environ or program in ("ghostty", "wezterm"):
        seq = f"\x1b]777;notify;{title};{body}{BEL}"
    else:
        seq = f"\x1b]9;{body}{BEL}"
    if "TMUX" in environ:
        seq = "\x1bPtmux;" + seq.replace("\x1b", "\x1b\x1b") + "\x1b\\"
    return seq


def desktop_session(environ: Mapping[str, str]) -> bool:
    """Whether notify-send would show on the screen the user looks at: a local session
    (D-Bus or a display), not a shell over SSH whose desktop is somebody else's."""
    if "SSH_CONNECTION" in environ or "SSH_TTY" in environ:
        return False
    return any(environ.get(k) for k in ("DBUS_SESSION_BUS_ADDRESS", "WAYLAND_DISPLAY", "DISPLAY"))


@dataclass
class Sent:
    """What one notification did: "bell", "notify-send", "osc" (in that order)."""

    kind: str
    ways: list[str] = field(default_factory=list)
    # notify-send's end, set by its thread: "sent", "failed (exit N)", "timed out", "not started".
    desktop_result: str = ""
    done: threading.Event = field(default_factory=threading.Event)


class Attention:
    """Rings and notifies when a run needs the user and the terminal is in the background.

    `write` puts raw bytes on the terminal (the app's driver). `environ` and `which` are
    the process's own unless a test gives others.
    """

    def __init__(
        self,
        mode: str,
        tr: Callable[..., str],
        write: Callable[[str], None],
        *,
        environ: Mapping[str, str] | None = None,
        which: Callable[[str], str | None] = shutil.which,
        timeout_s: float = NOTIFY_SEND_TIMEOUT_S,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"ui.notify must be one of {', '.join(MODES)}, not {mode!r}")
        self.mode = mode
        self.tr = tr
        self.write = write
        self.environ = os.environ if environ is None else environ
        self.which = which
        self.timeout_s = timeout_s
        self.history: list[Sent] = []

    def needs_you(self, kind: str, *, focused: bool) -> Sent | None:
        """A card of `kind` (approval | question | takeover) just came up. Returns what was
        done, or None when nothing was (off, or the user is looking at the app)."""
        if self.mode == "off" or focused:
            return None
        sent = Sent(kind)
        self.history.append(sent)
        self.write(BEL)
        sent.ways.append("bell")
        if self.mode == "bell":
            sent.done.set()
            return sent
        title = self.tr("app_title")
        body = self.tr(TEXT_KEYS.get(kind, "notify_question"))
        exe = self.which("notify-send") if desktop_session(self.environ) else None
        if exe:
            sent.ways.append("notify-send")
            threading.Thread(
                target=self._notify_send, args=(notify_argv(exe, title, body), sent), daemon=True, name="notify-send"
            ).start()
            return sent
        seq = osc_notification(title, body, self.environ)
        if seq:
            self.write(seq)
            sent.ways.append("osc")
        sent.done.set()
        return sent

    def _notify_send(self, argv: list[str], sent: Sent) -> None:
        try:
            proc = subprocess.run(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=self.timeout_s,
                check=False,
                env=dict(self.environ),
            )
            sent.desktop_result = "sent" if proc.returncode == 0 else f"failed (exit {proc.returncode})"
        except subprocess.TimeoutExpired:
            sent.desktop_result = "timed out"  # subprocess.run killed it; the bell has rung already
        except OSError as exc:
            sent.desktop_result = f"not started ({exc.strerror or exc})"
        finally:
            sent.done.set()
