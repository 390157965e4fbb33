"""share_file: a workspace file copied to the user's downloads folder (`Mika/`), shown as a
file card in the chat (the FileShared event) or its path headless.

Never overwrites: a name already there gets " (2)", " (3)"… before its suffix. The copy is
written to a temp file and linked into place (link fails on an existing name, so two
shares at once can't take the same one), then the temp name is removed.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from mika.cap.sandbox.tools.base import SandboxTool, text_arg
from mika.cap.sandbox.workspace import PathRefused, Workspace
from mika.record.events import FileShared
from mika.tool.context import ToolContext
from mika.tool.declaration import Risk, ToolOutcome

SHARE_MAX = 500_000_000  # bytes of one shared file
_TRIES = 1000


def free_name(folder: Path, name: str, index: int) -> Path:
    if index == 1:
        return folder / name
    stem, dot, suffix = name.rpartition(".") if "." in name.lstrip(".") else (name, "", "")
    return folder / (f"{stem} ({index}){dot}{suffix}")


def share(ws: Workspace, path: str, folder: Path) -> tuple[Path, str, int]:
    """(where it landed, its workspace path, size)."""
    fd, real = ws.open_file(path)
    with os.fdopen(fd, "rb") as src:
        size = os.fstat(src.fileno()).st_size
        if size > SHARE_MAX:
            raise PathRefused(f"{path!r} is {size} bytes; share_file takes files up to {SHARE_MAX} bytes")
        folder.mkdir(parents=True, exist_ok=True)
        tmp_fd, tmp = tempfile.mkstemp(prefix=".mika-share-", dir=folder)
        try:
            with os.fdopen(tmp_fd, "wb") as dst:
                shutil.copyfileobj(src, dst)
                dst.flush()
                os.fsync(dst.fileno())
            os.chmod(tmp, 0o644)
            for i in range(1, _TRIES + 1):
                target = free_name(folder, real.name, i)
                try:
                    os.link(tmp, target)
                except FileExistsError:
                    continue
                return target, ws.inside(real), size
        finally:
            os.unlink(tmp)
    raise PathRefused(f"{folder} already holds {_TRIES} files named like {real.name!r}; rename it first")


class ShareFile(SandboxTool):
    name = "share_file"
    risk = Risk.WRITE
    parameters = {
        "type": "object",
        "properties": {"path": {"type": "string", "description": "The workspace file to give the user."}},
        "required": ["path"],
    }

    async def act(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        path = text_arg(args, "path")
        target, inside, size = await asyncio.to_thread(share, session.workspace, path, session.share_dir)
        ctx.emit(
            FileShared(
                run_id=ctx.run_id,
                conversation_id=ctx.spec.conversation_id,
                step=ctx.step,
                name=target.name,
                path=str(target),
                size=size,
                source=inside,
            )
        )
        return ToolOutcome(
            text=f"Shared {inside} with the user: saved as {target} ({size} bytes); they see it as a file in the chat.",
            data={"path": str(target), "source": inside, "size": size},
        )
