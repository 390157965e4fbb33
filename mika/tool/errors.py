"""Faults a tool can raise; the dispatcher turns each into a tool result, never a traceback."""

from __future__ import annotations


class ToolFault(Exception):
    """A failure with a machine code and a sentence for the model and the user."""

    code = "tool_failed"
    # When True the run cannot go on (the device is gone): the loop ends it.
    ends_run = False
    end_subtype = ""

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        if code:
            self.code = code


class BadArguments(ToolFault):
    code = "bad_arguments"


class DeviceUnavailable(ToolFault):
    """The device dropped and did not come back in time."""

    code = "device_unavailable"
    ends_run = True
    end_subtype = "device_unavailable"
