"""A step said in words: "Scroll down · list moved", "Type 'hello' · read back ok".

The TUI's timeline, step detail and runs screen and the text view of `mika runs show`
read a step through these functions instead of the tool's raw name and arguments (a
cut-off `{"direction": "do…` tells a person nothing). It lives in the core, below both
faces (the core never imports the TUI): a language code and anything shaped like a
`StepFacts` are all it needs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlsplit

from mika.config.language import ui_language
from mika.terminal_text import one_line


class StepLike(Protocol):
    """What the words are made of: the TUI's folded Step and `StepFacts` both fit."""

    name: str
    target: str
    effect: str
    ok: bool | None
    code: str
    text: str
    arguments: dict[str, Any]
    capability: str

    @property
    def live(self) -> bool: ...


@dataclass
class StepFacts:
    """One step folded from its recorded tool_call and tool_result events."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    capability: str = ""
    target: str = ""
    effect: str = ""
    ok: bool | None = None  # None: no result (yet, or never: a killed run)
    code: str = ""
    text: str = ""

    @property
    def live(self) -> bool:
        return self.ok is None


TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "sw_tap": "Tap {target}",
        "sw_long_press": "Long-press {target}",
        "sw_type": "Type {target}",
        "sw_clear": "Clear {target}",
        "sw_scroll": "Scroll {direction}",
        "sw_swipe": "Swipe {direction}",
        "sw_gesture": "Gesture {target}",
        "sw_back": "Back",
        "sw_press_key": "Press {name}",
        "sw_launch": "Open app {target}",
        "sw_open": "Open {target}",
        "sw_read_screen": "Read the screen {target}",
        "sw_read_page": "Read the page {target}",
        "sw_screenshot": "Screenshot",
        "sw_wait": "Wait for {target}",
        "sw_wait_for": "Wait {seconds}",
        "sw_wait_plain": "Wait",
        "sw_find": "Find {target}",
        "sw_collect": "Collect {target}",
        "sw_ask": "Ask you: {target}",
        "sw_confirm": "Ask your approval: {target}",
        "sw_hand_over": "Hand over: {target}",
        "sw_dir_up": "up",
        "sw_dir_down": "down",
        "sw_dir_left": "left",
        "sw_dir_right": "right",
        "sr_running": "running…",
        "sr_no_result": "no result recorded",
        "sr_asked_you": "asked you",
        "sr_stopped": "stopped",
        "sr_failed": "failed ({code})",
        "sr_read_back": "read back ok",
        "sr_answered": "answered",
        "sr_page_changed": "page changed",
        "sr_screen_changed": "screen changed",
        "sr_no_change": "nothing changed",
        "sr_list_moved": "list moved",
        "sr_changed": "changed in place",
        "sr_done": "done",
    },
    "zh": {
        "sw_tap": "点按 {target}",
        "sw_long_press": "长按 {target}",
        "sw_type": "输入 {target}",
        "sw_clear": "清空 {target}",
        "sw_scroll": "向{direction}滚动",
        "sw_swipe": "向{direction}滑动",
        "sw_gesture": "手势 {target}",
        "sw_back": "返回",
        "sw_press_key": "按键 {name}",
        "sw_launch": "打开应用 {target}",
        "sw_open": "打开 {target}",
        "sw_read_screen": "读取屏幕 {target}",
        "sw_read_page": "读取页面 {target}",
        "sw_screenshot": "截图",
        "sw_wait": "等待 {target}",
        "sw_wait_for": "等待 {seconds}",
        "sw_wait_plain": "等待",
        "sw_find": "查找 {target}",
        "sw_collect": "收集 {target}",
        "sw_ask": "问你：{target}",
        "sw_confirm": "请你批准：{target}",
        "sw_hand_over": "交给你：{target}",
        "sw_dir_up": "上",
        "sw_dir_down": "下",
        "sw_dir_left": "左",
        "sw_dir_right": "右",
        "sr_running": "进行中…",
        "sr_no_result": "没有记录结果",
        "sr_asked_you": "已问你",
        "sr_stopped": "已停止",
        "sr_failed": "失败（{code}）",
        "sr_read_back": "回读一致",
        "sr_answered": "已回答",
        "sr_page_changed": "页面已变",
        "sr_screen_changed": "屏幕已变",
        "sr_no_change": "没有变化",
        "sr_list_moved": "列表已移动",
        "sr_changed": "原地变化",
        "sr_done": "完成",
    },
}


class _Tr:
    def __init__(self, lang: str | None) -> None:
        lang = lang or ui_language()
        self.lang = lang if lang in TEXTS else "en"

    def __call__(self, key: str, **fields: object) -> str:
        text = TEXTS[self.lang].get(key) or TEXTS["en"][key]
        return text.format(**fields) if fields else text


# Tool families the capability prefix is dropped from: "phone_tap" and "web_tap" read the same.
_PREFIXES = ("phone_", "web_", "toy_")

# What the verb of a step is, by the tool's name without its capability prefix.
_VERBS = {
    "tap": "sw_tap",
    "long_press": "sw_long_press",
    "type_text": "sw_type",
    "clear_text": "sw_clear",
    "scroll": "sw_scroll",
    "swipe": "sw_swipe",
    "gesture": "sw_gesture",
    "back": "sw_back",
    "press_key": "sw_press_key",
    "launch_app": "sw_launch",
    "open_link": "sw_open",
    "navigate": "sw_open",
    "open": "sw_open",
    "list_elements": "sw_read_screen",
    "observe": "sw_read_screen",
    "describe": "sw_read_screen",
    "read": "sw_read_screen",
    "read_page": "sw_read_page",
    "screenshot": "sw_screenshot",
    "wait": "sw_wait",
    "wait_for": "sw_wait",
    "find": "sw_find",
    "find_visually": "sw_find",
    "collect": "sw_collect",
    "extract": "sw_collect",
    "ask_user": "sw_ask",
    "request_confirmation": "sw_confirm",
    "hand_to_user": "sw_hand_over",
}

# The quoted name in a tap's result: 'Tapped button "Buy now".' → Buy now.
_QUOTED = re.compile(r'"([^"\n]{1,60})"')
_MAX_TARGET = 28


def short_name(step: StepLike) -> str:
    for prefix in _PREFIXES:
        if step.name.startswith(prefix):
            return step.name[len(prefix) :]
    return step.name


def _cut(text: str, room: int = _MAX_TARGET) -> str:
    text = one_line(text)
    return text if len(text) <= room else text[: room - 1] + "…"


def _short_url(url: str) -> str:
    """`https://www.example.com/shop/cart?x=1` → `example.com/…`: the site, and that there is more."""
    parts = urlsplit(url if "://" in url else "https://" + url)
    host = (parts.hostname or url).removeprefix("www.")
    rest = (parts.path or "").strip("/") or parts.query
    return f"{host}/…" if rest else host


def _target(step: StepLike, args: dict[str, Any]) -> str:
    """What a person recognises the step by, quoted when it is words."""
    for key in ("label", "text", "query", "question", "what", "message", "app", "package", "page"):
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return f"'{_cut(value)}'" if key in ("label", "text", "query", "page") else _cut(value)
    url = args.get("url")
    if isinstance(url, str) and url.strip():
        return _short_url(url)
    # A tap on a listing number: its result ('Tapped button "Buy now".') names what was tapped.
    taps = short_name(step) in ("tap", "long_press")
    found = _QUOTED.search(step.text.split("\n", 1)[0]) if taps and step.text else None
    if found:
        return f"'{_cut(found.group(1))}'"
    if isinstance(args.get("element"), (int, str)) and str(args["element"]).strip():
        return f"#{args['element']}"
    if isinstance(args.get("x"), (int, float)) and isinstance(args.get("y"), (int, float)):
        return f"@{args['x']:g},{args['y']:g}"
    return _cut(step.target) if step.target and not step.target.startswith("{") else ""


def step_action(step: StepLike, lang: str | None = None) -> str:
    """The step's verb and object: "Tap 'Buy now'", "Scroll down", "Open example.com/…"."""
    tr = _Tr(lang)
    args = step.arguments or {}
    short = short_name(step)
    key = _VERBS.get(short)
    if key in ("sw_scroll", "sw_swipe"):
        direction = str(args.get("direction") or "down")
        return tr(
            key, direction=tr("sw_dir_" + direction) if direction in ("up", "down", "left", "right") else direction
        )
    if key == "sw_press_key":
        return tr(key, name=_cut(str(args.get("key") or "")))
    if key == "sw_wait" and not any(isinstance(args.get(k), str) and args.get(k) for k in ("text", "label", "query")):
        seconds = args.get("seconds")
        return tr("sw_wait_for", seconds=f"{seconds:g}s") if isinstance(seconds, (int, float)) else tr("sw_wait_plain")
    target = _target(step, args)
    if key is None:
        words = short.replace("_", " ").strip().capitalize() or step.name
        return f"{words} {target}".rstrip()
    return tr(key, target=target).rstrip()


def step_result(step: StepLike, lang: str | None = None) -> str:
    """What came of it: "list moved", "read back ok", "page changed", "asked you"."""
    tr = _Tr(lang)
    if step.live:
        return tr("sr_running")
    code = step.code
    short = short_name(step)
    web = step.capability == "web" or step.name.startswith("web_")
    if code == "confirmation_required":
        return tr("sr_asked_you")
    if code == "stopped":
        return tr("sr_stopped")
    if step.ok is False:
        return tr("sr_failed", code=_cut(code or "error", 24))
    if short == "type_text" and "read back: matches" in step.text:
        return tr("sr_read_back")
    if short in ("ask_user", "request_confirmation", "hand_to_user"):
        return tr("sr_answered")
    if step.effect == "place_changed":
        return tr("sr_page_changed" if web else "sr_screen_changed")
    if step.effect == "no_effect":
        return tr("sr_no_change")
    if step.effect == "done":
        if short in ("scroll", "swipe"):
            return tr("sr_list_moved")
        return tr("sr_changed")
    return tr("sr_done")


def step_words(step: StepLike, lang: str | None = None) -> str:
    return f"{step_action(step, lang)} · {step_result(step, lang)}"


def unfinished_words(step: StepLike, lang: str | None = None) -> str:
    """A recorded call without a result (the run was killed mid-step): not "running…"."""
    return f"{step_action(step, lang)} · {_Tr(lang)('sr_no_result')}"
