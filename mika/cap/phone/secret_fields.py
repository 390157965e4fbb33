"""Which input fields on a screen hold a secret (password, PIN, card code).

The dump's `password` flag is only one sign: apps draw their own PIN pads, leave the flag
off on a field whose hint says 密码, or put the word only in a label beside the field
or in a "show password" eye next to it. Any of these makes the field secret, and a
secret's text is never handed out, whatever the dump holds in it.
"""

from __future__ import annotations

import re

from mika.uistate.tree import UiNode, UiTree

# Words that name a secret, in hints, descriptions and labels.
SECRET_WORDS = re.compile(
    r"pass\s*word|passwd|passcode|pass\s*code|\bpin\b|pin\s*code|\bcvv\b|\bcvc\b|security code|"
    r"密码|口令|密碼|支付码|安全码|验证码",
    re.I,
)
# Tokens of a resource id that name a secret (split at _ . - and camelCase).
_ID_TOKENS = {"password", "passwd", "pwd", "pin", "passcode", "pass", "secret", "cvv", "cvc", "pincode"}
_SPLIT = re.compile(r"[_.\-/:\s]+|(?<=[a-z])(?=[A-Z])")


def _id_secret(rid: str) -> bool:
    short = rid.split(":id/", 1)[-1]
    return any(t.casefold() in _ID_TOKENS for t in _SPLIT.split(short) if t)


def field_label(node: UiNode, previous: UiNode | None) -> str:
    """What names a field: its hint, its description, a label right beside or just above
    it, else its resource id. A title further up is no label."""
    if node.hint.strip() or node.content_desc.strip():
        return (node.hint or node.content_desc).strip()
    if previous is not None and _adjacent(previous, node):
        return previous.safe_text.strip()
    return node.short_id.replace("_", " ").strip()


def _adjacent(label: UiNode, node: UiNode) -> bool:
    if label.short_id.casefold() in _TITLES:
        return False  # the screen's title sits right above the first field; it names the screen
    lb, nb = label.bounds, node.bounds
    above = 0 <= nb.top - lb.bottom <= LABEL_GAP_PX
    beside = lb.right <= nb.left and lb.top < nb.bottom and nb.top < lb.bottom
    return above or beside


LABEL_GAP_PX = 80
_TITLES = {"title", "toolbar_title", "action_bar_title", "title_bar", "tv_title"}


def secret_nodes(tree: UiTree) -> set[int]:
    """`order` of every node whose text must not be shown."""
    out: set[int] = set()
    previous = ""
    nodes = list(tree.nodes())
    parents: dict[int, UiNode] = {}
    for n in nodes:
        for c in n.children:
            parents[c.order] = n
    for n in nodes:
        if n.editable or n.password or "password" in n.class_name.casefold():
            sibling_words = " ".join(
                c.content_desc + " " + c.short_id
                for c in (parents[n.order].children if n.order in parents else ())
                if c is not n and not c.editable
            )
            signs = (
                n.password,
                "password" in n.class_name.casefold(),
                _id_secret(n.resource_id),
                bool(SECRET_WORDS.search(" ".join((n.hint, n.content_desc, previous)))),
                bool(SECRET_WORDS.search(sibling_words)),
            )
            if any(signs):
                out.add(n.order)
        elif n.safe_text.strip():
            previous = n.safe_text.strip()
    return out
