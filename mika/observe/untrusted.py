"""The untrusted fence: content Mika did not write, marked so the model reads it as data.

    <untrusted source="screen" app="com.mika.chat">
    …what the app shows…
    </untrusted>

Only `fence()` writes a fence tag. Inside the content every spelling a model could read
as a fence tag — any case, spaces or zero-width characters between the letters,
full-width or look-alike brackets and letters, HTML entities, `\\u003c`/`%3C` escapes —
is rewritten to a plain `[untrusted` / `[/untrusted`, so the content can neither close
the real fence early nor open a fake one of its own. `defuse()` does the same for app
text Mika quotes in its own sentences, outside any fence.

Detection reads a skeleton of the text from each character that could start a tag
(escapes decoded, NFKC, case-folded, look-alikes mapped, ignorable characters dropped),
and the rewrite replaces exactly the original characters that spelled the tag.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterator, Mapping

TAG = "untrusted"
CLOSE = f"</{TAG}>"
# What a defused tag becomes: visibly the same word, but no bracket a model takes for a tag.
DEFUSED_OPEN = f"[{TAG}"
DEFUSED_CLOSE = f"[/{TAG}"
ATTR_MAX = 120  # characters of an attribute value; a path or command line is cut, not dropped

# Escapes a model may read through: HTML entities (also double-encoded &amp;lt;), JSON/Python
# \uXXXX and \xXX, and URL %XX. Each becomes the one character it stands for.
_ESCAPE = re.compile(
    r"&(?:amp;)*(?:#[xX][0-9a-fA-F]{1,6};?|#[0-9]{1,7};?|[a-zA-Z]{2,8};?)"
    r"|\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}|%[0-9a-fA-F]{2}"
)
# Characters that look like the ones of `<`, `/` and the letters of the tag but that NFKC keeps apart.
_LOOKALIKE = {
    "‹": "<",
    "〈": "<",
    "⟨": "<",
    "❮": "<",
    "˂": "<",
    "ᐸ": "<",
    "《": "<",
    "«": "<",
    "⁄": "/",
    "∕": "/",
    "⧸": "/",
    "╱": "/",
    "\\": "/",
    "υ": "u",
    "ս": "u",
    "ц": "u",
    "ᴜ": "u",
    "ʋ": "u",
    "ո": "n",
    "η": "n",
    "п": "n",
    "ɴ": "n",
    "τ": "t",
    "т": "t",
    "ţ": "t",
    "ᴛ": "t",
    "г": "r",
    "ʀ": "r",
    "ᴦ": "r",
    "ѕ": "s",
    "ꜱ": "s",
    "ʂ": "s",
    "е": "e",
    "є": "e",
    "ε": "e",
    "ҽ": "e",
    "ᴇ": "e",
    "ԁ": "d",
    "ɗ": "d",
    "ᴅ": "d",
}


def _ignorable(ch: str) -> bool:
    """Characters a reader does not see between the letters of a tag."""
    if ch.isspace():
        return True
    cat = unicodedata.category(ch)
    # Cf: zero-width joiners, bidi marks, soft hyphen; Mn/Me: combining marks; Cc: controls.
    return cat in ("Cf", "Mn", "Me", "Cc") or ch in "\u115f\u1160\u3164\uffa0\u2800"


def _decode(escape: str) -> str:
    if escape.startswith(("\\u", "\\x")):
        return chr(int(escape[2:], 16))
    if escape.startswith("%"):
        return chr(int(escape[1:], 16))
    body = escape
    while body.lower().startswith("&amp;"):
        body = "&" + body[5:]
    try:
        out = html.unescape(body if body.endswith(";") else body + ";")
    except (ValueError, OverflowError):
        return escape
    return out if out != body and len(out) == 1 else escape


def _fold(ch: str) -> str:
    folded = unicodedata.normalize("NFKC", ch).casefold()
    return "".join(_LOOKALIKE.get(c, c) for c in folded)


_TARGET = "<" + TAG  # the skeleton of an opening tag; a closing one has "/" after "<"
# Every character whose skeleton can start a tag: `<`, the forms NFKC folds into it, the
# look-alikes above, and the first character of an escape.
_STARTS = re.compile("[" + re.escape("<\uff1c\ufe64&\\%" + "".join(k for k, v in _LOOKALIKE.items() if v == "<")) + "]")


def _skeleton_chars(text: str, i: int) -> Iterator[tuple[str, int]]:
    """From position i on: (skeleton character, end of the original characters it came from)."""
    n = len(text)
    while i < n:
        ch = text[i]
        end = i + 1
        if ch in "&\\%":
            m = _ESCAPE.match(text, i)
            if m:
                decoded = _decode(m.group())
                if decoded != m.group():
                    ch, end = decoded, m.end()
        if not _ignorable(ch):
            for c in _fold(ch):
                if not _ignorable(c):
                    yield c, end
        i = end


def _tag_at(text: str, i: int) -> tuple[int, bool] | None:
    """(end, closing) when a fence tag is spelled from position i, else None."""
    want = _TARGET
    k = 0
    closing = False
    for c, end in _skeleton_chars(text, i):
        if k == 1 and c == "/" and not closing:
            closing = True
            continue
        if c != want[k]:
            return None
        k += 1
        if k == len(want):
            return end, closing
    return None


def has_fence_tag(text: str) -> bool:
    """Whether anything in `text` would read as an untrusted fence tag."""
    return any(_tag_at(text, m.start()) for m in _STARTS.finditer(text))


def defuse(text: str) -> str:
    """`text` with every spelling of an untrusted fence tag rewritten so it is not one."""
    parts: list[str] = []
    at = 0
    for m in _STARTS.finditer(text):
        if m.start() < at:
            continue  # inside a spelling already rewritten
        hit = _tag_at(text, m.start())
        if hit is None:
            continue
        parts.append(text[at : m.start()])
        parts.append(DEFUSED_CLOSE if hit[1] else DEFUSED_OPEN)
        at = hit[0]
    if not parts:
        return text
    parts.append(text[at:])
    return "".join(parts)


def _attr(value: str) -> str:
    """An attribute value that can't end the tag: one line, no quotes, no brackets, short."""
    flat = " ".join(defuse(str(value)).split())
    if len(flat) > ATTR_MAX:
        flat = flat[: ATTR_MAX - 1] + "…"
    return html.escape(flat, quote=True)


def open_tag(attrs: Mapping[str, str] | None = None) -> str:
    items = [(k, v) for k, v in (attrs or {}).items() if v not in (None, "")]
    inner = "".join(f' {k}="{_attr(v)}"' for k, v in items if re.fullmatch(r"[a-z][a-z_]*", k))
    return f"<{TAG}{inner}>"


def fence(text: str, attrs: Mapping[str, str] | None = None, *, block: bool = True) -> str:
    """`text` inside one untrusted fence; `attrs` (source, app, path, …) say where it came from.

    `block` puts the tags on their own lines (listings, command output); otherwise inline.
    """
    inner = defuse(text)
    sep = "\n" if block else ""
    return f"{open_tag(attrs)}{sep}{inner}{sep}{CLOSE}"


_REAL_TAG = re.compile(rf"<{TAG}(?:\s+[a-z_]+=\"[^\"<>]*\")*>\n?|\n?{re.escape(CLOSE)}")


def unfence(text: str) -> str:
    """`text` without the real fence tags, for showing to a person or matching words."""
    return _REAL_TAG.sub("", text)


_RAW_TAG = re.compile(rf"<{TAG}(?:\s+[a-z_]+=\"[^\"<>]*\")*>|{re.escape(CLOSE)}")


def seal(text: str) -> str:
    """`text` with Mika's real fences kept and every other fence spelling defused.

    For a result that puts app text into Mika's own sentences (`Tapped button "…"`) next
    to fenced listings. Inside a real fence nothing reads as a tag (fence() saw to it),
    so a real fence is an opening tag whose next tag is a closing one; any other tag —
    an app's label that spells `</untrusted>` outside a fence — is defused.
    """
    tags = list(_RAW_TAG.finditer(text))
    keep: set[int] = set()
    i = 0
    while i < len(tags) - 1:
        if not tags[i].group().startswith("</") and tags[i + 1].group() == CLOSE:
            keep.update((i, i + 1))
            i += 2
        else:
            i += 1
    parts: list[str] = []
    at = 0
    for i, m in enumerate(tags):
        if i in keep:
            parts.append(defuse(text[at : m.start()]))
            parts.append(m.group())
            at = m.end()
    parts.append(defuse(text[at:]))
    return "".join(parts)


def close_cut(text: str) -> str:
    """`text` cut short somewhere: a real fence left open by the cut is closed, so what
    Mika adds after it (a note that the rest was cut) is not read as the app's."""
    tags = _RAW_TAG.findall(text)
    if tags and not tags[-1].startswith("</"):
        return text + "\n" + CLOSE
    return text
