"""`mika eval`: run a suite of simulated-phone tasks with a model and score it.

    mika eval --suite collect --model reference --parallel 2 --report out/
    mika eval merge out1/ out2/ --report all/
    mika eval compare base/ new/

stdout carries data (the summary, or one JSON object with --json); progress lines go to
stderr. Exit code 0 whenever the evaluation itself ran, whatever the score; 2 for bad
usage (unknown suite or task, bad suite file, bad shard, bad model); 3 when no simulated
phone could be started for any task.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from mika.exit_codes import ExitCode
from mika.pace_help import with_pace_help
from mika.terminal_text import echo, for_terminal, json_for_terminal

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "start": "mika eval: {n} task(s) × {repeat} with {model}, {parallel} at a time → {folder}",
        "progress": "{steps} steps  {tokens} tokens  {wall} s",
        "summary": "pass rate {rate}: {passed}/{scored} passed; {not_run} not scored ({none} without a solution, "
        "{person} needing a person present, which unattended runs have not); "
        "tokens {tin} in / {tout} out / {tcached} cached",
        "not_scored": "  not scored, {kind}: {ids}",
        "report": "report: {path}",
        "stopped": "stopped: the report has the task runs as far as they got",
        "all_config": "every run was refused for its configuration: {detail}",
        "all_device": "no simulated phone could be used: {detail}",
    },
    "zh": {
        "start": "mika eval：{n} 个任务 × {repeat}，模型 {model}，同时 {parallel} 个 → {folder}",
        "progress": "{steps} 步  {tokens} 个 token  {wall} 秒",
        "summary": "通过率 {rate}：{scored} 次中通过 {passed} 次；{not_run} 个未计分（{none} 个没有参考解，"
        "{person} 个需要有人在场，而无人值守的运行没有人）；"
        "token 输入 {tin} / 输出 {tout} / 缓存 {tcached}",
        "not_scored": "  未计分，{kind}：{ids}",
        "report": "报告：{path}",
        "stopped": "已停止：报告里是到目前为止的任务运行",
        "all_config": "每次运行都因配置被拒绝：{detail}",
        "all_device": "没有可用的模拟手机：{detail}",
    },
}


def _t(key: str, **fields: object) -> str:
    from mika.config.language import ui_language

    table = TEXTS.get(ui_language(), TEXTS["en"])
    return table.get(key, TEXTS["en"][key]).format(**fields)


class _Failure(click.ClickException):
    """One line on stderr with Mika's exit code, never a traceback."""

    def __init__(self, message: str, code: ExitCode = ExitCode.USAGE) -> None:
        super().__init__(message)
        self.exit_code = int(code)  # type: ignore[misc]

    def show(self, file: Any = None) -> None:
        echo(f"mika eval: {self.format_message()}", err=True)


def _default_report_dir() -> Path:
    from mika.config.paths import state_dir

    return state_dir() / "evals" / datetime.now(UTC).strftime("%Y%m%d-%H%M%S")


@click.group("eval", cls=with_pace_help("eval", click.Group), invoke_without_command=True)
@click.option(
    "--suite",
    default="all",
    show_default=True,
    help="all, a task file's topic (core, collect …), tag:NAME, or a task file (.json).",
)
@click.option("--tasks", "task_ids", default=None, metavar="ID,…", help="Only these task ids.")
@click.option(
    "--model",
    default=None,
    help="reference (each task's own reference solution; the default), lazy (a built-in policy that "
    "answers 'Done.' at once), script:PATH, or PROVIDER/MODEL.",
)
@click.option(
    "--parallel",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="Tasks run at once, each on its own phone.",
)
@click.option("--repeat", type=click.IntRange(1, 100), default=1, show_default=True, help="Runs per task.")
@click.option(
    "--shard", default=None, metavar="I/N", help="Run only the I-th of N parts of the suite (split by task id)."
)
@click.option(
    "--timeout", type=click.FloatRange(1, 3600), default=300.0, show_default=True, help="Seconds per task run."
)
@click.option("--max-steps", type=click.IntRange(1), default=None, help="Step budget of each run.")
@click.option(
    "--report",
    "report_dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Report folder (default: a new one under Mika's state folder).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as one JSON object.")
@click.pass_context
def eval_group(
    ctx: click.Context,
    suite: str,
    task_ids: str | None,
    model: str | None,
    parallel: int,
    repeat: int,
    shard: str | None,
    timeout: float,
    max_steps: int | None,
    report_dir: str | None,
    as_json: bool,
) -> None:
    """Score a model on simulated-phone tasks: each on a fresh phone, with reports."""
    if ctx.invoked_subcommand is not None:
        return
    from mika.eval.report import build_report, write_report
    from mika.eval.runner import EvalInterrupted, Plan, run_plan
    from mika.eval.suite import Shard, SuiteError, load_suite, pick_tasks

    obj = ctx.obj or {}
    choice = model or obj.get("model") or "reference"
    _check_model(choice)
    try:
        tasks = pick_tasks(load_suite(suite), task_ids)
        part = Shard.parse(shard) if shard else None
    except SuiteError as exc:
        raise _Failure(str(exc)) from None
    if part is not None:
        tasks = part.take(tasks)
    folder = Path(report_dir).expanduser() if report_dir else _default_report_dir()
    plan = Plan(
        tasks,
        choice,
        folder.resolve(),
        parallel=parallel,
        repeat=repeat,
        timeout=timeout,
        max_steps=max_steps,
        config_path=obj.get("config"),
    )
    echo(_t("start", n=len(tasks), repeat=repeat, model=choice, parallel=parallel, folder=folder), err=True)
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    began = time.monotonic()
    interrupted = False
    try:
        rows = run_plan(plan, _progress)
    except EvalInterrupted as stop:
        rows, interrupted = stop.rows, True
    report = build_report(
        rows,
        suite=suite,
        model=choice,
        shard=str(part) if part else None,
        repeat=repeat,
        parallel=parallel,
        started_at=started_at,
        wall_s=round(time.monotonic() - began, 3),
    )
    write_report(report, folder)
    _print_summary(report, folder, as_json)
    from mika.eval.scoring import NOT_RUN

    if interrupted:
        raise _Failure(_t("stopped"), ExitCode.INTERRUPTED)
    scored = [r for r in rows if r["category"] not in NOT_RUN]
    if scored and all(r["category"] == "config_error" for r in scored):
        raise _Failure(_t("all_config", detail=scored[0]["detail"]))
    if scored and all(r["category"] == "device_error" for r in scored):
        raise _Failure(_t("all_device", detail=scored[0]["detail"]), ExitCode.DEVICE)


def _check_model(choice: str) -> None:
    from mika.eval.policy import BUILT_IN

    if choice in BUILT_IN:
        return
    if choice.startswith("script:"):
        path = Path(choice[len("script:") :]).expanduser()
        if not path.is_file():
            raise _Failure(f"--model {choice}: no model script at {path}")
        return
    if "/" not in choice:
        raise _Failure(f"--model {choice!r}: give reference, lazy, script:PATH or PROVIDER/MODEL")


def _progress(row: dict[str, Any]) -> None:
    from mika.eval.scoring import NOT_RUN

    mark = "✓" if row["passed"] else ("·" if row["category"] in NOT_RUN else "✗")
    t = row["tokens"]
    line = f"{mark} {row['task']}"
    if row["repeat"] > 1:
        line += f" #{row['repeat']}"
    line += f"  {row['category'] or 'pass'}  " + _t(
        "progress", steps=row["steps"], tokens=t["input"] + t["output"], wall=row["wall_s"]
    )
    if not row["passed"] and row["detail"] and row["category"] not in NOT_RUN:
        line += f"  — {row['detail'].splitlines()[0][:160]}"
    echo(for_terminal(line), err=True)


def _print_summary(report: dict[str, Any], folder: Path | None, as_json: bool) -> None:
    if as_json:
        click.echo(json_for_terminal(report))
        return
    s = report["summary"]
    rate = "–" if s["pass_rate"] is None else f"{s['pass_rate'] * 100:.0f}%"
    tokens = s["tokens"]
    click.echo(
        _t(
            "summary",
            rate=rate,
            passed=s["passed"],
            scored=s["scored"],
            not_run=s["not_run"],
            none=s["no_solution"],
            person=s["needs_person"],
            tin=tokens["input"],
            tout=tokens["output"],
            tcached=tokens["cached"],
        )
    )
    for name, count in s["categories"].items():
        click.echo(f"  {name}: {count}")
    for kind, ids in s.get("not_scored", {}).items():
        click.echo(_t("not_scored", kind=kind, ids=", ".join(ids)))
    if folder is not None:
        click.echo(_t("report", path=folder / "report.html"))


@eval_group.command("merge")
@click.argument("folders", nargs=-1, required=True, type=click.Path())
@click.option("--report", "out", required=True, type=click.Path(file_okay=False), help="Folder of the merged report.")
@click.option("--json", "as_json", is_flag=True, help="Print the merged report as one JSON object.")
def merge_command(folders: tuple[str, ...], out: str, as_json: bool) -> None:
    """Join the reports of several shards of one suite into one report."""
    from mika.eval.report import ReportError, load_report, merge_reports, write_report

    target = Path(out).expanduser().resolve()
    try:
        merged = merge_reports([load_report(Path(f).expanduser().resolve()) for f in folders], target)
    except ReportError as exc:
        raise _Failure(str(exc)) from None
    write_report(merged, target)
    _print_summary(merged, target, as_json)


@eval_group.command("compare")
@click.argument("a", type=click.Path())
@click.argument("b", type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="One JSON list of per-task differences.")
@click.option("--all", "show_all", is_flag=True, help="Every task, not only those that changed.")
def compare_command(a: str, b: str, as_json: bool, show_all: bool) -> None:
    """Per task: what changed from report A to report B (pass→fail, tokens, steps)."""
    from mika.eval.report import ReportError, compare_reports, load_report

    try:
        ra, rb = load_report(Path(a).expanduser()), load_report(Path(b).expanduser())
    except ReportError as exc:
        raise _Failure(str(exc)) from None
    diffs = compare_reports(ra, rb)
    if as_json:
        click.echo(json.dumps(diffs, ensure_ascii=False, indent=1))
        return
    sa, sb = ra["summary"], rb["summary"]
    click.echo(f"A {ra.get('model')}: {_rate(sa['pass_rate'])}   B {rb.get('model')}: {_rate(sb['pass_rate'])}")
    for d in diffs:
        x, y = d["a"], d["b"]
        moved = x and y and (x["mean_tokens"] != y["mean_tokens"] or x["mean_steps"] != y["mean_steps"])
        if not (show_all or d["change"] or moved):
            continue
        parts = [d["task"], d["change"] or "same result"]
        if x and y:
            parts.append(f"pass {_rate(x['pass_rate'])}→{_rate(y['pass_rate'])}")
            parts.append(f"tokens {x['mean_tokens']}→{y['mean_tokens']}{_delta(x['mean_tokens'], y['mean_tokens'])}")
            parts.append(f"steps {x['mean_steps']:g}→{y['mean_steps']:g}")
        click.echo(for_terminal("  ".join(parts)))


def _rate(rate: float | None) -> str:
    return "–" if rate is None else f"{rate * 100:.0f}%"


def _delta(a: float, b: float) -> str:
    if not a or a == b:
        return ""
    return f" ({(b - a) / a * 100:+.0f}%)"
