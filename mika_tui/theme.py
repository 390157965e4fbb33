"""The app's themes: one for people, one fixed for snapshot tests."""

from __future__ import annotations

from textual.theme import Theme

MIKA_THEME = Theme(
    name="mika",
    primary="#5E81AC",
    secondary="#81A1C1",
    accent="#88C0D0",
    warning="#EBCB8B",
    error="#BF616A",
    success="#A3BE8C",
    background="#1E222A",
    surface="#262B35",
    panel="#2E3440",
    dark=True,
)

# Snapshot tests pin this one, so a change of the default theme never rewrites them.
TEST_THEME = Theme(
    name="mika-test",
    primary="#3366CC",
    secondary="#6699CC",
    accent="#33AAAA",
    warning="#CC9933",
    error="#CC3333",
    success="#339933",
    background="#101010",
    surface="#1A1A1A",
    panel="#262626",
    foreground="#E0E0E0",
    dark=True,
)
