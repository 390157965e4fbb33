"""The front-matter subset: what it accepts, and the line it names for every mistake."""

import pytest

from mika.knowledge.front_matter import FrontMatterError, parse_document


def parse(text: str):
    return parse_document(text, "x/APP.md")


def error_of(text: str) -> FrontMatterError:
    with pytest.raises(FrontMatterError) as caught:
        parse(text)
    return caught.value


def test_the_accepted_forms():
    doc = parse(
        "---\n"
        "id: com.tencent.mm   # the main package\n"
        "name: 'WeChat # not a comment'\n"
        "aliases: [微信, \"Wei xin\", 'it''s']\n"
        "verified: false\n"
        "packages:\n"
        "  - com.tencent.mm\n"
        "  - com.tencent.mm.lite\n"
        "metadata:\n"
        '  version: "1.10"\n'
        "description: >\n"
        "  one\n"
        "  two\n"
        "steps: |\n"
        "  a\n"
        "  b\n"
        "---\n"
        "## Where things are\n- tabs\n"
    )
    assert doc.meta["id"] == "com.tencent.mm"
    assert doc.meta["name"] == "WeChat # not a comment"
    assert doc.meta["aliases"] == ["微信", "Wei xin", "it's"]
    assert doc.meta["verified"] is False
    assert doc.meta["packages"] == ["com.tencent.mm", "com.tencent.mm.lite"]
    assert doc.meta["metadata"] == {"version": "1.10"}  # stays text
    assert doc.meta["description"] == "one two"
    assert doc.meta["steps"] == "a\nb"
    assert doc.body.startswith("## Where things are")
    assert doc.body_line == 18
    assert doc.line_of("packages") == 6


def test_crlf_and_a_byte_order_mark_are_read_like_plain_lines():
    doc = parse("\ufeff---\r\nid: a.b\r\nname: A\r\n---\r\nbody\r\n")
    assert doc.meta == {"id": "a.b", "name": "A"}
    assert doc.body == "body"


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        ("no front matter\n", 1, "must start with a front matter"),
        ("---\nid: a\n", 1, "never closed"),
        ("---\nid: a\nid: b\n---\n", 3, "given twice (first on line 2)"),
        ("---\nid: a\n\tname: b\n---\n", 3, "tabs"),
        ("---\nid: a\njust words\n---\n", 3, "expected 'key: value'"),
        ("---\nname: 'open\n---\n", 2, "not closed"),
        ("---\naliases: [a, b\n---\n", 2, "close with ']'"),
        ("---\naliases: [a,, b]\n---\n", 2, "empty item"),
        ("---\naliases: [a, [b]]\n---\n", 2, "inside lists"),
        ("---\nname: &anchor x\n---\n", 2, "may not start with '&'"),
        ("---\nname: {a: 1}\n---\n", 2, "may not start with '{'"),
        ("---\npackages:\n  - a\n  b: c\n---\n", 4, "mixes"),
        ("---\npackages:\n  -\n---\n", 3, "empty '-' item"),
        ("---\nmeta:\n  a: 1\n  a: 2\n---\n", 4, "given twice"),
        ("---\ndescription: >\n---\n", 2, "no indented text"),
        ("---\n  name: x\n---\n", 2, "belongs to no field"),
    ],
)
def test_each_mistake_names_its_line(text, line, says):
    err = error_of(text)
    assert err.line == line
    assert says in err.message
    assert str(err).startswith(f"x/APP.md:{line}: ")


def test_odd_bytes_in_values_are_text_not_structure():
    doc = parse("---\nname: a\u200bb\x00c\nnote: 'x: y'\n---\nbody\n")
    assert doc.meta["name"] == "a\u200bb\x00c"
    assert doc.meta["note"] == "x: y"
