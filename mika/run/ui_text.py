"""The user-facing sentences of the task center, recovery and the conversations
command, in English and Chinese.

Callers that hold the settings pass `lang=settings.ui_language`. Without it the same
rule applies as in `Settings.ui_language`: `MIKA_LANGUAGE` (en / zh) if set and not
"auto", else the locale (`LC_ALL`, `LC_MESSAGES`, `LANG`): `zh…` gives Chinese,
everything else English.
"""

from __future__ import annotations

import os

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "interrupted_turn": "The task was interrupted; you can start it again.",
        "interrupted_notice": "Mika was closed while working on “{goal}”. The task was interrupted; you can start it again in that conversation.",
        "uncertain_notice": "The last result of “{goal}” may already have been delivered.",
        "recovered_prefix": "(recovered after a restart) ",
        "stopped": "Stopped.",
        "internal_fault": "Mika hit an internal fault and stopped this task ({error}). You can start it again.",
        "no_conversations": "No conversations yet.",
        "conversation_not_found": "No conversation with id {id}. Run `mika conversations list` to see the ids.",
        "bad_conversation_id": "“{id}” is not a conversation id: use letters, digits, '-' or '_' (at most 64).",
        "empty_title": "A title cannot be empty.",
        "renamed": "Renamed {id} to “{title}”.",
        "deleted": "Deleted conversation {id}.",
        "confirm_delete": "Delete the conversation “{title}” ({turns} turns)?",
        "recover_none": "Nothing to recover.",
        "recover_summary": "Marked {interrupted} run(s) interrupted; delivered {delivered}, told {told}, gave back {restored} borrowed thing(s).",
        "untitled": "(untitled)",
        "col_id": "ID",
        "col_title": "TITLE",
        "col_turns": "TURNS",
        "col_updated": "UPDATED",
        "you": "You",
        "mika": "Mika",
        "outcome": "outcome",
        "not_paid": "Not paid: a payment step in this task was refused or nobody could approve it, so nothing was paid.",
        "claim_amount_differs": "The model says {claim}, but the screen shows {shown}.",
        "claim_item_differs": "The model says “{claim}”, but the screen lists “{shown}”.",
        "claim_app_differs": "The model says app {claim}, but {shown} is in front.",
        "claim_unchecked": "No payment screen was read for this step: check the phone before you allow it.",
    },
    "zh": {
        "interrupted_turn": "任务中断了，可以重新发起。",
        "interrupted_notice": "Mika 在做「{goal}」时被关闭，运行中断了，可以在那个对话里重新发起。",
        "uncertain_notice": "「{goal}」上次的结果可能已送达。",
        "recovered_prefix": "（重启后补送）",
        "stopped": "已停止。",
        "internal_fault": "Mika 内部出错，这个任务停下了（{error}）。可以重新发起。",
        "no_conversations": "还没有对话。",
        "conversation_not_found": "没有编号为 {id} 的对话。用 `mika conversations list` 查看编号。",
        "bad_conversation_id": "「{id}」不是对话编号：只能用字母、数字、'-' 或 '_'（最多 64 个）。",
        "empty_title": "标题不能为空。",
        "renamed": "已把 {id} 改名为「{title}」。",
        "deleted": "已删除对话 {id}。",
        "confirm_delete": "删除对话「{title}」（{turns} 轮）？",
        "recover_none": "没有需要善后的运行。",
        "recover_summary": "标记中断 {interrupted} 个运行；补送 {delivered} 条，告知 {told} 条，归还借用 {restored} 项。",
        "untitled": "（无标题）",
        "col_id": "编号",
        "col_title": "标题",
        "col_turns": "轮数",
        "col_updated": "更新时间",
        "you": "你",
        "mika": "Mika",
        "outcome": "结局",
        "not_paid": "未付款：这个任务里的付款步骤被拒绝或无人能批准，没有付任何钱。",
        "claim_amount_differs": "模型说是 {claim}，但屏幕上显示 {shown}。",
        "claim_item_differs": "模型说是「{claim}」，但屏幕上列的是「{shown}」。",
        "claim_app_differs": "模型说是应用 {claim}，但前台是 {shown}。",
        "claim_unchecked": "这一步没有读到付款页面：允许之前请先看一眼手机。",
    },
}


_chosen: str | None = None


def set_language(lang: str | None) -> None:
    """The CLI and TUI call this once with `settings.ui_language` (a config file's
    `language = "zh"` is not in the environment); None goes back to the environment."""
    global _chosen
    _chosen = lang if lang in ("en", "zh") else None


def ui_language() -> str:
    if _chosen is not None:
        return _chosen
    chosen = os.environ.get("MIKA_LANGUAGE", "")
    if chosen in ("en", "zh"):
        return chosen
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


def t(key: str, lang: str | None = None, **fields: object) -> str:
    table = TEXTS.get(lang or ui_language(), TEXTS["en"])
    return table.get(key, TEXTS["en"][key]).format(**fields)
