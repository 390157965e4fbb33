"""`mika serve`: the long-running process that fires schedules (seed §10).

Foreground: one line on stdout per window (when, which, what came of it); diagnostics on
stderr. SIGTERM or Ctrl-C stops taking new windows, stops the run under way cleanly
through the TaskCenter (it finishes its current step) and exits 0. At start, what a
killed `mika serve` (or any Mika) left unfinished is settled first: windows it claimed
(mika.trigger.runtime.recover), then interrupted runs (mika.run.recovery.settle).

A systemd user unit that keeps it running is in docs/serve.md.
"""

from __future__ import annotations

import sys

import click

from mika.pace_help import pace_option, with_pace_help


@click.command("serve", cls=with_pace_help("serve", click.Command))
@click.option(
    "--poll",
    "poll_s",
    type=click.FloatRange(min=0.1, max=60),
    default=1.0,
    show_default=True,
    help="Seconds between looks at the schedules.",
)
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None)
@click.option("--device", default=None, help="Phone serial, 'sim' for the simulated phone, or 'none'.")
@click.option("--model", default=None, help="Main model as PROVIDER/MODEL, or script:PATH.")
@pace_option
@click.pass_context
def serve_command(
    ctx: click.Context, poll_s: float, config_path: str | None, device: str | None, model: str | None
) -> None:
    """Fire schedules: reminders, scheduled tasks and conditions (foreground; SIGTERM stops)."""
    parent = ctx.obj or {}
    from mika.commands.serve_host import serve_main

    code = serve_main(
        config_path=config_path or parent.get("config"),
        device=device or parent.get("device"),
        model=model or parent.get("model"),
        poll_s=poll_s,
    )
    sys.exit(int(code))
