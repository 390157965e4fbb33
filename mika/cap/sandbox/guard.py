"""SandboxGuard (seed §6): a run's sandbox commands are stopped when they go in circles or
have spent the run's CPU time.

- The same command failing the same way (same exit, same last lines of error output)
  REPEAT_LIMIT times is not run again in this run: the model must change the command
  (seed "同一条命令反复失败会被叫停"). A success, or a different failure, starts the count
  over for that command.
- The CPU time of all the run's commands together is budgeted (`[sandbox] cpu_seconds`);
  each command may use at most what is left (its RLIMIT_CPU), and once it is spent no
  further command starts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mika.cap.sandbox.port import CommandResult
from mika.resources import prompt

REPEAT_LIMIT = 3
_SIGNATURE_TAIL = 400  # characters of error output that make a failure "the same"


def _key(command: str) -> str:
    return " ".join(command.split())


def _signature(result: CommandResult) -> str:
    why = "timeout" if result.timed_out else "cpu" if result.cpu_limited else str(result.exit_code)
    return why + "|" + result.stderr.text[-_SIGNATURE_TAIL:].strip()


@dataclass
class SandboxGuard:
    cpu_budget: float
    spent: float = 0.0
    _failures: dict[str, tuple[str, int]] = field(default_factory=dict)

    @property
    def remaining(self) -> float:
        return max(0.0, self.cpu_budget - self.spent)

    def refusal(self, command: str | None) -> tuple[str, str] | None:
        """(code, sentence) when this command must not start, else None."""
        if self.remaining < 0.5:
            return "cpu_budget_spent", prompt("feedback/sandbox_budget_spent.md").format(
                budget=f"{self.cpu_budget:g}", spent=f"{self.spent:.1f}"
            )
        if command is not None:
            seen = self._failures.get(_key(command))
            if seen is not None and seen[1] >= REPEAT_LIMIT:
                return "repeated_failure", prompt("feedback/sandbox_repeated_failure.md").format(limit=REPEAT_LIMIT)
        return None

    def charge(self, result: CommandResult) -> None:
        """Every command's CPU time counts against the budget (SandboxSession.run charges it)."""
        self.spent += max(0.0, result.cpu_seconds)

    def record(self, command: str, result: CommandResult) -> int:
        """Note how `command` ended (its time is charged elsewhere); returns how many times
        in a row it failed this way."""
        key = _key(command)
        if result.ok:
            self._failures.pop(key, None)
            return 0
        sig = _signature(result)
        seen = self._failures.get(key)
        count = seen[1] + 1 if seen is not None and seen[0] == sig else 1
        self._failures[key] = (sig, count)
        return count
