"""Which state dir a command reads: the one a parent command set, else the configured one."""

from __future__ import annotations

from pathlib import Path

import click

from mika.config.paths import state_dir


def state_dir_of(ctx: click.Context) -> Path:
    # Tests put one in the root context's obj; `mika` itself leaves it to the config.
    obj = ctx.find_root().obj
    if isinstance(obj, dict) and obj.get("state_dir"):
        return Path(obj["state_dir"])
    return state_dir()
