"""The run-start memory block: relevant active items plus preferences, small and bounded."""

from __future__ import annotations

from mika.memory.context import MAX_CHARS, MAX_ITEMS, memory_block
from mika.memory.store import MemoryStore


def test_bounded_relevant_and_preferences(tmp_path) -> None:
    store = MemoryStore(tmp_path / "memory.jsonl")
    store.add("preference", "prefers oat milk in coffee", "I prefer oat milk in coffee")
    for n in range(15):
        words = f"my friend number {n} lives in city {n} near the train station, a long way from the office"
        store.add("fact", words, words)
    kind, source, trust, body = memory_block(store, "book a train to see my friend")
    assert (kind, source, trust) == ("memory", "memory", "trusted")
    lines = body.splitlines()[1:]
    assert 1 <= len(lines) <= MAX_ITEMS and len(body) <= MAX_CHARS
    assert all(line.startswith("- ") for line in lines)
    assert any("train station" in line for line in lines)
    # A preference is offered even when the goal does not mention it.
    small = MemoryStore(tmp_path / "small.jsonl")
    small.add("preference", "prefers oat milk in coffee", "I prefer oat milk in coffee")
    small.add("fact", "has a cat named Momo", "I have a cat named Momo")
    body = memory_block(small, "set an alarm for 7")[3]
    assert "oat milk" in body and "Momo" not in body


def test_nothing_to_say_gives_no_block(tmp_path) -> None:
    assert memory_block(None, "anything") is None
    store = MemoryStore(tmp_path / "memory.jsonl")
    assert memory_block(store, "anything") is None
    store.add("fact", "has a cat named Momo", "I have a cat named Momo")
    assert memory_block(store, "set an alarm") is None  # not relevant, not a preference
    (tmp_path / "foreign.jsonl").write_text("not ours\n")
    assert memory_block(MemoryStore(tmp_path / "foreign.jsonl"), "anything") is None
