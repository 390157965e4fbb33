"""Every command the simulated phone's shell knows: importing this registers them all (the
interpreter does, mika/sim/shell/interp.py)."""

from mika.sim.shell.commands import (  # noqa: F401
    am,
    appops,
    basic,
    dumpsys,
    fs,
    input,
    logcat,
    net,
    pm,
    procs,
    props,
    screenrecord,
    simctl,
    ui,
)
