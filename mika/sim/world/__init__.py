"""The simulated phone's state: the World and its displays, nodes, files, props and clock.

Imports nothing: importing one of its modules must not load the phone above it (the
device itself, with make_device, is mika/sim/phone.py)."""
