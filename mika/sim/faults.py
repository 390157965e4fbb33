"""Faults the simulated phone can be told to show, parsed from one spec string.

Spec form (`mika sim --faults …`, `simctl fault …`): comma-separated `key=value` pairs,
e.g. "drop_after=5,slow_ms=200,dialog=update". Keys:

  drop_after=N    drop the whole ADB connection at the N-th OPEN (a pulled cable)
  slow_ms=N       every command waits N ms before it is answered
  null_root=N     the next N dumps find no root: `uiautomator dump` answers "null root node
                  returned by UiTestAutomationBridge.", uiautomator2 an empty
                  `<hierarchy rotation="0" />` (and its node lookups find nothing)
  idle_timeout=N  the next N dumps or uiautomator2 node calls time out waiting for idle:
                  `uiautomator dump` answers "ERROR: could not get idle state.",
                  uiautomator2 a JSON-RPC error (java.util.concurrent.TimeoutException)
  bad_xml=N       the next N dumps (either path) give malformed XML
  bad_png=N       the next N screenshots (screencap or uiautomator2) give a corrupted image
  rpc_error=N     the next N uiautomator2 JSON-RPC calls answer "UiAutomation not connected"
  http_500=N      the next N uiautomator2 HTTP requests answer 500 Internal Server Error
  dialog=NAME     a dialog named NAME pops over the current screen
  crash=PACKAGE   the app PACKAGE crashes the next time it starts (once): no task stays,
                  and the crash buffer (`logcat -b crash`) holds its FATAL EXCEPTION

The world owns the live faults (simctl may change them at run time) and raises
ConnectionDrop from `before_command` when drop_after is reached; the adbd only reads the
delay (`SimDevice.command_delay`) on every OPEN. Counting and one-shot semantics are the
world's.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

# Faults consumed one at a time by the commands or calls they hit (the world counts them).
ONE_SHOT = ("null_root", "idle_timeout", "bad_xml", "bad_png", "rpc_error", "http_500")
_COUNTS = ("drop_after", "slow_ms", *ONE_SHOT)
_NAMES = ("dialog", "crash")


class FaultSpecError(ValueError):
    """A fault spec the user typed cannot be read; the message says what to fix."""

    def __init__(self, spec: str, problem: str) -> None:
        self.spec = spec
        self.problem = problem
        super().__init__(
            f"bad fault spec {spec!r}: {problem}. "
            f"Write key=value pairs separated by commas, keys: {', '.join(_COUNTS + _NAMES)} "
            f"(e.g. drop_after=5,slow_ms=200)."
        )


@dataclass(frozen=True)
class FaultSpec:
    drop_after: int | None = None
    slow_ms: int = 0
    null_root: int = 0
    idle_timeout: int = 0
    bad_xml: int = 0
    bad_png: int = 0
    rpc_error: int = 0
    http_500: int = 0
    dialog: str | None = None
    crash: str | None = None

    @classmethod
    def parse(cls, spec: str | None) -> FaultSpec:
        """Parse "key=value,…"; empty or None means no faults."""
        values: dict[str, int | str] = {}
        for raw in (spec or "").split(","):
            item = raw.strip()
            if not item:
                continue
            key, sep, value = item.partition("=")
            key, value = key.strip(), value.strip()
            if not sep or not value:
                raise FaultSpecError(spec or "", f"{item!r} has no value")
            if key in values:
                raise FaultSpecError(spec or "", f"{key} is given twice")
            if key in _COUNTS:
                if not value.isdigit():
                    raise FaultSpecError(spec or "", f"{key} needs a whole number ≥ 0, got {value!r}")
                values[key] = int(value)
            elif key in _NAMES:
                values[key] = value
            else:
                raise FaultSpecError(spec or "", f"unknown key {key!r}")
        if values.get("drop_after") == 0:
            raise FaultSpecError(spec or "", "drop_after must be at least 1")
        return cls(**values)  # type: ignore[arg-type]

    def with_values(self, **changes: int | str | None) -> FaultSpec:
        return replace(self, **changes)  # type: ignore[arg-type]

    def to_spec(self) -> str:
        """The spec string that parses back to this value (defaults left out)."""
        parts = []
        for f in fields(self):
            value = getattr(self, f.name)
            if value != f.default:
                parts.append(f"{f.name}={value}")
        return ",".join(parts)

    @property
    def any(self) -> bool:
        return self != FaultSpec()
