"""The simulated phone's world; `make_device` is what the adbd side calls."""

from __future__ import annotations

from mika.sim.faults import FaultSpec
from mika.sim.world.phone import Phone


def make_device(serial: str, scenario: str | None = None, faults: FaultSpec | None = None) -> Phone:
    """A fresh simulated phone in `scenario` (default: "default"); raises ScenarioError
    for an unknown scenario name, with the known names in the message."""
    return Phone(serial, scenario, faults)


__all__ = ["FaultSpec", "Phone", "make_device"]
