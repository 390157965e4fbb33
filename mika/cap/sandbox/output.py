"""A command's result as the model reads it: Mika's line (exit, times, budget) outside the
fence, everything the command printed inside it — once, here, where the observation is
built (DESIGN §3) — and Mika's notes on what was cut or stopped after it."""

from __future__ import annotations

from mika.cap.sandbox.guard import REPEAT_LIMIT, SandboxGuard
from mika.cap.sandbox.port import CommandResult, Stream
from mika.observe.observation import Observation, ObsKind, Place
from mika.tool.declaration import ToolOutcome


def _how_it_ended(result: CommandResult, timeout: float) -> tuple[str, str]:
    """(code, Mika's words) for how the command ended."""
    if result.timed_out:
        return "timeout", f"Stopped at its timeout of {timeout:g} s"
    if result.cpu_limited:
        return "cpu_limit", "Stopped: it used all the CPU time this run had left"
    if result.exit_code is None:
        return "killed", f"Ended by signal {result.signal}"
    if result.exit_code != 0:
        return "command_failed", f"Exited with code {result.exit_code}"
    return "done", "Exited 0"


def _cut_note(name: str, stream: Stream) -> str:
    if not stream.cut_bytes:
        return ""
    return f"{name}: {stream.total_bytes} bytes printed, {stream.cut_bytes} cut from the middle (marked)."


def command_outcome(
    label: str,
    result: CommandResult,
    guard: SandboxGuard,
    *,
    timeout: float,
    step: int = 0,
    failures: int = 0,
    source: str = "command",
) -> ToolOutcome:
    code, ended = _how_it_ended(result, timeout)
    head = (
        f"{ended} · {result.wall_seconds:.1f} s · CPU {result.cpu_seconds:.1f} s "
        f"({guard.remaining:.0f} s of the run's {guard.cpu_budget:g} s left)"
    )
    parts = []
    if result.stdout.text:
        parts.append(("stdout", result.stdout.text))
    if result.stderr.text:
        parts.append(("stderr", result.stderr.text))
    if len(parts) == 1 and parts[0][0] == "stdout":
        body = parts[0][1].rstrip("\n")
    else:
        body = "\n".join(f"--- {name} ---\n{text.rstrip(chr(10))}" for name, text in parts)
    notes = [n for n in (_cut_note("stdout", result.stdout), _cut_note("stderr", result.stderr)) if n]
    if failures >= 2:
        left = REPEAT_LIMIT - failures
        notes.append(
            f"This command has now failed the same way {failures} times in a row; "
            + ("it will not be run again." if left <= 0 else f"after {left} more it is stopped. Change the approach.")
        )
    if not body:
        body = ""
        head += " · printed nothing"
    obs = Observation.build(
        ObsKind.OUTPUT,
        "sandbox",
        body,
        title=label[:120],
        place=Place.command(label),
        step=step,
        fence_attrs={"source": source, "command": label},
        head=head,
        tail="\n".join(notes),
    )
    return ToolOutcome(
        text=obs.text,
        ok=code == "done",
        code=code,
        observations=(obs,),
        data={
            "exit_code": result.exit_code,
            "wall_seconds": round(result.wall_seconds, 3),
            "cpu_seconds": round(result.cpu_seconds, 3),
            "cpu_left": round(guard.remaining, 1),
            "stdout_bytes": result.stdout.total_bytes,
            "stderr_bytes": result.stderr.total_bytes,
            "cut_bytes": result.stdout.cut_bytes + result.stderr.cut_bytes,
        },
    )
