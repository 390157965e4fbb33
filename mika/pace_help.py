"""What `[general] pace` costs, said in every face's `--help`, and the `--pace` flag.

The default, `standard`, waits before each action on the phone as a person would; a user
who drives Mika from an MCP client or a script meets that as 1–2 s an action and should
find why, and how to change it, in the help of the command they run.

The figures are those of mika.action.pace's dwell profiles (tests/core/test_pace_help.py
holds them to it); they are written out here because `mika --help` must not import the
pacing code (dataclasses, random: ~40 ms of a ~100 ms start).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

import click

# The same names as mika.config.settings.PACES (a test holds them equal); not imported
# from there, for the same reason as the figures.
PACES = ("fast", "standard", "human")
DEFAULT = "standard"
# The seconds waited before an action, from mika.action.pace: standard's shortest wait
# (same screen) to its longest usual one (a new screen), and its cap; human's likewise.
STANDARD_WAIT_S = (0.5, 2.0)
STANDARD_CAP_S = 3.5
HUMAN_WAIT_S = (0.9, 5.0)
HUMAN_CAP_S = 15.0
# What an action takes in all at standard on a real phone (issue 35's measurement): the
# wait, the action itself and the read of its effect.
STANDARD_PER_ACTION_S = (1.2, 2.1)

# Where each face's runs take their pace from (eval: the harness sets fast).
FACES = ("mika", "run", "mcp", "serve", "eval")

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "mika": "Pace: the TUI's and --no-ui's runs",
        "run": "Pace: this command's runs",
        "mcp": "Pace: run_task and the phone_* tools",
        "serve": "Pace: the scheduled runs",
        "body": "{lead} act at the pace [general] pace sets; the default, standard, waits "
        "{s_low:g}–{s_high:g} s (at most {s_cap:g} s) before each action on the phone, as a person would, "
        "counted from the end of the previous one (the model's thinking time is not added), and "
        "types in short chunks: about {a_low:g}–{a_high:g} s an action in all. fast waits for nothing; "
        "human waits {h_low:g}–{h_high:g} s (at most {h_cap:g} s) and reads slowly. Change it with "
        '--pace fast|standard|human, MIKA_PACE=fast, or pace = "fast" under [general] in the '
        "config file.{now}",
        "eval": "Pace: every task runs at pace fast (no waits between actions: the simulated phone "
        "needs none), whatever [general] pace says; the default elsewhere, standard, waits "
        "{s_low:g}–{s_high:g} s before each action.",
        "now": " Now: {pace} (from {source}).",
        "flag": "Operating pace for this command: fast (no waits), standard (the default: "
        "{s_low:g}–{s_high:g} s before each action) or human (slower). Beats MIKA_PACE and [general] pace.",
    },
    "zh": {
        "mika": "操作节奏：TUI 和 --no-ui 的运行",
        "run": "操作节奏：本次命令的运行",
        "mcp": "操作节奏：run_task 和 phone_* 工具",
        "serve": "操作节奏：定时任务的运行",
        "body": "{lead}按 [general] pace 设定的节奏操作；默认的 standard 在手机上每次操作前像人一样等 "
        "{s_low:g}–{s_high:g} 秒（最多 {s_cap:g} 秒），从上一次操作结束算起（模型思考的时间不另加），"
        "输入文字分小段打：每次操作合计约 {a_low:g}–{a_high:g} 秒。fast 不等待；human 等 "
        "{h_low:g}–{h_high:g} 秒（最多 {h_cap:g} 秒），读得也慢。修改：--pace fast|standard|human、"
        '环境变量 MIKA_PACE=fast，或在配置文件 [general] 下写 pace = "fast"。{now}',
        "eval": "操作节奏：每个任务都以 fast 运行（操作之间不等待：模拟手机不需要），不管 [general] pace "
        "怎么设；别处的默认 standard 在每次操作前等 {s_low:g}–{s_high:g} 秒。",
        "now": "当前：{pace}（来自 {source}）。",
        "flag": "本次命令的操作节奏：fast（不等待）、standard（默认：每次操作前等 "
        "{s_low:g}–{s_high:g} 秒）或 human（更慢）。优先于 MIKA_PACE 和 [general] pace。",
    },
}

_FIGURES = {
    "s_low": STANDARD_WAIT_S[0],
    "s_high": STANDARD_WAIT_S[1],
    "s_cap": STANDARD_CAP_S,
    "h_low": HUMAN_WAIT_S[0],
    "h_high": HUMAN_WAIT_S[1],
    "h_cap": HUMAN_CAP_S,
    "a_low": STANDARD_PER_ACTION_S[0],
    "a_high": STANDARD_PER_ACTION_S[1],
}


C = TypeVar("C", bound=click.Command)


def _table() -> dict[str, str]:
    # The language rule every text table uses; at --help time only the environment and the
    # locale speak (the config file is not read to print help).
    from mika.config.language import ui_language

    return TEXTS.get(ui_language(), TEXTS["en"])


def _now(table: dict[str, str]) -> str:
    """The pace in force when the environment sets one (the config file is not read here)."""
    for name in ("MIKA_RUN_PACE", "MIKA_PACE"):
        value = os.environ.get(name, "")
        if value in PACES:
            return table["now"].format(pace=value, source=name)
    return ""


def pace_help(face: str) -> str:
    """The paragraph `face`'s --help ends with (one of FACES)."""
    table = _table()
    if face == "eval":
        return table["eval"].format(**_FIGURES)
    return table["body"].format(lead=table[face], now=_now(table), **_FIGURES)


def with_pace_help(face: str, base: type[C]) -> type[C]:
    """`base` (click.Command, click.Group or a subclass) whose help ends with the pace paragraph."""

    def format_epilog(self: click.Command, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        base.format_epilog(self, ctx, formatter)
        formatter.write_paragraph()
        with formatter.indentation():
            formatter.write_text(pace_help(face))

    return type(f"{base.__name__}WithPace", (base,), {"format_epilog": format_epilog})


F = TypeVar("F", bound=Callable[..., Any])


def _apply(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    # MIKA_PACE is the override every face's settings load already honours (and the run's
    # helpers inherit), so the flag sets it for this process rather than adding a second path.
    if value is not None:
        os.environ["MIKA_PACE"] = value
    return value


def pace_option(func: F) -> F:
    """`--pace fast|standard|human` for a command that runs tasks; applied as it is parsed."""
    table = _table()
    return click.option(
        "--pace",
        type=click.Choice(PACES),
        default=None,
        expose_value=False,
        is_eager=True,
        callback=_apply,
        help=table["flag"].format(**_FIGURES),
    )(func)
