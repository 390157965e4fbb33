"""A step said in words: "Scroll down · list moved", "Type 'hello' · read back ok".

The timeline, the step detail and the runs screen read a step through these two
functions instead of the tool's raw name and arguments (a cut-off `{"direction": "do…`
tells a person nothing). Kept free of Textual: a `Tr` and a `Step` are all it needs.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from mika.terminal_text import one_line
from mika_tui.i18n import Tr
from mika_tui.run_view import Step

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


def short_name(step: Step) -> str:
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


def _target(step: Step, args: dict[str, Any]) -> str:
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


def step_action(step: Step, tr: Tr) -> str:
    """The step's verb and object: "Tap 'Buy now'", "Scroll down", "Open example.com/…"."""
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


def step_result(step: Step, tr: Tr) -> str:
    """What came of it: "list moved", "read back ok", "page changed", "asked you"."""
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


def step_words(step: Step, tr: Tr) -> str:
    return f"{step_action(step, tr)} · {step_result(step, tr)}"
