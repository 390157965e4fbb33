"""phone_pull_file: copy a file the user named from the phone into the conversation's
workspace (`adb pull`, sync RECV), where the sandbox's commands and file tools find it.

The phone capability knows no sandbox: the workspace is the conversation's folder from
`mika.config.paths.workspace_dir` (the same one the sandbox runs in; a run outside a
conversation uses `run-<id>`, as the sandbox does). Files land in `/workspace/phone/`.

What is refused, and why:
- paths outside the phone's shared storage (/sdcard, /storage): that is where the user's
  own files are (Download, DCIM, Documents, an SD card). Everything else is the system's or
  an app's (/data, /system, /proc), and nothing the user names as "my file"; reading it
  would hand device internals to the model. No exception: a file elsewhere can be copied
  to /sdcard by the user first.
- any `..` in the path, relative paths, control characters;
- files over 200 MB (the attachment cap), folders and special files;
- an existing file in the workspace is never overwritten: the copy gets a suffix
  (`report-2.pdf`); a `phone` folder that a command replaced with a link is refused.
"""

from __future__ import annotations

import os
import posixpath
import secrets
from pathlib import Path
from typing import Any

from mika.cap.phone.port import PullError
from mika.cap.phone.tools.base import PhoneTool
from mika.config.paths import state_dir, workspace_dir
from mika.tool.context import ToolContext
from mika.tool.declaration import ToolOutcome
from mika.tool.errors import BadArguments

PULL_MAX = 200 * 1024 * 1024
ROOTS = ("/sdcard", "/storage")
SUBDIR = "phone"
NAME_MAX = 200


def phone_path(raw: Any) -> str:
    """The phone path, checked (BadArguments names what is wrong)."""
    if not isinstance(raw, str) or not raw.strip():
        raise BadArguments("'path' is required: the file's path on the phone, e.g. /sdcard/Download/report.pdf")
    path = raw.strip()
    if any(ord(c) < 32 for c in path):
        raise BadArguments("the path has control characters in it")
    if not path.startswith("/"):
        raise BadArguments(f"give the full path on the phone, starting with /sdcard/ (not {path!r})")
    if ".." in path.split("/"):
        raise BadArguments("a path with '..' in it is not pulled; give the file's own path")
    clean = posixpath.normpath(path)
    if not any(clean.startswith(root + "/") for root in ROOTS):
        raise BadArguments(
            f"only files in the phone's shared storage (/sdcard/…, /storage/…) are pulled, not {clean}: "
            "the rest belongs to the system or to apps"
        )
    return clean


def free_name(folder: Path, name: str) -> str:
    """`name`, or `stem-2.ext`, `stem-3.ext`… the first that does not exist in `folder`."""
    stem, ext = os.path.splitext(name)
    candidate, n = name, 1
    while os.path.lexists(folder / candidate):
        n += 1
        candidate = f"{stem}-{n}{ext}"
    return candidate


class PhonePullFile(PhoneTool):
    group = "phone_more"  # the less common tools: listed by phone_more until opened
    name = "phone_pull_file"
    parameters = {
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "description": "The file's full path on the phone, under /sdcard/ or /storage/.",
            },
        },
        "required": ["path"],
    }

    def __init__(self, states: Path | None = None) -> None:
        # Where the workspaces live (the state folder); None: the user's, found per call.
        self._states = states

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        path = phone_path(args.get("path"))
        name = posixpath.basename(path)[:NAME_MAX].lstrip(".") or "file"
        root = workspace_dir(self._states or state_dir(), ctx.spec.conversation_id or f"run-{ctx.spec.id}")
        folder = root / SUBDIR
        root.mkdir(parents=True, exist_ok=True, mode=0o700)
        if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
            return ToolOutcome.error(
                "path_refused", f"/workspace/{SUBDIR} is not a plain folder (a link?); remove it and pull again"
            )
        folder.mkdir(exist_ok=True, mode=0o700)
        if folder.resolve().parent != root.resolve():
            return ToolOutcome.error("path_refused", f"/workspace/{SUBDIR} leads outside the workspace")
        part = folder / f".pull-{secrets.token_hex(4)}.part"
        try:
            size = await self.session(ctx).port.pull(path, part, PULL_MAX)
        except PullError as exc:
            return ToolOutcome.error("pull_failed", f"{exc}. Nothing was copied.")
        # The final name never replaces a file: link() fails on an existing one, then try the next.
        try:
            while True:
                final = free_name(folder, name)
                try:
                    os.link(part, folder / final)
                    break
                except FileExistsError:
                    continue
        finally:
            part.unlink(missing_ok=True)
        inside = f"/workspace/{SUBDIR}/{final}"
        renamed = "" if final == name else f" ({name} was taken there, so it is {final})"
        return ToolOutcome(
            text=f"Copied {path} from the phone to {inside}, {size} bytes{renamed}.",
            data={"path": inside, "bytes": size, "from": path},
        )
