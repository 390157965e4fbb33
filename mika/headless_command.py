"""Everything `mika run` / `mika --no-ui` does before and after the run itself."""

from __future__ import annotations

import asyncio
import sys

from mika.assembly import RunEnvironment, capabilities_for
from mika.cap.phone import PhoneOpenError, open_phone
from mika.cap.phone.adb.restore import phone_ledger
from mika.config.errors import ConfigError
from mika.config.paths import state_dir
from mika.config.secret_discovery import register_configured_secrets
from mika.config.settings import load_settings
from mika.exit_codes import ExitCode
from mika.headless import UnknownConversation, run_headless
from mika.model.errors import ModelError
from mika.model_select import select_models
from mika.record.redactor import Redactor
from mika.run.spec import RunSpec
from mika.run.task_run import RunOptions, TaskRun
from mika.terminal_text import echo


def _err(message: str) -> None:
    echo(f"mika: {message}", err=True)


def headless_main(
    *,
    goal: str,
    fmt: str,
    max_steps: int | None,
    read_only: bool,
    conversation_id: str | None,
    config_path: str | None,
    device: str | None,
    model: str | None,
) -> ExitCode:
    if not goal:
        _err("give the task in words, e.g. mika --no-ui \"turn on dark mode\"")
        return ExitCode.USAGE
    try:
        settings = load_settings(config_path)
        register_configured_secrets(settings)
        sdir = state_dir()
        chosen = select_models(settings, model, sdir)
    except ConfigError as exc:
        _err(str(exc))
        return ExitCode.USAGE
    except ModelError as exc:
        _err(exc.user_message())
        return ExitCode.MODEL
    from mika.run.ui_text import set_language

    set_language(settings.ui_language)
    try:
        phone = PhoneChoice.open(device or settings.device or None, sdir)
    except PhoneOpenError as exc:
        chosen.close()
        _err(str(exc))
        return ExitCode.DEVICE

    def factory(spec: RunSpec) -> TaskRun:
        # One redactor per run: what the phone types into a password field is masked in
        # that run's record.
        redactor = Redactor()
        opener = (lambda: phone.capability(redact=redactor.add_secret)) if phone.serial else None
        env = RunEnvironment(autonomous=settings.autonomous, state_dir=sdir, phone=opener)
        options = RunOptions(autonomous=settings.autonomous, state_dir=sdir, redactor=redactor,
                             judge_outcome=settings.judge_outcome and not chosen.scripted,
                             review_final_answer=settings.review_final_answer)
        return TaskRun(spec, chosen.main, capabilities_for(spec, env), options, light=chosen.light)

    try:
        outcome = asyncio.run(run_headless(
            goal, factory, sdir, conversation_id=conversation_id, read_only=read_only,
            step_budget=max_steps or 0, fmt=fmt, out=sys.stdout, err=sys.stderr, borrowed=phone_ledger(sdir),
        ))
    except UnknownConversation as exc:
        _err(f"no conversation {exc.args[0]!r} (see `mika conversations list`)")
        return ExitCode.USAGE
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
    finally:
        phone.close()
        chosen.close()
    return outcome.exit_code


class PhoneChoice:
    """The phone for this process: picked once (and the simulated phone started once),
    then a fresh capability per run on that serial."""

    def __init__(self, serial: str, sim=None, state_dir=None) -> None:
        self.serial = serial
        self._sim = sim
        self._state_dir = state_dir

    @staticmethod
    def open(device: str | None, state_dir) -> PhoneChoice:
        if device == "none":
            return PhoneChoice("", None, state_dir)  # a run without a phone
        if device == "sim":
            from mika.sim.launch import SimLaunchError, start_sim

            try:
                sim = start_sim()
            except SimLaunchError as exc:
                raise PhoneOpenError(str(exc)) from None
            return PhoneChoice(sim.serial, sim, state_dir)
        from mika.cap.phone.adb.devices import DeviceChoiceError, pick_serial
        from mika.cap.phone.adb.server import AdbServerError, adb_client

        try:
            return PhoneChoice(pick_serial(adb_client(), device), None, state_dir)
        except (AdbServerError, DeviceChoiceError) as exc:
            raise PhoneOpenError(str(exc)) from None

    def capability(self, redact=None):
        return open_phone(self.serial, state_dir=self._state_dir, redact=redact)

    def close(self) -> None:
        if self._sim is not None:
            self._sim.close()
            self._sim = None
