"""The `mika` subcommands, one module per command group; `mika/cli.py` joins them.

A command module imports only click and cheap parts of Mika at module level: everything
heavy (the ADB layer, HTTP clients, Pillow, the simulated phone) is imported inside the
command that needs it, so `mika --help` and `mika GROUP --help` stay fast.
tests/core/test_cli_imports.py holds that.
"""
