"""A Python adbd: the simulated phone's side of the ADB transport over TCP.

`Transport` serves one host connection for one `SimDevice`; `mika.sim.server` listens
and hands each accepted connection to it.
"""

from .transport import Transport

__all__ = ["Transport"]
