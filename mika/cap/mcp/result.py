"""An MCP tool's result as the model reads it: Mika's line, then the server's words fenced.

    mcp_notes_search · MCP server "notes", tool search · 2 parts
    <untrusted source="mcp" server="notes" tool="search">
    …the text blocks…
    [image image/png, 1.2 kB: attached]
    Structured content: {"hits": 3}
    </untrusted>

Everything a server returns is the server's (DESIGN §3: content Mika did not write is
fenced once, where the observation is built): text, resource texts, the structured
content, even its error messages. Text is cut to TEXT_MAX characters; the first image is
attached when the run's model sees images (at most IMAGE_MAX_BYTES), the others named.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from mika.model.messages import Image
from mika.observe.observation import Observation, ObsKind, Place
from mika.tool.declaration import ToolOutcome

TEXT_MAX = 20_000  # characters of a result's text the model gets
IMAGE_MAX_BYTES = 4_000_000
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


def fence_attrs(server: str, tool: str) -> dict[str, str]:
    return {"source": "mcp", "server": server, "tool": tool}


def _size(n: int) -> str:
    return f"{n / 1000:.1f} kB" if n >= 1000 else f"{n} B"


def _structured(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return str(value)


def _parts(result: Any, images: bool) -> tuple[list[str], Image | None]:
    lines: list[str] = []
    image: Image | None = None
    texts: list[str] = []
    for block in getattr(result, "content", None) or ():
        kind = getattr(block, "type", "")
        if kind == "text":
            texts.append(block.text)
            lines.append(block.text)
        elif kind in ("image", "audio"):
            mime = str(getattr(block, "mime_type", "") or "")
            try:
                data = base64.b64decode(block.data, validate=True)
            except (binascii.Error, ValueError, TypeError):
                lines.append(f"[{kind} {mime}: not valid base64, left out]")
                continue
            if kind == "image" and images and image is None and mime in IMAGE_TYPES and len(data) <= IMAGE_MAX_BYTES:
                image = Image(data, mime)
                lines.append(f"[image {mime}, {_size(len(data))}: attached]")
            else:
                lines.append(f"[{kind} {mime}, {_size(len(data))}: not shown]")
        elif kind == "resource":
            res = block.resource
            text = getattr(res, "text", None)
            head = f"[resource {res.uri}" + (f" ({res.mime_type})" if getattr(res, "mime_type", None) else "") + "]"
            lines.append(f"{head}\n{text}" if isinstance(text, str) else f"{head} binary, not shown")
        elif kind == "resource_link":
            lines.append(f"[link to resource {block.uri}" + (f": {block.name}" if block.name else "") + "]")
        else:
            lines.append(f"[{kind or 'unknown'} content, not shown]")
    structured = getattr(result, "structured_content", None)
    if structured is not None:
        shown = _structured(structured)
        # The SDK also sends the structured value as text: said once.
        if not any(_same_json(t, structured) for t in texts):
            lines.append(f"Structured content: {shown}")
    return lines, image


def _same_json(text: str, value: Any) -> bool:
    # A tool that returns a plain value gets it wrapped as {"result": value} by the SDK.
    if isinstance(value, dict) and set(value) == {"result"} and value["result"] == text:
        return True
    try:
        return bool(json.loads(text) == value)
    except (TypeError, ValueError):
        return False


def result_outcome(
    result: Any, *, run_name: str, server: str, tool: str, step: int, images: bool = True
) -> ToolOutcome:
    """The outcome of one call: ok unless the server set isError (its error text is fenced too)."""
    lines, image = _parts(result, images)
    body = "\n".join(lines).strip()
    cut = len(body) > TEXT_MAX
    if cut:
        body = body[:TEXT_MAX] + "\n[… cut]"
    failed = bool(getattr(result, "is_error", False))
    said = "reported an error" if failed else "answered"
    head = f"{run_name} · MCP server {json.dumps(server)}, tool {tool} {said}" + (
        f" · cut to {TEXT_MAX} characters" if cut else ""
    )
    obs = Observation.build(
        ObsKind.OUTPUT,
        "mcp",
        body or "(no content)",
        head=head,
        title=f"{server}/{tool}",
        place=Place("mcp", f"{server}/{tool}", server),
        image=image,
        step=step,
        fence_attrs=fence_attrs(server, tool),
    )
    data: dict[str, Any] = {"server": server, "tool": tool, "cut": cut, "chars": len(body)}
    if failed:
        return ToolOutcome(text=obs.text, ok=False, code="mcp_tool_error", observations=(obs,), data=data)
    return ToolOutcome(text=obs.text, image=image, observations=(obs,), data=data)
