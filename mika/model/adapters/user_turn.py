"""A user turn for wires whose tool results carry text only (OpenAI chat and responses)."""

from __future__ import annotations

from mika.model.messages import Image, Message, Part, Text, ToolResult


def split_user_turn(message: Message) -> tuple[list[ToolResult], list[Part]]:
    """The tool results, in order, and the user content that follows them: the turn's
    own text and images, with each result's picture after a line naming its tool."""
    results: list[ToolResult] = []
    trailing: list[Part] = []
    for p in message.parts:
        if isinstance(p, ToolResult):
            results.append(p)
            if p.image is not None:
                trailing += [Text(f"Image returned by {p.name}:"), p.image]
        elif isinstance(p, (Text, Image)):
            trailing.append(p)
    return results, trailing
