"""`ContextRecovery`: after compression, put back what must never go missing (seed §7).

The compressor is built to keep the opening context and the user's words; this is the
check behind it, so a bug in a level (or a future level) cannot silently drop the task.
The opening message goes back first, whole; any of the user's words (or a knowledge block
given mid-run, `History.kept_texts`) still missing are put back at the end of the
compressed head, so they sit before the live turns that followed them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from mika.agent.compressor import Compressed
from mika.agent.history import History
from mika.model.messages import Message, Text, ToolResult


def _texts(messages: Iterable[Message]) -> str:
    out: list[str] = []
    for m in messages:
        for p in m.parts:
            if isinstance(p, (Text, ToolResult)):
                out.append(p.text)
    return "\n".join(out)


@dataclass(frozen=True)
class Recovered:
    compressed: Compressed
    restored: tuple[str, ...]  # what had gone missing (for the record)


class ContextRecovery:
    def restore(self, compressed: Compressed, history: History) -> Recovered:
        if not history.messages or compressed.cut == 0:
            return Recovered(compressed, ())  # nothing was replaced
        head = list(compressed.head)
        tail = history.messages[compressed.cut :]
        restored: list[str] = []
        opening = history.messages[0]
        if not head or head[0].parts[: len(opening.parts)] != opening.parts:
            # Put the opening back in its place, keeping whatever the head had after it.
            extra = head[0].parts if head and head[0].role == "user" else ()
            rest = head[1:] if head and head[0].role == "user" else head
            head = [Message("user", opening.parts + tuple(p for p in extra if p not in opening.parts)), *rest]
            restored.append("opening")
        present = _texts(head) + "\n" + _texts(tail)
        missing = [t for t in (*history.user_texts, *history.kept_texts) if t not in present]
        if missing:
            at = max(i for i, m in enumerate(head) if m.role == "user")
            head[at] = Message("user", head[at].parts + tuple(Text(t) for t in missing))
            restored.extend(missing)
        if not restored:
            return Recovered(compressed, ())
        return Recovered(Compressed(tuple(head), compressed.cut, compressed.level), tuple(restored))
