"""read_file, write_file, search_files: the workspace from the host side.

Every path goes through Workspace (mika.cap.sandbox.workspace): inside /workspace after
`..` and symlinks, or refused. What a file holds comes back fenced (it may have been made
by a command from a page's text); Mika's line with the path and size stays outside.
"""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path
from typing import Any

from mika.atomic_write import write_bytes
from mika.cap.sandbox.tools.base import SandboxTool, int_arg, text_arg
from mika.cap.sandbox.workspace import PathRefused, Workspace
from mika.observe.observation import Observation, ObsKind, Place
from mika.tool.context import ToolContext
from mika.tool.declaration import Risk, ToolOutcome
from mika.tool.errors import BadArguments

READ_DEFAULT = 8000  # characters of a file shown by default
READ_MAX = 40_000
WRITE_MAX = 2_000_000  # bytes write_file takes in one call (bigger files: a command makes them)
SEARCH_FILES_MAX = 2000  # files looked at by one search
SEARCH_HITS_MAX = 100
SEARCH_FILE_BYTES = 2_000_000  # a file bigger than this is skipped by the text search
_BINARY_SNIFF = 8192


def file_observation(ws: Workspace, real: Path, text: str, step: int, head: str, tail: str = "") -> Observation:
    inside = ws.inside(real)
    return Observation.build(
        ObsKind.READ,
        "sandbox",
        text,
        title=inside,
        place=Place.file(inside),
        step=step,
        fence_attrs={"source": "file", "path": inside},
        head=head,
        tail=tail,
    )


def _read(ws: Workspace, path: str, start_line: int, budget: int) -> tuple[Path, str, int, int, bool, bool]:
    fd, real = ws.open_file(path)
    with os.fdopen(fd, "rb") as f:
        data = f.read(READ_MAX * 4 + _BINARY_SNIFF)
        size = os.fstat(f.fileno()).st_size
    binary = b"\0" in data[:_BINARY_SNIFF]
    text = data.decode("utf-8", "replace")
    lines = text.splitlines(keepends=True)
    shown = "".join(lines[start_line - 1 :])
    cut = len(shown) > budget or len(data) < size
    return real, shown[:budget], size, len(lines), cut, binary


class ReadFile(SandboxTool):
    name = "read_file"
    parameters = {
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "description": "A file in the workspace (data/out.csv or /workspace/data/out.csv).",
            },
            "start_line": {"type": "integer", "description": "First line to show (from 1); default 1."},
            "max_chars": {
                "type": "integer",
                "description": f"Budget of text; default {READ_DEFAULT}, at most {READ_MAX}.",
            },
        },
        "required": ["path"],
    }

    async def act(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        ws = self.session(ctx).workspace
        path = text_arg(args, "path")
        start = int_arg(args, "start_line", 1, 1, 10_000_000)
        budget = int_arg(args, "max_chars", READ_DEFAULT, 200, READ_MAX)
        real, text, size, nlines, cut, binary = await asyncio.to_thread(_read, ws, path, start, budget)
        inside = ws.inside(real)
        if binary:
            return ToolOutcome(
                text=f"{inside} is a binary file ({size} bytes); look at it with run_command (file, xxd, python3).",
                data={"path": inside, "size": size, "binary": True},
            )
        head = f"File {inside} · {size} bytes · {nlines} lines" + (f" · from line {start}" if start > 1 else "")
        tail = f"Cut to {budget} characters; read on with start_line or max_chars." if cut else ""
        obs = file_observation(ws, real, text.rstrip("\n") or "(empty)", ctx.step, head, tail)
        return ToolOutcome(text=obs.text, observations=(obs,), data={"path": inside, "size": size, "cut": cut})


class WriteFile(SandboxTool):
    name = "write_file"
    risk = Risk.WRITE
    parameters = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Where in the workspace (folders are made)."},
            "content": {"type": "string", "description": "The whole text of the file (UTF-8)."},
        },
        "required": ["path", "content"],
    }

    async def act(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        ws = self.session(ctx).workspace
        path = text_arg(args, "path")
        content = args.get("content")
        if not isinstance(content, str):
            raise BadArguments("'content' must be a string (the file's text)")
        data = content.encode("utf-8", "replace")
        if len(data) > WRITE_MAX:
            raise BadArguments(f"the content is {len(data)} bytes; write_file takes at most {WRITE_MAX}")
        inside = await asyncio.to_thread(_write, ws, path, data)
        return ToolOutcome(text=f"Wrote {len(data)} bytes to {inside}.", data={"path": inside, "bytes": len(data)})


def _write(ws: Workspace, path: str, data: bytes) -> str:
    # Checked and opened like a read first (an existing link or FIFO is refused), then
    # replaced whole: the temp file and rename never follow a link at the final name.
    fd, real = ws.open_file(path, write=True)
    os.close(fd)
    write_bytes(real, data, mode=0o644)
    return ws.inside(real)


def _search(ws: Workspace, folder: str, pattern: str, name_glob: str) -> tuple[list[str], int, bool]:
    base = ws.resolve(folder or ".")
    if not base.is_dir():
        raise PathRefused(f"{folder!r} is not a folder in the workspace")
    try:
        regex = re.compile(pattern, re.IGNORECASE) if pattern else None
    except re.error as exc:
        raise BadArguments(f"'pattern' is not a valid regular expression: {exc}") from None
    hits: list[str] = []
    looked = 0
    more = False
    for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
        dirnames.sort()
        for name in sorted(filenames):
            if looked >= SEARCH_FILES_MAX or len(hits) >= SEARCH_HITS_MAX:
                return hits, looked, True
            full = Path(dirpath) / name
            if full.is_symlink() or not full.is_file():
                continue  # links are not followed: one to outside must not be read
            if name_glob and not full.match(name_glob):
                continue
            looked += 1
            inside = ws.inside(full)
            if regex is None:
                hits.append(inside)
                continue
            if full.stat().st_size > SEARCH_FILE_BYTES:
                continue
            with open(full, "rb") as f:
                data = f.read()
            if b"\0" in data[:_BINARY_SNIFF]:
                continue
            for i, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
                if regex.search(line):
                    hits.append(f"{inside}:{i}: {line[:200]}")
                    if len(hits) >= SEARCH_HITS_MAX:
                        return hits, looked, True
    return hits, looked, more


class SearchFiles(SandboxTool):
    name = "search_files"
    parameters = {
        "type": "object",
        "properties": {
            "pattern": {
                "type": "string",
                "description": "A regular expression to find in the files' lines; empty: list the files.",
            },
            "path": {"type": "string", "description": "The folder to search; default the whole workspace."},
            "glob": {"type": "string", "description": "Only files whose name matches, like *.csv."},
        },
    }

    async def act(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        ws = self.session(ctx).workspace
        pattern = text_arg(args, "pattern", required=False)
        folder = text_arg(args, "path", required=False)
        name_glob = text_arg(args, "glob", required=False)
        hits, looked, more = await asyncio.to_thread(_search, ws, folder, pattern, name_glob)
        what = f"lines matching {pattern!r}" if pattern else "files"
        head = f"{len(hits)} {what} in {looked} files" + (" (stopped at the limit; narrow the search)" if more else "")
        if not hits:
            return ToolOutcome(text=head + ".", data={"hits": 0})
        obs = Observation.build(
            ObsKind.READ,
            "sandbox",
            "\n".join(hits),
            title="search_files",
            place=Place.file("/workspace"),
            step=ctx.step,
            fence_attrs={"source": "file", "path": "/workspace"},
            head=head,
        )
        return ToolOutcome(text=obs.text, observations=(obs,), data={"hits": len(hits), "more": more})
