"""Running the MCP face: over stdio (the default) or streamable HTTP, until the client
goes away (stdio) or the process is told to stop (HTTP: Ctrl+C / SIGTERM)."""

from __future__ import annotations

import sys
from typing import IO, Any

from mika.assembly import Assembly
from mika.mcp.front_desk import FrontDesk
from mika.mcp.http import BearerGate, is_loopback, new_token
from mika.mcp.server import McpFace
from mika.mcp.texts import t
from mika.run.recovery import recover_at_start


def _model_name(asm: Assembly) -> str:
    main = asm.models.main if asm.models is not None else None
    return f"{main.provider}/{main.name}" if main is not None else "?"


async def serve(
    asm: Assembly, *, http: tuple[str, int] | None = None, err: IO[str] = sys.stderr, front: FrontDesk | None = None
) -> None:
    """`front`: the desk that took the stdio wire and answered the first requests."""
    recover_at_start(asm.state_dir)
    face = McpFace(asm, err)
    serial = asm.device.serial or "none"
    try:
        if http is None:
            await _serve_stdio(face, err, serial, _model_name(asm), front)
        else:
            await _serve_http(face, http, err, serial, _model_name(asm))
    finally:
        await face.aclose()
        err.write(t("stopped") + "\n")
        err.flush()


async def _serve_stdio(face: McpFace, err: IO[str], serial: str, model: str, front: FrontDesk | None) -> None:
    from mcp.server.stdio import stdio_server

    err.write(t("serving_stdio", serial=serial, model=model) + "\n")
    err.flush()
    streams: tuple[Any, Any] = front.sdk_streams() if front is not None else (None, None)
    async with stdio_server(*streams) as (read, write):
        await face.server.run(read, write, face.server.create_initialization_options())


async def _serve_http(face: McpFace, address: tuple[str, int], err: IO[str], serial: str, model: str) -> None:
    import uvicorn

    host, port = address
    app = face.server.streamable_http_app(host=host)
    asgi: Any = app
    if not is_loopback(host):
        token = new_token()
        asgi = BearerGate(app, token)
        err.write(t("token", host=host, token=token) + "\n")
    config = uvicorn.Config(asgi, host=host, port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    err.write(t("serving_http", host=host, port=port, serial=serial, model=model) + "\n")
    err.flush()
    await server.serve()
    if not server.started:
        raise OSError(t("port_busy", host=host, port=port, error="the address is in use or not this machine's"))
