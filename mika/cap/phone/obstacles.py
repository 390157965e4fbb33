"""Dialogs and obstacles on a phone screen, as pure logic over a read `Screen`.

`read_dialog` finds the dialog in front (an AlertDialog, a permission prompt, a dialog-only
dump) and its title, message and buttons. `match_button` picks a button only by its exact
text (case, width and spaces ignored), never by guess. `recognise` says whether what is
in front is a splash ad, an update prompt, a rating request, a permission prompt or a
cookie notice, and which single button dismisses it safely; anything else, or more than
one candidate, is reported and left alone (`Obstacle.safe is None`).

Screen text is untrusted: an app may dress up a dialog as the system's permission
prompt, paint a fake "Skip" into its ad, or put "Later" in a message. So a permission
prompt counts only from a permission-controller package, a safe button must be a button
(not text) and unique, and a splash with two "Skip"s is refused.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from mika.action.risk import RiskClass, classify, reads_as_payment
from mika.observe.untrusted import defuse, fence
from mika.uistate import Element, Screen

PERMISSION_CONTROLLERS = frozenset(
    {
        "com.android.permissioncontroller",
        "com.google.android.permissioncontroller",
        "com.android.packageinstaller",  # Android 9 and older ask from here
    }
)
_TITLE_IDS = ("android:id/alertTitle", ":id/permission_message", ":id/alertTitle", ":id/title")
_MESSAGE_IDS = ("android:id/message", ":id/message")


def norm(text: str) -> str:
    """For comparing button texts: NFKC (full-width → ASCII), case-folded, no spaces at all
    (CJK texts are often spaced out as "跳 过"), curly quotes made straight."""
    t = unicodedata.normalize("NFKC", text or "").casefold()
    t = t.replace("\u2019", "'").replace("\u2018", "'")
    return "".join(ch for ch in t if not ch.isspace() and unicodedata.category(ch) not in ("Cf", "Cc"))


@dataclass(frozen=True)
class Dialog:
    package: str
    window: int
    title: str
    message: str
    buttons: tuple[Element, ...]
    texts: tuple[str, ...]  # every text of the dialog that is not a button, in reading order

    @property
    def button_labels(self) -> list[str]:
        return [b.label for b in self.buttons]

    @property
    def all_text(self) -> str:
        return " | ".join([*self.texts, *self.button_labels])

    @property
    def from_permission_controller(self) -> bool:
        return self.package in PERMISSION_CONTROLLERS


class ButtonChoiceError(ValueError):
    """The given text names no button, or several; the message lists the buttons."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


def _is_button(e: Element) -> bool:
    n = e.node
    return bool(e.label) and n.clickable and not n.editable and not n.scrollable


def _dialog_window(screen: Screen) -> int | None:
    """The window of the dialog in front: the topmost dialog window, a permission
    controller's window, or a window holding Android's alert ids."""
    dialogs = [w.index for w in screen.windows if w.kind == "dialog" or w.package in PERMISSION_CONTROLLERS]
    if dialogs:
        return max(dialogs)
    for w in sorted(screen.windows, key=lambda w: -w.index):
        if w.is_bar or w.kind == "keyboard":
            continue
        ids = {n.resource_id for n in _window_nodes(screen, w.index)}
        if "android:id/alertTitle" in ids or ("android:id/button1" in ids and "android:id/message" in ids):
            return w.index
    return None


def _window_nodes(screen: Screen, index: int) -> list:
    for w in screen.tree.windows:
        if w.index == index:
            return list(w.root.walk())
    return []


def read_dialog(screen: Screen) -> Dialog | None:
    """The dialog in front, or None when there is none (or it has no button to press)."""
    index = _dialog_window(screen)
    if index is None:
        return None
    info = screen.window(index)
    buttons = tuple(e for e in screen.elements if e.window == index and _is_button(e))
    if not buttons:
        return None
    button_nodes = {b.node.order for b in buttons}
    title = message = ""
    texts: list[str] = []
    for node in _window_nodes(screen, index):
        if not node.visible_to_user or node.order in button_nodes:
            continue
        value = " ".join((node.safe_text or node.content_desc or "").split())
        if not value:
            continue
        rid = node.resource_id
        if not title and any(rid.endswith(t) for t in _TITLE_IDS):
            title = value
        elif not message and any(rid.endswith(m) for m in _MESSAGE_IDS):
            message = value
        if value not in texts:
            texts.append(value)
    if not title and texts:
        title = texts[0]
    if not message:
        message = " ".join(t for t in texts if t != title)
    return Dialog(info.package if info else "", index, title, message, buttons, tuple(texts))


def match_button(dialog: Dialog, text: str) -> Element:
    """The one button whose text is `text` (case, width and spaces ignored)."""
    want = norm(text)
    # The buttons' texts are the app's: fenced inside Mika's sentence (the message is a head
    # outside the dialog's own fence).
    listed = fence(", ".join(f'"{label}"' for label in dialog.button_labels), {"source": "screen"}, block=False)
    asked = repr(defuse(text))
    if not want:
        raise ButtonChoiceError(f"press is empty; give one of the dialog's buttons: {listed}.", "bad_arguments")
    hits = [b for b in dialog.buttons if norm(b.label) == want]
    if not hits:
        raise ButtonChoiceError(
            f"No button of the dialog reads {asked}; nothing was pressed. Its buttons: {listed}. "
            "Give one of them exactly.",
            "no_such_button",
        )
    if len(hits) > 1:
        raise ButtonChoiceError(
            f"{len(hits)} buttons of the dialog read {asked}, so it is not clear which one; nothing was "
            f"pressed. Its buttons: {listed}. Tap the one you mean by its element number instead.",
            "ambiguous_button",
        )
    return hits[0]


# Buttons that only close a dialog. A press on any other button does what the dialog
# asks ("OK" on "Confirm payment ¥99" pays), so the irreversible check reads the question too.
_DISMISSIVE = frozenset(
    norm(t)
    for t in (
        "Cancel", "No", "No thanks", "Not now", "Later", "Remind me later", "Close", "Don't allow", "Deny",
        "Never ask", "Skip", "Dismiss", "Maybe later",
        "取消", "否", "不", "不用了", "暂不", "以后再说", "下次再说", "稍后", "关闭", "不允许", "拒绝", "跳过", "暂不更新",
    )
)  # fmt: skip


def is_dismissive(label: str) -> bool:
    return norm(label) in _DISMISSIVE


def press_label(dialog: Dialog, button: Element) -> str:
    """What the irreversible check reads for a press: the button, and for any button that
    does more than close the dialog, the dialog's question with it."""
    if is_dismissive(button.label):
        return button.label
    question = " ".join(t for t in (dialog.title, dialog.message if dialog.message != dialog.title else "") if t)
    return f"{button.label} — {question}" if question else button.label


# -- obstacles ---------------------------------------------------------------------------
_SKIP = re.compile(
    r"^(?:(?:skip|跳过)(?:ad|广告)?\s*[:：]?\s*(\d{1,2})?\s*(?:s|秒)?|(\d{1,2})\s*(?:s|秒)?\s*(?:\|\s*)?(?:skip|跳过)(?:ad|广告)?)$",
    re.I,
)
_UPDATE = re.compile(
    r"new version|update available|version .* is (?:ready|available)|update now|is ready, with|"
    r"发现新版本|新版本|版本更新|更新提示|升级提示|立即更新|立即升级",
    re.I,
)
_RATING = re.compile(
    r"\brate us\b|\brate (?:this|the) app\b|enjoying|rating|leave a review|评分|好评|评价一下|给个评价|喜欢.{0,12}吗",
    re.I,
)
_PERMISSION = re.compile(r"^allow .{1,80} to |允许.{1,30}(?:访问|获取|使用|发送|拍摄|录制)", re.I)
_COOKIES = re.compile(r"cookie", re.I)

_LATER = ("Later", "Not now", "Remind me later", "Maybe later", "以后再说", "稍后", "下次再说", "暂不更新", "暂不")
_NOT_NOW = ("Not now", "No thanks", "Later", "Maybe later", "暂不", "以后再说", "下次再说", "不了", "残忍拒绝")
_DENY = ("Don't allow", "Deny", "不允许", "拒绝", "禁止")
_WHILE_USING = (
    "While using the app",
    "Allow only while using the app",
    "仅在使用该应用时允许",
    "使用时允许",
    "仅使用期间允许",
)
_REJECT_COOKIES = ("Reject all", "Reject", "Only necessary", "Necessary only", "Decline", "拒绝", "仅必要")
_DENY_ID = ":id/permission_deny_button"
_DENY_AGAIN_ID = ":id/permission_deny_and_dont_ask_again_button"
_WHILE_USING_ID = ":id/permission_allow_foreground_only_button"

ALLOW_WHILE_USING = "allow_while_using"
DENY = "deny"


@dataclass(frozen=True)
class Obstacle:
    """What is in front and how (or why not) to dismiss it. `kind` is splash_ad, update,
    rating, permission, cookies, or "" when nothing known is in front; `safe` is the one
    button to press, None when there is none to press safely (`why` says why)."""

    kind: str
    safe: Element | None = None
    why: str = ""
    waiting: bool = False  # the safe button is a countdown not tappable yet
    dialog: Dialog | None = None
    seen: str = ""  # a short description of what is in front

    @property
    def recognised(self) -> bool:
        return bool(self.kind)


def _by_words(buttons: tuple[Element, ...], words: tuple[str, ...]) -> list[Element]:
    wanted = {norm(w) for w in words}
    return [b for b in buttons if norm(b.label) in wanted]


def _by_id(buttons: tuple[Element, ...], suffix: str) -> list[Element]:
    return [b for b in buttons if b.node.resource_id.endswith(suffix)]


def _one(kind: str, dialog: Dialog, hits: list[Element], what: str) -> Obstacle:
    seen = _describe(kind, dialog)
    unique = list({h.node.order: h for h in hits}.values())
    if len(unique) == 1:
        return Obstacle(kind, unique[0], dialog=dialog, seen=seen)
    why = f"it has no {what} button" if not unique else f"{len(unique)} buttons could be the {what} one"
    return Obstacle(kind, None, why=why, dialog=dialog, seen=seen)


def _describe(kind: str, dialog: Dialog) -> str:
    buttons = ", ".join(f'"{b}"' for b in dialog.button_labels)
    return f'{kind} dialog from {dialog.package}: "{dialog.title}" with buttons {buttons}'


def _spends(dialog: Dialog) -> bool:
    # A dialog about money is never an obstacle to click away, whatever it also says.
    return any(reads_as_payment(t) for t in dialog.texts) or any(
        classify(b.label, dialog.all_text).risk in (RiskClass.PAY, RiskClass.PAYMENT) for b in dialog.buttons
    )


def recognise_dialog(dialog: Dialog, permission: str = DENY) -> Obstacle:
    text = " ".join(dialog.texts)
    if _spends(dialog):
        return Obstacle("", why="the dialog is about a payment", dialog=dialog, seen=_describe("payment", dialog))
    if dialog.from_permission_controller:
        if permission == ALLOW_WHILE_USING:
            hits = _by_words(dialog.buttons, _WHILE_USING) or _by_id(dialog.buttons, _WHILE_USING_ID)
            return _one("permission", dialog, hits, '"While using the app"')
        hits = (
            _by_words(dialog.buttons, _DENY)
            or _by_id(dialog.buttons, _DENY_ID)
            or _by_id(dialog.buttons, _DENY_AGAIN_ID)  # asked a second time: "Don't allow & don't ask again"
        )
        return _one("permission", dialog, hits, '"Don\'t allow"')
    if _PERMISSION.search(dialog.title) or _PERMISSION.search(text):
        return Obstacle(
            "",
            why=f"it looks like a permission prompt but comes from {dialog.package}, not the system's "
            "permission controller",
            dialog=dialog,
            seen=_describe("permission-like", dialog),
        )
    if _RATING.search(text):
        return _one("rating", dialog, _by_words(dialog.buttons, _NOT_NOW), '"Not now"')
    if _UPDATE.search(text):
        return _one("update", dialog, _by_words(dialog.buttons, _LATER), '"Later"')
    if _COOKIES.search(text):
        return _one("cookies", dialog, _by_words(dialog.buttons, _REJECT_COOKIES), '"Reject all"')
    return Obstacle("", why="it is no dialog this tool knows", dialog=dialog, seen=_describe("unknown", dialog))


def _skip_elements(screen: Screen) -> list[Element]:
    return [e for e in screen.elements if e.label and _SKIP.match(e.label.strip())]


def recognise(screen: Screen, permission: str = DENY) -> Obstacle:
    """What is in front of `screen` and its safe button (see the module doc)."""
    dialog = read_dialog(screen)
    if dialog is not None:
        return recognise_dialog(dialog, permission)
    skips = _skip_elements(screen)
    if not skips:
        return Obstacle("", why="nothing known is in front")
    labels = ", ".join(f'"{e.label}"' for e in skips)
    if len(skips) > 1:
        return Obstacle(
            "splash_ad",
            why=f"there are {len(skips)} skip buttons ({labels}); one may be part of the ad",
            seen=f"splash ad with {labels}",
        )
    skip = skips[0]
    if not skip.node.clickable and not any(
        e.node.clickable and e.bounds.contains(*skip.centre) and e.bounds.area < 0.2 * screen.frame.area
        for e in screen.elements
    ):
        return Obstacle("splash_ad", why=f"{labels} is text, not a button", seen=f"splash ad with {labels}")
    waiting = not skip.node.enabled
    return Obstacle("splash_ad", skip, waiting=waiting, seen=f"splash ad with {labels}")


def still_safe(obstacle: Obstacle, screen_text: str) -> bool:
    """The safe button is no payment, send or delete by the same check every action gets."""
    if obstacle.safe is None:
        return False
    return classify(obstacle.safe.label, screen_text).risk is RiskClass.NONE
