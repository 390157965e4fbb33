"""`mika routes list|show|delete`: the routes Mika recorded from verified runs (seed §9).

stdout carries data only (the table, a route's JSON); confirmations, notes about route
files that can't be read, and errors go to stderr. An unknown id is one sentence and exit
code 2, never a traceback. Routes are recorded and replayed only with `[run] replay = true`.
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, NoReturn

import click

from mika.commands.state import state_dir_of
from mika.config.language import ui_language
from mika.exit_codes import ExitCode
from mika.terminal_text import echo, json_for_terminal, one_line

if TYPE_CHECKING:
    from mika.replay.store import RouteStore

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "empty": "No routes recorded yet. (Routes are recorded only with [run] replay = true, from runs judged done.)",
        "skipped": "Skipped route file {file}: {why}",
        "deleted": "Deleted route {id}.",
        "col_id": "ID",
        "col_steps": "STEPS",
        "col_uses": "USES",
        "col_when": "LAST USED",
        "col_goal": "GOAL",
        "never": "never",
        "route": "Route {id}: {goal}",
        "params": "Parameters: {params}",
        "recorded": "Recorded {when} from run {run}; replayed {uses} time(s), last {last}.",
        "steps": "Steps:",
        "answer": "Answer: {answer}",
        "none": "none",
    },
    "zh": {
        "empty": "还没有录下的路线。（只有 [run] replay = true 时，才会从核实办成的运行里录下路线。）",
        "skipped": "跳过了路线文件 {file}：{why}",
        "deleted": "已删除路线 {id}。",
        "col_id": "编号",
        "col_steps": "步数",
        "col_uses": "回放次数",
        "col_when": "上次使用",
        "col_goal": "任务",
        "never": "从未",
        "route": "路线 {id}：{goal}",
        "params": "参数：{params}",
        "recorded": "{when} 录自运行 {run}；回放过 {uses} 次，上次 {last}。",
        "steps": "步骤：",
        "answer": "回答：{answer}",
        "none": "无",
    },
}


def tr(key: str, **fields: object) -> str:
    table = TEXTS.get(ui_language(), TEXTS["en"])
    return table.get(key, TEXTS["en"][key]).format(**fields)


def _fail(message: str) -> NoReturn:
    echo(f"mika: {message}", err=True)
    sys.exit(ExitCode.USAGE)


def _store(ctx: click.Context) -> RouteStore:
    # Imported here: `mika --help` stays cheap.
    from mika.replay.store import RouteStore

    return RouteStore(state_dir_of(ctx))


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(at)) if at else tr("never")


@click.group("routes", help="Routes recorded from verified runs and replayed without the model: list, show, delete.")
def routes_group() -> None:
    pass


@routes_group.command("list", help="Recorded routes, most recently used first.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: every route whole.")
@click.pass_context
def list_command(ctx: click.Context, as_json: bool) -> None:
    store = _store(ctx)
    routes = store.list()
    for name, why in store.problems:
        echo(tr("skipped", file=name, why=why), err=True)
    if as_json:
        echo(json_for_terminal([r.to_dict() for r in routes], indent=1))
        return
    if not routes:
        echo(tr("empty"), err=True)
        return
    echo(f"{tr('col_id'):<8}  {tr('col_steps'):>5}  {tr('col_uses'):>4}  {tr('col_when'):<16}  {tr('col_goal')}")
    for r in routes:
        echo(f"{r.id:<8}  {len(r.steps):>5}  {r.uses:>4}  {_when(r.last_used):<16}  {one_line(r.goal)}")


@routes_group.command("show", help="One route: its goal, parameters and steps (anchors, places, effects).")
@click.argument("route_id")
@click.option("--json", "as_json", is_flag=True, help="Print the route file's JSON.")
@click.pass_context
def show_command(ctx: click.Context, route_id: str, as_json: bool) -> None:
    from mika.replay.player import describe
    from mika.replay.store import RouteNotFound

    try:
        route = _store(ctx).get(route_id)
    except RouteNotFound as exc:
        _fail(str(exc))
    if as_json:
        echo(json_for_terminal(route.to_dict(), indent=1))
        return
    params = ", ".join(f"{k} = {v!r}" for k, v in route.params.items()) or tr("none")
    echo(tr("route", id=route.id, goal=one_line(route.goal)))
    echo(tr("params", params=params))
    echo(
        tr(
            "recorded",
            when=_when(route.created),
            run=route.source_run or "-",
            uses=route.uses,
            last=_when(route.last_used),
        )
    )
    echo(tr("steps"))
    for i, step in enumerate(route.steps, 1):
        effect = f" → {step.effect}" if step.effect else ""
        echo(f"  {i}. {one_line(describe(step, {}))}{effect}")
    if route.answer:
        echo(tr("answer", answer=one_line(route.answer)))


@routes_group.command("delete", help="Delete a route (its file).")
@click.argument("route_id")
@click.pass_context
def delete_command(ctx: click.Context, route_id: str) -> None:
    from mika.replay.store import RouteNotFound

    try:
        _store(ctx).delete(route_id)
    except RouteNotFound as exc:
        _fail(str(exc))
    echo(tr("deleted", id=route_id), err=True)
