"""Recovery at start puts the state folder right: 0700, and no temp files a kill left."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

from mika.atomic_write import STALE_TEMP_S, write_json
from mika.run.recovery import recover_at_start


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_an_older_open_state_folder_is_closed_to_others_at_start(tmp_path: Path) -> None:
    root = tmp_path / "state"
    root.mkdir()
    os.chmod(root, 0o755)  # as an older Mika, or `mkdir` under a 022 umask, left it
    write_json(root / "run-state.json", {"runs": {}})
    recover_at_start(root)
    assert _mode(root) == 0o700
    assert _mode(root / "run-state.json") == 0o600


def test_temp_files_left_by_a_kill_are_removed_but_a_write_in_progress_is_not(tmp_path: Path) -> None:
    root = tmp_path / "state"
    (root / "conversations").mkdir(parents=True)
    stale = root / "conversations" / ".c1.json.k3j2.tmp"
    stale.write_text('{"half": ')
    old = time.time() - STALE_TEMP_S - 5
    os.utime(stale, (old, old))
    fresh = root / ".outbox.json.x9.tmp"  # another live process is between write and rename
    fresh.write_text("{}")
    kept = root / "conversations" / "c1.json"
    write_json(kept, {"id": "c1"})
    recover_at_start(root)
    assert not stale.exists()
    assert fresh.exists()
    assert kept.exists()
