"""Every shell command the simulated phone knows; importing this registers them all."""

from mika.sim.shell.commands import basic, fs, props, simctl  # noqa: F401
