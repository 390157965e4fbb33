"""`mika skills drafts|accept|reject`: the personal skills Mika drafted from finished runs
(seed §11 个人技能自学), waiting for the user; and the learned ones with their status.

Plain click commands, joined into the `mika skills` group (DRAFT_COMMANDS). stdout
carries data only (the lists, a draft's text, JSON); confirmations go to stderr. An
unknown name is one sentence and exit 2, never a traceback.
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

import click

from mika.commands.state import state_dir_of
from mika.config.language import ui_language
from mika.exit_codes import ExitCode
from mika.terminal_text import echo, for_terminal, json_for_terminal, one_line

if TYPE_CHECKING:
    from mika.knowledge.learning.drafts import SkillDrafts

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "no_drafts": "No skill drafts waiting. (Drafting is off unless [learning] skills = true.)",
        "pending": "Waiting for you (accept or reject):",
        "learned": "Learned skills:",
        "from_run": "from run {run}",
        "unknown_draft": "There is no skill draft named “{name}” (waiting: {waiting}). Run `mika skills drafts` to see the names.",
        "already": "“{name}” was already accepted (it is {status}); nothing to do.",
        "accepted": "Accepted “{name}”: it is on trial until a run that uses it is judged done.",
        "rejected": "Rejected “{name}”; the draft is gone.",
        "none": "none",
        "trial": "trial",
        "active": "active",
        "retired": "retired",
    },
    "zh": {
        "no_drafts": "没有等待处理的技能草稿。（只有 [learning] skills = true 时才会起草。）",
        "pending": "等你处理（收下或拒绝）：",
        "learned": "学到的技能：",
        "from_run": "来自运行 {run}",
        "unknown_draft": "没有名为“{name}”的技能草稿（等待中：{waiting}）。运行 `mika skills drafts` 查看名称。",
        "already": "“{name}”已经收下了（现在是{status}），无需再做。",
        "accepted": "已收下“{name}”：先试用，用到它的任务核实办成后转为正式。",
        "rejected": "已拒绝“{name}”，草稿已删除。",
        "none": "无",
        "trial": "试用",
        "active": "正式",
        "retired": "已停用",
    },
}


def _t(key: str, **fields: object) -> str:
    table = TEXTS.get(ui_language(), TEXTS["en"])
    return table.get(key, TEXTS["en"][key]).format(**fields)


def _store(ctx: click.Context) -> SkillDrafts:
    from mika.knowledge.learning.drafts import SkillDrafts, learned_skills_dir

    return SkillDrafts(state_dir_of(ctx) / "skill_drafts", learned_skills_dir())


def _fail(sentence: str) -> None:
    echo(f"mika: {sentence}", err=True)
    sys.exit(int(ExitCode.USAGE))


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(at)) if at else "-"


def _check_pending(store: SkillDrafts, name: str) -> None:
    """The user's sentence (in their language) for a name that is not a waiting draft."""
    pending = [d.name for d in store.pending()]
    if name in pending:
        return
    learned = store.get_learned(name)
    if learned is not None:
        _fail(_t("already", name=one_line(name), status=_t(learned.status)))
    _fail(_t("unknown_draft", name=one_line(name), waiting=", ".join(pending) or _t("none")))


@click.command("drafts")
@click.argument("name", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print JSON: the pending drafts and the learned skills.")
@click.pass_context
def drafts_command(ctx: click.Context, name: str | None, as_json: bool) -> None:
    """Skill drafts waiting for you, and the learned skills with their status. With NAME: that draft's SKILL.md."""
    from mika.knowledge.learning.drafts import DraftError

    store = _store(ctx)
    try:
        pending, learned = store.pending(), store.learned()
    except DraftError as exc:
        _fail(str(exc))
        return
    if name is not None:
        draft = next((d for d in pending if d.name == name), None)
        if draft is None:
            _check_pending(store, name)
            return
        echo(json_for_terminal(draft.to_dict(), indent=1) if as_json else for_terminal(draft.text))
        return
    if as_json:
        echo(
            json_for_terminal(
                {"pending": [d.to_dict() for d in pending], "learned": [s.to_dict() for s in learned]}, indent=1
            )
        )
        return
    if not pending and not learned:
        echo(_t("no_drafts"), err=True)
        return
    if pending:
        echo(_t("pending"))
        for d in pending:
            echo(f"  {d.name:28} {_when(d.created_at)}  {_t('from_run', run=one_line(d.run_id))}")
            echo(f"  {'':28} {one_line(d.description)[:100]}")
    if learned:
        echo(_t("learned"))
        for s in learned:
            outcomes = " ".join(s.outcomes) or "-"
            echo(f"  {s.name:28} {_t(s.status):8} {outcomes}")


@click.command("accept")
@click.argument("name")
@click.pass_context
def accept_command(ctx: click.Context, name: str) -> None:
    """Accept a skill draft: it joins your learned skills, on trial."""
    from mika.knowledge.learning.drafts import DraftError

    store = _store(ctx)
    try:
        _check_pending(store, name)
        store.accept(name)
    except DraftError as exc:
        _fail(str(exc))
    echo(_t("accepted", name=name), err=True)


@click.command("reject")
@click.argument("name")
@click.pass_context
def reject_command(ctx: click.Context, name: str) -> None:
    """Reject a skill draft: it is deleted."""
    from mika.knowledge.learning.drafts import DraftError

    store = _store(ctx)
    try:
        _check_pending(store, name)
        store.reject(name)
    except DraftError as exc:
        _fail(str(exc))
    echo(_t("rejected", name=name), err=True)


DRAFT_COMMANDS = [drafts_command, accept_command, reject_command]
