"""Everything `mika run` / `mika --no-ui` does before and after the run itself."""

from __future__ import annotations

import asyncio
import sys

from mika.assembly import Assembly
from mika.assembly.device import phone_open_error
from mika.assembly.restorers import borrowed_ledger
from mika.config.errors import ConfigError
from mika.config.settings import load_settings
from mika.exit_codes import ExitCode
from mika.headless import UnknownConversation, run_headless
from mika.model.errors import ModelError
from mika.terminal_text import echo


def _person_at_terminal(ask: bool | None, fmt: str) -> bool:
    """`--ask` / `--no-ask` decide; by default a person is there when stdin and stderr
    are both a terminal and the output is text (a JSON consumer is a program)."""
    if ask is not None:
        return ask
    return fmt == "text" and sys.stdin.isatty() and sys.stderr.isatty()


def _err(message: str) -> None:
    echo(f"mika: {message}", err=True)


def headless_main(
    *,
    goal: str,
    fmt: str,
    max_steps: int | None,
    read_only: bool,
    conversation_id: str | None,
    web_only: bool = False,
    config_path: str | None,
    device: str | None,
    model: str | None,
    ask: bool | None = None,
) -> ExitCode:
    if not goal:
        _err('give the task in words, e.g. mika --no-ui "turn on dark mode"')
        return ExitCode.USAGE
    if web_only and device not in (None, "none"):
        _err(f"--web-only runs without a phone; drop --device {device} (or drop --web-only to use the phone)")
        return ExitCode.USAGE
    try:
        asm = open_assembly(config_path, device=device, model=model, web_only=web_only)
    except ConfigError as exc:
        _err(str(exc))
        return ExitCode.USAGE
    except ModelError as exc:
        _err(exc.user_message())
        return ExitCode.MODEL
    except _device_errors() as exc:
        # No phone, or (--web-only) no browser: the device the run needs is unavailable.
        _err(str(exc))
        return ExitCode.DEVICE
    try:
        outcome = asyncio.run(
            run_headless(
                goal,
                asm.make_run,
                asm.state_dir,
                conversation_id=conversation_id,
                read_only=read_only,
                step_budget=max_steps or 0,
                fmt=fmt,
                out=sys.stdout,
                err=sys.stderr,
                borrowed=borrowed_ledger(asm.state_dir),
                person=sys.stdin if _person_at_terminal(ask, fmt) else None,
                make_center=lambda conversations, outbox: asm.task_center(
                    outbox=outbox, conversations=conversations, limit=1
                ),
            )
        )
    except UnknownConversation as exc:
        _err(f"no conversation {exc.args[0]!r} (see `mika conversations list`)")
        return ExitCode.USAGE
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
    finally:
        asm.close()
    return outcome.exit_code


def _device_errors() -> tuple[type[Exception], ...]:
    # Imported only while an exception is matched: a start without a phone or a browser
    # never loads their capabilities for this clause.
    from mika.cap.web.port import NoBrowser

    return (phone_open_error(), NoBrowser)


def open_assembly(
    config_path: str | None,
    *,
    device: str | None,
    model: str | None,
    web_only: bool = False,
    prepare_models: bool = True,
    wait_for_phone: bool = True,
) -> Assembly:
    """Headless mode's assembly: strict, so a missing model or phone is an exit code.
    `prepare_models` / `wait_for_phone`: as Assembly.open's (the MCP face defers both)."""
    return Assembly.open(
        load_settings(config_path),
        device=device,
        model=model,
        web_only=web_only,
        prepare_models=prepare_models,
        wait_for_phone=wait_for_phone,
    )
