"""The `mika` console script: the CLI, with the terminal app plugged in.

Importing this module does not load Textual; only opening the app does.
"""

from __future__ import annotations

from typing import Any

from mika import cli


def _open(**kwargs: Any) -> int:
    from mika_tui.app import run_app

    return run_app(**kwargs)


def main() -> None:
    cli.set_tui_opener(_open)
    cli.main()


if __name__ == "__main__":
    main()
