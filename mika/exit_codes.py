"""Exit codes of the `mika` command: one IntEnum, documented in --help."""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    DONE = 0
    NOT_DONE = 1
    USAGE = 2  # bad usage or config
    DEVICE = 3  # no device, several devices, device lost
    MODEL = 4  # the model provider failed
    APPROVAL = 5  # a payment step needed approval that nobody could give, or it was refused
    BUDGET = 6  # the step budget was used up
    INTERRUPTED = 130  # SIGINT / stopped
