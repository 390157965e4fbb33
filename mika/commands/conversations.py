"""`mika conversations list|show|rename|delete`.

stdout carries data only (tables, JSON, delivered texts); confirmations and
diagnostics go to stderr. A bad id or a missing conversation is a one-line error with
exit code 1, never a traceback. The state dir is `ctx.obj["state_dir"]` when the parent
command set one, else `mika.config.paths.state_dir()`.
"""

from __future__ import annotations

import sys
import time

import click

from mika.commands.state import state_dir_of
from mika.run.conversations import ConversationError, ConversationStore
from mika.run.ui_text import t
from mika.terminal_text import echo, for_terminal, json_for_terminal, one_line


def _store(ctx: click.Context) -> ConversationStore:
    return ConversationStore(state_dir_of(ctx))


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(at)) if at else "-"


@click.group("conversations", help="List, show, rename and delete conversations.")
def conversations_group() -> None:
    pass


@conversations_group.command("list", help="Pinned first, then the most recently changed.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.pass_context
def list_command(ctx: click.Context, as_json: bool) -> None:
    summaries = _store(ctx).list()
    if as_json:
        echo(json_for_terminal([s.to_dict() for s in summaries], indent=1))
        return
    if not summaries:
        echo(t("no_conversations"), err=True)
        return
    width = max(len(s.id) for s in summaries)
    echo(f"{t('col_id'):<{width}}  {t('col_updated'):<16}  {t('col_turns'):>5}  {t('col_title')}")
    for s in summaries:
        pin = "📌 " if s.pinned_at else ""
        echo(
            f"{one_line(s.id):<{width}}  {_when(s.updated_at):<16}  {s.turns:>5}  {pin}{one_line(s.title) or t('untitled')}"
        )


@conversations_group.command("show", help="Print a conversation's turns.")
@click.argument("conversation_id")
@click.option(
    "--json", "as_json", is_flag=True, help="Print JSON: every turn with its user text, answer, outcome and run id."
)
@click.pass_context
def show_command(ctx: click.Context, conversation_id: str, as_json: bool) -> None:
    try:
        conv = _store(ctx).get(conversation_id)
    except ConversationError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        data = {
            "id": conv.id,
            "title": conv.display_title,
            "pinned_at": conv.pinned_at,
            "created_at": conv.created_at,
            "updated_at": conv.updated_at,
            "turns": [
                {
                    "run_id": x.run_id,
                    "user": x.user,
                    "steers": list(x.steers),
                    "answer": x.answer,
                    "outcome": x.outcome,
                    "subtype": x.subtype,
                    "groups": list(x.groups),
                    "started_at": x.started_at,
                    "ended_at": x.ended_at,
                    "recovered": x.recovered,
                }
                for x in conv.turns
            ],
        }
        echo(json_for_terminal(data, indent=1))
        return
    echo(f"# {one_line(conv.display_title) or t('untitled')}  ({one_line(conv.id)})")
    for turn in conv.turns:
        echo(f"\n[{_when(turn.started_at)}] {t('you')}: {for_terminal(turn.user_words)}")
        outcome = f"  ({t('outcome')}: {turn.outcome}{'/' + turn.subtype if turn.subtype else ''} · run {turn.run_id})"
        echo(f"{t('mika')}: {for_terminal(turn.answer)}{one_line(outcome)}")


@conversations_group.command("rename", help="Give a conversation a new title.")
@click.argument("conversation_id")
@click.argument("title")
@click.pass_context
def rename_command(ctx: click.Context, conversation_id: str, title: str) -> None:
    try:
        conv = _store(ctx).rename(conversation_id, title)
    except ConversationError as exc:
        raise click.ClickException(str(exc)) from None
    echo(t("renamed", id=conv.id, title=one_line(conv.title)), err=True)


@conversations_group.command("delete", help="Delete a conversation, its turns and its workspace.")
@click.argument("conversation_id")
@click.option("--yes", "-y", is_flag=True, help="Don't ask for confirmation.")
@click.pass_context
def delete_command(ctx: click.Context, conversation_id: str, yes: bool) -> None:
    store = _store(ctx)
    try:
        conv = store.get(conversation_id)
    except ConversationError as exc:
        raise click.ClickException(str(exc)) from None
    if not yes:
        if not sys.stdin.isatty():
            raise click.ClickException("Refusing to delete without confirmation: pass --yes.")
        click.confirm(
            t("confirm_delete", title=one_line(conv.display_title) or t("untitled"), turns=len(conv.turns)),
            abort=True,
            err=True,
        )
    from mika.trigger.store import TriggerStore
    from mika.trigger.texts import t as sched_t

    # Its schedules first, so none starts a new task in a conversation being deleted.
    removed = TriggerStore(store.state_dir).delete_conversation(conversation_id)
    store.delete(conversation_id)
    echo(t("deleted", id=conversation_id), err=True)
    if removed:
        echo(sched_t("deleted_with_conversation", n=removed), err=True)
