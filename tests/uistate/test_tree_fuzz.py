"""Whatever bytes arrive, parse_hierarchy returns a tree or raises HierarchyError."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from uistate_real import dump

from mika.uistate import HierarchyError, build_screen, parse_hierarchy

# A bundled (Apache-2.0) dump, so the fuzzing runs in every checkout: Chinese UTF-8 and
# mojibake give cuts inside multi-byte characters.
REAL = dump("android_language_picker__api17_chinese_mojibake")


def _parse_or_typed_error(data) -> None:
    try:
        tree = parse_hierarchy(data)
    except HierarchyError as exc:
        # Fuzzed input may or may not parse, so pytest.raises does not fit; a refusal must say why.
        assert str(exc)  # noqa: PT017
        return
    build_screen(tree).listing()  # a tree that parses also lists


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=400))
def test_random_bytes(data: bytes) -> None:
    _parse_or_typed_error(data)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300))
def test_random_text_wrapped_in_a_hierarchy(text: str) -> None:
    _parse_or_typed_error(f"<hierarchy rotation='0'>{text}</hierarchy>")


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=0, max_value=len(REAL)), st.integers(min_value=0, max_value=255))
def test_real_dump_cut_or_with_a_byte_changed(cut: int, byte: int) -> None:
    _parse_or_typed_error(REAL[:cut])
    if cut < len(REAL):
        _parse_or_typed_error(REAL[:cut] + bytes([byte]) + REAL[cut + 1 :])


def test_lone_surrogate_and_absurd_nesting_are_handled() -> None:
    tree = parse_hierarchy('<hierarchy><node text="a\ud800" bounds="[0,0][1,1]"/></hierarchy>')
    assert next(tree.nodes()).text == "a\ufffd"
    deep = "<hierarchy>" + "<node>" * 2000 + "</node>" * 2000 + "</hierarchy>"
    with pytest.raises(HierarchyError, match="nested deeper"):  # a 2000-deep tree must be refused
        parse_hierarchy(deep)
