"""Every shell command the simulated phone knows; importing this registers them all."""

from mika.sim.shell.commands import am, appops, basic, dumpsys, fs, input, net, pm, procs, props, simctl, ui  # noqa: F401
