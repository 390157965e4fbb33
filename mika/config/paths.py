"""Where Mika keeps its config and state: the platform's own places (platformdirs: XDG on
Linux, ~/Library/Application Support on macOS, %LOCALAPPDATA% on Windows — adb users are
on all three), with overrides that always win."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP = "mika"
CONFIG_ENV = "MIKA_CONFIG"
STATE_ENV = "MIKA_STATE_DIR"
DATA_ENV = "MIKA_DATA_DIR"
DOWNLOADS_ENV = "MIKA_DOWNLOADS_DIR"


def _dirs() -> platformdirs.PlatformDirs:
    # Built per call: platformdirs reads XDG_CONFIG_HOME / XDG_STATE_HOME when asked, so a
    # change of environment (a test, a wrapper script) is seen. appauthor=False keeps
    # Windows from nesting a second "mika" folder for the vendor.
    return platformdirs.PlatformDirs(APP, appauthor=False)


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


def config_file(explicit: str | os.PathLike[str] | None = None) -> Path:
    """`--config` beats `MIKA_CONFIG`, which beats the platform's config folder
    (`$XDG_CONFIG_HOME/mika/config.toml` on Linux)."""
    if explicit:
        return Path(explicit).expanduser()
    return _env_path(CONFIG_ENV) or _dirs().user_config_path / "config.toml"


def state_dir() -> Path:
    """`MIKA_STATE_DIR` beats the platform's state folder (`$XDG_STATE_HOME/mika/` on Linux)."""
    return _env_path(STATE_ENV) or _dirs().user_state_path


def data_dir() -> Path:
    """`MIKA_DATA_DIR` beats the platform's data folder (`$XDG_DATA_HOME/mika/` on Linux):
    what the user adds to Mika (their own knowledge and skills, learned skills)."""
    return _env_path(DATA_ENV) or _dirs().user_data_path


def workspace_dir(state: Path, conversation_id: str) -> Path:
    """A conversation's sandbox workspace (`workspaces/<conversation>/`, `/workspace`
    inside): the sandbox runs commands in it and the phone's file pulls land in it, so both
    capabilities find it here rather than in each other. A conversation id is Mika's own
    short hex, but an id is checked anyway so no name can point outside `workspaces/`."""
    name = conversation_id or "no-conversation"
    if name in (".", "..") or not all(c.isalnum() or c in "-_" for c in name):
        raise ValueError(f"not a conversation id for a workspace: {conversation_id!r}")
    return state / "workspaces" / name


def routes_dir(state: Path) -> Path:
    """Where recorded routes live (seed §9 经验回放): `routes/`, one JSON file a route."""
    return state / "routes"


def schedules_file(state: Path) -> Path:
    """The schedules and their windows (`schedules.json` in the state folder): the one
    file `mika serve`, `mika schedule`, the schedule_task tool and the TUI share."""
    return state / "schedules.json"


def chatgpt_auth_file(state: Path) -> Path:
    """The ChatGPT sign-in's tokens (`auth/chatgpt.json`, 0600): the only file that may hold
    them (mika.model.chatgpt.token_store writes it; mika.config.secret_discovery registers
    what it holds so every other write and output masks it)."""
    return state / "auth" / "chatgpt.json"


def downloads_dir() -> Path:
    """Where files the sandbox shares land: `MIKA_DOWNLOADS_DIR`, else the user's downloads
    folder (platformdirs: XDG_DOWNLOAD_DIR, ~/Downloads) with a `Mika/` folder of its own."""
    return _env_path(DOWNLOADS_ENV) or Path(platformdirs.user_downloads_dir()) / "Mika"
