"""`mika memory list|add|forget|approve`: what Mika remembers about the user.

stdout carries data only (the table, JSON, an added item's id); confirmations and errors
go to stderr. An unknown id, a refused item or a memory file that is not ours is one
sentence and exit code 2, never a traceback. The file is `<state dir>/memory.jsonl`
(`MIKA_STATE_DIR` or the platform's state folder).
"""

from __future__ import annotations

import sys
import time
from typing import NoReturn

import click

from mika.commands.state import state_dir_of
from mika.config.language import ui_language
from mika.exit_codes import ExitCode
from mika.terminal_text import echo, json_for_terminal, one_line

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "empty": "Nothing remembered yet. Tell Mika in a task, or use `mika memory add TEXT`.",
        "unreadable": "{n} line(s) of the memory file could not be read; they are kept as they are.",
        "added": "Remembered as {id} ({kind}).",
        "added_pending": "Saved as {id} ({kind}); approve it with `mika memory approve {id}` to have it used.",
        "forgotten": "Forgot {id}; its text is erased.",
        "approved": "Approved {id}; it is used from the next task on.",
        "not_found": "No memory item has the id {id}. Run `mika memory list` to see the ids.",
        "refused_sensitive": "Not remembered: {reason}",
        "refused": "Not remembered: {reason}",
        "col_id": "ID",
        "col_kind": "KIND",
        "col_status": "STATUS",
        "col_when": "SAVED",
        "col_text": "TEXT",
        "fact": "fact",
        "preference": "preference",
        "procedure": "procedure",
        "active": "active",
        "pending": "pending",
        "forgotten_status": "forgotten",
    },
    "zh": {
        "empty": "还没有记住任何事。在任务里告诉 Mika，或用 `mika memory add 内容`。",
        "unreadable": "记忆文件中有 {n} 行无法读取，已原样保留。",
        "added": "已记住，编号 {id}（{kind}）。",
        "added_pending": "已保存为 {id}（{kind}）；用 `mika memory approve {id}` 批准后才会使用。",
        "forgotten": "已忘记 {id}，内容已抹去。",
        "approved": "已批准 {id}，从下一个任务起使用。",
        "not_found": "没有编号为 {id} 的记忆。用 `mika memory list` 查看编号。",
        "refused_sensitive": "没有记住：{reason}",
        "refused": "没有记住：{reason}",
        "col_id": "编号",
        "col_kind": "类别",
        "col_status": "状态",
        "col_when": "保存时间",
        "col_text": "内容",
        "fact": "事实",
        "preference": "偏好",
        "procedure": "做法",
        "active": "生效",
        "pending": "待批准",
        "forgotten_status": "已忘记",
    },
}


def tr(key: str, **fields: object) -> str:
    table = TEXTS.get(ui_language(), TEXTS["en"])
    return table.get(key, TEXTS["en"][key]).format(**fields)


def _fail(message: str) -> NoReturn:
    echo(message, err=True)
    sys.exit(ExitCode.USAGE)


def _store(ctx: click.Context):
    # Imported here: `mika --help` stays cheap.
    from mika.memory.store import MemoryStore

    return MemoryStore(state_dir_of(ctx) / "memory.jsonl")


def _status(value: str) -> str:
    return tr("forgotten_status") if value == "forgotten" else tr(value)


@click.group("memory", help="What Mika remembers about you: list, add, forget, approve.")
def memory_group() -> None:
    pass


@memory_group.command("list", help="Remembered items, oldest first (forgotten ones with --all).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: every item with its source words and conversation.")
@click.option("--all", "show_all", is_flag=True, help="Include forgotten items (their tombstones).")
@click.pass_context
def list_command(ctx: click.Context, as_json: bool, show_all: bool) -> None:
    from mika.memory.store import MemoryFileError

    store = _store(ctx)
    try:
        items = store.items(include_forgotten=show_all)
        unreadable = store.unreadable_lines()
    except MemoryFileError as exc:
        _fail(str(exc))
    if unreadable:
        echo(tr("unreadable", n=unreadable), err=True)
    if as_json:
        echo(json_for_terminal([i.as_dict() for i in items], indent=1))
        return
    if not items:
        echo(tr("empty"), err=True)
        return
    echo(f"{tr('col_id'):<8}  {tr('col_kind'):<10}  {tr('col_status'):<9}  {tr('col_when'):<16}  {tr('col_text')}")
    for i in items:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(i.created_at))
        echo(f"{i.id:<8}  {tr(i.kind.value):<10}  {_status(i.status.value):<9}  {when:<16}  {one_line(i.text)}")


@memory_group.command(
    "add", help="Remember something, in your own words (still filtered: no passwords, codes, card or id numbers)."
)
@click.argument("text", nargs=-1, required=True)
@click.option(
    "--kind",
    type=click.Choice(["fact", "preference", "procedure"]),
    default="fact",
    show_default=True,
    help="A procedure you add yourself is approved at once.",
)
@click.pass_context
def add_command(ctx: click.Context, text: tuple[str, ...], kind: str) -> None:
    from mika.memory.store import MemoryFileError, MemoryRefused, MemoryStatus

    words = " ".join(text)
    try:
        # The user typed it: their own words are its source, and a procedure they add needs no approval from them.
        item = _store(ctx).add(kind, words, words, status=MemoryStatus.ACTIVE)
    except MemoryRefused as refused:
        _fail(tr("refused", reason=refused.message))
    except MemoryFileError as exc:
        _fail(str(exc))
    echo(item.id)
    echo(tr("added", id=item.id, kind=tr(item.kind.value)), err=True)


@memory_group.command("forget", help="Forget an item for good: its text is erased (a tombstone with the id stays).")
@click.argument("item_id")
@click.pass_context
def forget_command(ctx: click.Context, item_id: str) -> None:
    from mika.memory.store import MemoryFileError, MemoryNotFound

    try:
        item = _store(ctx).forget(item_id.strip(), erase=True)
    except MemoryNotFound:
        _fail(tr("not_found", id=one_line(item_id)))
    except MemoryFileError as exc:
        _fail(str(exc))
    echo(tr("forgotten", id=item.id), err=True)


@memory_group.command("approve", help="Approve a pending procedure so runs use it.")
@click.argument("item_id")
@click.pass_context
def approve_command(ctx: click.Context, item_id: str) -> None:
    from mika.memory.store import MemoryFileError, MemoryNotFound, MemoryRefused

    try:
        item = _store(ctx).approve(item_id.strip())
    except MemoryNotFound:
        _fail(tr("not_found", id=one_line(item_id)))
    except MemoryRefused as refused:
        _fail(tr("refused", reason=refused.message))
    except MemoryFileError as exc:
        _fail(str(exc))
    echo(tr("approved", id=item.id), err=True)
