"""`mika run GOAL` (also `mika --no-ui GOAL`): one task headless, its answer on stdout."""

from __future__ import annotations

import sys

import click

from mika.pace_help import pace_option, with_pace_help


@click.command("run", cls=with_pace_help("run", click.Command))
@click.argument("goal", nargs=-1, required=True)
@click.option(
    "--output-format", "fmt", type=click.Choice(["text", "json", "stream-json"]), default="text", show_default=True
)
@click.option(
    "--max-steps", type=click.IntRange(min=1), default=None, help="End the run after this many steps (exit 6)."
)
@click.option("--read-only", is_flag=True, help="Only read: no tool that changes anything is offered.")
@click.option(
    "--web-only",
    is_flag=True,
    help="Use only Mika's own browser: no phone (the adb server is not touched); no browser is exit 3.",
)
@click.option(
    "--ask/--no-ask",
    default=None,
    help="Ask approvals and questions on this terminal (default: when stdin and stderr are a terminal).",
)
@click.option("--conversation", "conversation_id", default=None, help="Continue this conversation.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None)
@click.option("--device", default=None, help="Phone serial, 'sim' for the simulated phone, or 'none'.")
@click.option("--model", default=None, help="Main model as PROVIDER/MODEL, or script:PATH.")
@pace_option
@click.pass_context
def run_command(
    ctx: click.Context,
    goal: tuple[str, ...],
    fmt: str,
    max_steps: int | None,
    read_only: bool,
    web_only: bool,
    ask: bool | None,
    conversation_id: str | None,
    config_path: str | None,
    device: str | None,
    model: str | None,
) -> None:
    """Run one task headless and print its answer (also: mika --no-ui GOAL)."""
    parent = ctx.obj or {}
    # The whole run (models, the phone layer) loads only when a run is asked for.
    from mika.headless_command import headless_main

    code = headless_main(
        goal=" ".join(goal).strip(),
        fmt=fmt,
        max_steps=max_steps,
        read_only=read_only,
        web_only=web_only,
        conversation_id=conversation_id,
        config_path=config_path or parent.get("config"),
        device=device or parent.get("device"),
        model=model or parent.get("model"),
        ask=ask,
    )
    sys.exit(int(code))
