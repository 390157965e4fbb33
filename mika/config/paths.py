"""Where Mika keeps its config and state (XDG, with overrides)."""

from __future__ import annotations

import os
from pathlib import Path


def config_file(explicit: str | os.PathLike[str] | None = None) -> Path:
    """`--config` beats `MIKA_CONFIG`, which beats `$XDG_CONFIG_HOME/mika/config.toml`."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("MIKA_CONFIG")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "mika" / "config.toml"


def state_dir() -> Path:
    """`MIKA_STATE_DIR` beats `$XDG_STATE_HOME/mika/`."""
    env = os.environ.get("MIKA_STATE_DIR")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "mika"
