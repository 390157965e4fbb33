"""The page's main text for `web_read_page` (seed §6; the port's `main_text`).

Readability-style, read through Mika's isolated world (`isolated.world`, the same locked
world the read-only scripts use, so the page never sees it and nothing is changed):
`scripts/main_text.js` picks the page's main / article element or its densest block, and
walks it leaving out navigation, headers, footers, asides, menus, cookie banners, hidden
elements, scripts and styles; headings come as "# …", list items as "- …", links keep
their text, never HTML. Here the text is cut to the budget on a paragraph edge, else a
sentence edge, else a word.
"""

from __future__ import annotations

import json
import re

from mika.cap.web.isolated import CdpSession, evaluate_in_world, script_text
from mika.cap.web.port import WebError

# A cut keeps at least this share of the budget: an edge earlier than that is not worth
# losing the text for, and the cut falls on a sentence or a word instead.
_KEEP = 0.6
_SENTENCE_END = re.compile(r"[.!?。！？；;…](?:[\"'”’)）\]]*)(?=\s|$)|[。！？；]")


def cut_to_budget(text: str, budget_chars: int) -> tuple[str, bool]:
    """`text` within `budget_chars`, cut on a paragraph (line) edge, else after a sentence,
    else at a space; True when something was left out."""
    if budget_chars <= 0:
        return "", bool(text)
    if len(text) <= budget_chars:
        return text, False
    head = text[:budget_chars]
    floor = int(budget_chars * _KEEP)
    line = head.rfind("\n")
    if line >= floor:
        return head[:line].rstrip(), True
    ends = [m.end() for m in _SENTENCE_END.finditer(head)]
    if ends and ends[-1] >= floor:
        return head[: ends[-1]].rstrip(), True
    space = head.rfind(" ")
    if space >= floor:
        return head[:space].rstrip(), True
    return head.rstrip(), True


async def read_main_text(cdp: CdpSession, budget_chars: int, *, timeout_s: float = 10.0) -> tuple[str, bool]:
    """The current page's main text within `budget_chars`, and whether it was cut."""
    if budget_chars <= 0:
        raise WebError("The text budget must be a positive number of characters.", "bad_budget")
    # Read a little past the budget, so the cut can find an edge and knows text was left.
    limit = budget_chars + 2000
    expression = f"({script_text('main_text.js')})({limit})\n//# sourceURL=mika-main-text.js"
    raw = await evaluate_in_world(cdp, expression, timeout_s=timeout_s)
    if not isinstance(raw, str):
        raise WebError("The page's text could not be read; read the page again.", "read_failed")
    answer = json.loads(raw)
    text, cut = cut_to_budget(str(answer.get("text") or ""), budget_chars)
    return text, cut or bool(answer.get("more"))
