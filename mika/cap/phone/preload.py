"""Does this run obviously need the phone? Then its tools are offered from the first request.

The phone group folds until first use (seed §4); that costs one break of the cached prompt
prefix at request 2, where the group unfolds and the tool list before the history
changes. When the task's own words name an app the knowledge catalog knows ("微信",
"Clock") or a phone action ("open", "tap", "打开", "闹钟"), the group is opened from the
start (`Capability.preload`), so request 2 reuses request 1 whole.

A wrong preload costs more than a missed one (the full phone tool text in every request
of a run that never touches the phone, against one cache break), so the words are the
plain ones that only make sense on a phone, and a site (kind "site") is not an app. Left
out on purpose: "call" ("what do you call…"), "install"/"安装" (a computer's software),
"应用" (inside "应用题", a word problem).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mika.knowledge.catalog import mention_spans

if TYPE_CHECKING:
    from mika.knowledge.catalog import KnowledgeCatalog

# Latin words match at word edges, Chinese ones as substrings (mention_spans).
PHONE_ACTIONS: tuple[str, ...] = (
    # English
    "open",
    "launch",
    "tap",
    "click",
    "swipe",
    "scroll",
    "alarm",
    "alarms",
    "timer",
    "dial",
    "screenshot",
    "bluetooth",
    "wifi",
    "wi-fi",
    "phone",
    "app",
    "apps",
    # Chinese
    "打开",
    "启动",
    "点击",
    "点一下",
    "点开",
    "滑动",
    "上滑",
    "下滑",
    "闹钟",
    "计时器",
    "倒计时",
    "打电话",
    "拨打",
    "发消息",
    "发短信",
    "截图",
    "截屏",
    "蓝牙",
    "手机",
    "扫码",
)


def phone_reason(goal: str, knowledge: KnowledgeCatalog | None = None) -> str:
    """Why the task obviously needs the phone ('app "Clock"', 'action "打开"'), or "" if it doesn't."""
    if knowledge is not None:
        for entry in knowledge.match_text(goal):
            if entry.kind == "app":
                return f'app "{entry.name}"'
    for word in PHONE_ACTIONS:
        if mention_spans(goal, word):
            return f'action "{word}"'
    return ""


# A whole chat or list to read: the tier's phone_collect (and the phone with it). Words
# that only make sense for a chat on a phone; "summarise" alone could be a web page.
COLLECT_WORDS: tuple[str, ...] = (
    "group chat",
    "chat history",
    "whole chat",
    "all the messages",
    "群聊",
    "群里",
    "聊天记录",
    "所有消息",
)


def tier_reason(goal: str) -> str:
    """Why the task needs the phone's less common tools from the start, or ""."""
    for word in COLLECT_WORDS:
        if mention_spans(goal, word):
            return f'reading "{word}"'
    return ""
