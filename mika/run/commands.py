"""`mika conversations list|show|rename|delete` and `mika runs recover`.

stdout carries data only (tables, JSON, delivered texts); confirmations and
diagnostics go to stderr. A bad id or a missing conversation is a one-line error with
exit code 1, never a traceback. The state dir is `ctx.obj["state_dir"]` when the parent
command set one, else `mika.config.paths.state_dir()`.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import click

from mika.config.paths import state_dir as default_state_dir
from mika.run.conversations import ConversationError, ConversationStore
from mika.run.outbox import StreamChannel
from mika.run.recovery import recover_at_start, settle
from mika.run.ui_text import t
from mika.terminal_text import echo, for_terminal, json_for_terminal, one_line


def _state_dir(ctx: click.Context) -> Path:
    obj = ctx.find_root().obj
    if isinstance(obj, dict) and obj.get("state_dir"):
        return Path(obj["state_dir"])
    return default_state_dir()


def _store(ctx: click.Context) -> ConversationStore:
    return ConversationStore(_state_dir(ctx))


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
        echo(f"{one_line(s.id):<{width}}  {_when(s.updated_at):<16}  {s.turns:>5}  {pin}{one_line(s.title) or t('untitled')}")


@conversations_group.command("show", help="Print a conversation's turns.")
@click.argument("conversation_id")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: every turn with its user text, answer, outcome and run id.")
@click.pass_context
def show_command(ctx: click.Context, conversation_id: str, as_json: bool) -> None:
    try:
        conv = _store(ctx).get(conversation_id)
    except ConversationError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        data = {
            "id": conv.id, "title": conv.display_title, "pinned_at": conv.pinned_at,
            "created_at": conv.created_at, "updated_at": conv.updated_at,
            "turns": [
                {"run_id": x.run_id, "user": x.user, "steers": list(x.steers), "answer": x.answer,
                 "outcome": x.outcome, "subtype": x.subtype, "groups": list(x.groups),
                 "started_at": x.started_at, "ended_at": x.ended_at, "recovered": x.recovered}
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
        click.confirm(t("confirm_delete", title=one_line(conv.display_title) or t("untitled"), turns=len(conv.turns)),
                      abort=True, err=True)
    store.delete(conversation_id)
    echo(t("deleted", id=conversation_id), err=True)


@click.command("recover", help="Settle runs a closed or killed Mika left unfinished, once.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def runs_recover_command(ctx: click.Context, as_json: bool) -> None:
    root = _state_dir(ctx)
    # Texts that reach the user go to stdout (the data of this command); the summary
    # goes to stderr, or the whole report to stdout as JSON.
    channel = StreamChannel(sys.stderr if as_json else sys.stdout, name="cli")
    report = recover_at_start(root, channel)
    settled = asyncio.run(settle(root, channel))
    if as_json:
        echo(json_for_terminal({
            "interrupted": list(report.interrupted), "uncertain": list(report.uncertain),
            "delivered": list(settled.delivered), "told": list(settled.told), "ended": list(settled.ended),
            "borrowed_restored": list(settled.borrowed.restored), "borrowed_kept": list(settled.borrowed.kept),
            "errors": list(settled.borrowed.errors),
        }, indent=1))
        return
    if not (report.interrupted or settled.delivered or settled.told or settled.borrowed.restored):
        echo(t("recover_none"), err=True)
        return
    echo(t("recover_summary", interrupted=len(report.interrupted), delivered=len(settled.delivered),
           told=len(settled.told), restored=len(settled.borrowed.restored)), err=True)
    for error in settled.borrowed.errors:
        echo(for_terminal(error), err=True)
