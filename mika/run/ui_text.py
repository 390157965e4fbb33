"""The user-facing sentences of the task center, recovery and the conversations
command, in English and Chinese.

Callers that hold the settings pass `lang=settings.ui_language`; without it the
language is `mika.config.language.ui_language()`, the one rule for all of Mika.
"""

from __future__ import annotations

from mika.config.language import ui_language

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
        "memory_remembered": "remembered {id} ({kind}): {text} — undo: mika memory forget {id}",
        "file_shared": "Shared a file: {name} ({size} bytes) — {path}",
        "memory_pending": "saved {id} ({kind}), waiting for approval: {text} — mika memory approve {id}",
        "route_answer_recorded": "Done by replaying route {route} ({steps} steps, no model calls); the answer is the one recorded with the route.",
        "route_answer_fixed": "Done by replaying route {route} ({steps} steps, no model calls); the route kept no answer, so this is a fixed one.",
        "route_done": "Done: “{goal}” (replayed a recorded route, {steps} steps, each checked).",
        "knowledge_skipped": "Skipped a broken knowledge or skill file — {problem}. Fix it (`mika knowledge check` / `mika skills check` show every problem); the rest is used.",
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
        "memory_remembered": "已记住 {id}（{kind}）：{text} —— 撤销：mika memory forget {id}",
        "file_shared": "分享了一个文件：{name}（{size} 字节）—— {path}",
        "memory_pending": "已保存 {id}（{kind}），等待批准：{text} —— mika memory approve {id}",
        "route_answer_recorded": "照着路线 {route} 做完了（{steps} 步，没有调用模型）；回答是录下路线时的那句。",
        "route_answer_fixed": "照着路线 {route} 做完了（{steps} 步，没有调用模型）；路线没存回答，这是固定的一句。",
        "route_done": "办好了：「{goal}」（照着录下的路线做，{steps} 步，每步都核对过）。",
        "knowledge_skipped": "跳过了一个有错的知识或技能文件——{problem}。请改正（`mika knowledge check` / `mika skills check` 会列出所有问题）；其余的照常使用。",
    },
}


def t(key: str, lang: str | None = None, **fields: object) -> str:
    table = TEXTS.get(lang or ui_language(), TEXTS["en"])
    return table.get(key, TEXTS["en"][key]).format(**fields)
