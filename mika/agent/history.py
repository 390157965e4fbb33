"""The run's message history (zone 2): append-only, messages never change once sent.

User-side content that arrives next to each other (tool results, the runtime state, a
steer) is gathered into one user message so roles alternate as every protocol wants.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mika.model.messages import Image, Message, Part, Text


@dataclass
class History:
    messages: list[Message] = field(default_factory=list)
    # Kinds of user content per message index, so compression can spare the user's words.
    user_words: set[int] = field(default_factory=set)

    def add_assistant(self, message: Message) -> None:
        if not message.parts:
            message = Message("assistant", (Text("(no reply)"),))
        self.messages.append(message)

    def add_user(self, *parts: Part, users_words: bool = False) -> None:
        if not parts:
            return
        if self.messages and self.messages[-1].role == "user":
            last = self.messages.pop()
            self.messages.append(Message("user", last.parts + tuple(parts)))
        else:
            self.messages.append(Message("user", tuple(parts)))
        if users_words:
            self.user_words.add(len(self.messages) - 1)

    def __len__(self) -> int:
        return len(self.messages)


def only_last_image(messages: list[Message]) -> list[Message]:
    """Images of earlier steps are never re-sent: each becomes one line of text."""
    last_with_image = max((i for i, m in enumerate(messages) if any(isinstance(p, Image) for p in m.parts)), default=-1)
    out = []
    for i, m in enumerate(messages):
        if i == last_with_image or not any(isinstance(p, Image) for p in m.parts):
            out.append(m)
            continue
        parts = tuple(
            Text(f"[screenshot {p.ref or ''} from an earlier step, not re-sent]".replace("  ", " ")) if isinstance(p, Image) else p
            for p in m.parts
        )
        out.append(Message(m.role, parts))
    return out
