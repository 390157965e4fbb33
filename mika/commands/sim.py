"""`mika sim`: run a simulated phone in the foreground until Ctrl+C.

stdout carries one data line, `listening on 127.0.0.1:PORT`, so scripts can read the
port; everything else (how to connect, that it stopped, errors) goes to stderr, in
English or Chinese by the user's language.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
from typing import TYPE_CHECKING

import click

from mika.config.language import ui_language

if TYPE_CHECKING:
    from mika.sim.faults import FaultSpec

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "hint": "simulated phone {serial} is up; connect it with: adb connect 127.0.0.1:{port}  (Ctrl+C stops it)",
        "stopped": "simulated phone stopped.",
        "bad_faults": "--faults: {error}",
        "bad_scenario": "--scenario: {error}",
        "no_tasks": "this build has no simulated tasks to list.",
        "unknown_task": "no simulated-phone task {id!r}; `mika sim tasks` lists them",
        "not_sim": "{serial} is not a simulated phone (`simctl state` did not answer with its state: {said})",
        "passed": "{id}: pass",
        "failed": "{id}: FAIL",
        "needs_answer": "{id} is a question: give the run's answer with --answer TEXT",
    },
    "zh": {
        "hint": "模拟手机 {serial} 已启动；用 adb connect 127.0.0.1:{port} 连接（按 Ctrl+C 停止）",
        "stopped": "模拟手机已停止。",
        "bad_faults": "--faults：{error}",
        "bad_scenario": "--scenario：{error}",
        "no_tasks": "这个版本没有可列出的模拟任务。",
        "unknown_task": "没有模拟手机任务 {id!r}；用 `mika sim tasks` 查看",
        "not_sim": "{serial} 不是模拟手机（`simctl state` 没有给出它的状态：{said}）",
        "passed": "{id}：通过",
        "failed": "{id}：未通过",
        "needs_answer": "{id} 是一个问题：请用 --answer TEXT 给出运行的回答",
    },
}


def _t(key: str, **fields: object) -> str:
    table = TEXTS.get(ui_language(), TEXTS["en"])
    return table.get(key, TEXTS["en"][key]).format(**fields)


# Mika's exit code for bad usage (mika.exit_codes.ExitCode.USAGE); the sim keeps its own copy
# of the number because it imports nothing of the product.
USAGE_EXIT = 2


class _Failure(click.ClickException):
    """A one-line error on stderr with Mika's exit code, never a traceback."""

    def __init__(self, message: str, code: int = USAGE_EXIT) -> None:
        super().__init__(message)
        # click declares exit_code a ClassVar, yet reads it from the instance; ours varies per error.
        self.exit_code = int(code)  # type: ignore[misc]


@click.group("sim", invoke_without_command=True)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    help="Port on 127.0.0.1 to listen on (0 = any free port; 5554–5585 are refused).",
)
@click.option("--serial", default="mika-sim", show_default=True, help="The phone's own serial number.")
@click.option("--scenario", default=None, help="Initial world (see `mika sim tasks`); default: the plain home screen.")
@click.option(
    "--faults",
    default=None,
    metavar="SPEC",
    help="Faults to show, e.g. drop_after=5,slow_ms=200 (keys: drop_after, slow_ms, "
    "null_root, idle_timeout, bad_xml, bad_png, rpc_error, http_500, dialog, crash).",
)
@click.pass_context
def sim_group(ctx: click.Context, port: int, serial: str, scenario: str | None, faults: str | None) -> None:
    """Run a simulated Android phone that a real adb server can `adb connect` to."""
    if ctx.invoked_subcommand is not None:
        return
    # The simulated phone paints with Pillow: imported here so `mika --help` stays cheap.
    from mika.sim.faults import FaultSpec, FaultSpecError
    from mika.sim.server import SimServerError

    try:
        spec = FaultSpec.parse(faults)
    except FaultSpecError as exc:
        raise _Failure(_t("bad_faults", error=exc)) from None
    device = _make_device(serial, scenario, spec)
    try:
        asyncio.run(_serve(device, port))
    except KeyboardInterrupt:
        pass
    except SimServerError as exc:
        raise _Failure(str(exc)) from None
    click.echo(_t("stopped"), err=True)


def _make_device(serial: str, scenario: str | None, spec: FaultSpec):
    from mika.sim.phone import make_device

    try:
        return make_device(serial, scenario, spec)
    except ValueError as exc:  # ScenarioError names the known scenarios
        raise _Failure(_t("bad_scenario", error=exc)) from None


async def _serve(device, port: int) -> None:
    from mika.sim.server import SimServer

    server = SimServer(device, port)
    actual = await server.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    # SIGTERM ends it as cleanly as Ctrl+C does (SIGINT is asyncio.run's own).
    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGTERM, stop.set)
    click.echo(f"listening on 127.0.0.1:{actual}")
    sys.stdout.flush()
    click.echo(_t("hint", serial=device.serial, port=actual), err=True)
    try:
        await stop.wait()
    finally:
        await server.stop()


@sim_group.group("tasks", invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="One JSON array instead of a table.")
@click.pass_context
def tasks_command(ctx: click.Context, as_json: bool) -> None:
    """List the simulated phone's tasks (goal, scenario, success check)."""
    if ctx.invoked_subcommand is not None:
        return
    tasks = _load_tasks()
    if as_json:
        click.echo(json.dumps(tasks, ensure_ascii=False, indent=2))
        return
    if not tasks:
        click.echo(_t("no_tasks"), err=True)
        return
    id_width = max(len(str(t.get("id", ""))) for t in tasks)
    sc_width = max(len(str(t.get("scenario", "") or "-")) for t in tasks)
    for t in tasks:
        ident = str(t.get("id", ""))
        scenario = str(t.get("scenario", "") or "-")
        expect = str(t.get("expect", "") or "")
        click.echo(f"{ident:<{id_width}}  {scenario:<{sc_width}}  {expect:<7}  {t.get('goal', '')}")


def _load_tasks() -> list[dict[str, object]]:
    """SIM-WORLD's task catalogue (mika.sim.tasks.list_tasks) as plain dicts."""
    from mika.sim.tasks import list_tasks

    out: list[dict[str, object]] = []
    for task in list_tasks():
        if isinstance(task, dict):
            out.append(task)
        elif hasattr(task, "to_json"):
            out.append(task.to_json())
        elif hasattr(task, "to_dict"):
            out.append(task.to_dict())
        else:
            out.append({k: getattr(task, k) for k in ("id", "goal", "scenario") if hasattr(task, k)})
    return out


@tasks_command.command("check")
@click.argument("task_id")
@click.option(
    "--device", "serial", default=None, help="The simulated phone's adb serial (default: the only phone attached)."
)
@click.option("--answer", default=None, help="The run's final answer, for a question's task (expect: answer).")
@click.option(
    "--json", "as_json", is_flag=True, help="One JSON object: the task, whether it passed, each part of its check."
)
def tasks_check_command(task_id: str, serial: str | None, answer: str | None, as_json: bool) -> None:
    """Score a simulated phone's current state against a task's success check.

    Exit code 0 when the check passes, 1 when it does not, 2 for an unknown task,
    3 when the phone cannot be reached or is not a simulated phone."""
    from mika.exit_codes import ExitCode
    from mika.sim.tasks import get_task

    try:
        task = get_task(task_id)
    except KeyError:
        raise _Failure(_t("unknown_task", id=task_id)) from None
    if task.expect == "answer" and answer is None:
        raise _Failure(_t("needs_answer", id=task.id))
    state = _sim_state(serial)
    passed = task.succeeded(state, answer)
    parts = _check_parts(task.check, {**state, "answer": answer} if answer is not None else state)
    if as_json:
        click.echo(json.dumps({"task": task.id, "passed": passed, "parts": parts}, ensure_ascii=False))
    else:
        click.echo(_t("passed" if passed else "failed", id=task.id))
        for part in parts:
            click.echo(f"  {'✓' if part['passed'] else '✗'} {json.dumps(part['check'], ensure_ascii=False)}")
    if not passed:
        sys.exit(int(ExitCode.NOT_DONE))


def _check_parts(check: dict, state: dict) -> list[dict]:
    """Each part of an `all` check (or the check itself) with whether it holds now."""
    from mika.sim.tasks import passes

    parts = check["all"] if set(check) == {"all"} else [check]
    return [{"check": part, "passed": passes(part, state)} for part in parts]


def _sim_state(serial: str | None) -> dict:
    """`simctl state` of the phone, over the adb server, the way `mika devices` reaches phones."""
    import adbutils

    from mika.cap.phone.adb.devices import DeviceChoiceError, pick_serial
    from mika.cap.phone.adb.server import AdbServerError, adb_client
    from mika.exit_codes import ExitCode

    try:
        client = adb_client()
        chosen = pick_serial(client, serial)
        output = str(client.device(chosen).shell("simctl state", timeout=30))
    except (AdbServerError, DeviceChoiceError) as exc:
        raise _Failure(str(exc), ExitCode.DEVICE) from None
    except (adbutils.AdbError, OSError) as exc:  # the phone went away mid-call
        raise _Failure(f"{serial or 'the phone'}: {exc}", ExitCode.DEVICE) from None
    try:
        state = json.loads(output)
    except ValueError:
        state = None
    if not isinstance(state, dict):
        raise _Failure(_t("not_sim", serial=chosen, said=output.strip()[:120] or "nothing"), ExitCode.DEVICE)
    return state
