"""A server's tool annotations read as Mika's risk levels (DESIGN §3).

Annotations are the server's own hints, so they only ever decide between kinds of
acting, never to skip the action entry: `readOnlyHint` true is a read (execute_read); a
tool that says it reaches an open world (`openWorldHint` true: sends, posts, fetches
from outside) is external, paced like outward actions; everything else — destructive,
additive, or unannotated — is a write. A read-only claim is believed because a read
goes through the same fence and record; the payment check still reads every call.
"""

from __future__ import annotations

from typing import Any

from mika.tool.declaration import Risk


def risk_of(annotations: Any) -> Risk:
    if annotations is None:
        return Risk.WRITE
    if getattr(annotations, "read_only_hint", None) is True:
        return Risk.READ
    if getattr(annotations, "open_world_hint", None) is True:
        return Risk.EXTERNAL
    return Risk.WRITE


def hints_of(annotations: Any) -> dict[str, bool]:
    """The hints the server set, for `mika mcp servers test` and the record."""
    out: dict[str, bool] = {}
    for attr, key in (
        ("read_only_hint", "readOnlyHint"),
        ("destructive_hint", "destructiveHint"),
        ("idempotent_hint", "idempotentHint"),
        ("open_world_hint", "openWorldHint"),
    ):
        value = getattr(annotations, attr, None)
        if isinstance(value, bool):
            out[key] = value
    return out
