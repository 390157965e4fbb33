"""The evidence ledger (every observation of a run) and the sources under an answer.

Sources are chosen by the system from what was really read — never written by the model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mika.observe.observation import Observation, ObsKind
from mika.observe.untrusted import unfence

MAX_SOURCES = 6

_WORD = re.compile(r"[0-9]+(?:[.,:][0-9]+)*|[A-Za-z][A-Za-z'\-]{2,}")
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "are",
        "was",
        "were",
        "this",
        "that",
        "with",
        "from",
        "have",
        "has",
        "you",
        "your",
        "not",
        "but",
        "all",
        "can",
        "will",
        "into",
        "what",
        "when",
        "which",
        "there",
        "their",
        "they",
        "them",
        "then",
        "than",
        "been",
        "being",
        "also",
        "just",
        "only",
    ]
)


def _features(text: str) -> set[str]:
    """Words, numbers and Han bigrams: enough to tell which reads an answer draws on."""
    feats = {w.lower() for w in _WORD.findall(text) if w.lower() not in _STOP}
    for run in _HAN.findall(text):
        if len(run) == 1:
            feats.add(run)
        feats.update(run[i : i + 2] for i in range(len(run) - 1))
    return feats


class EvidenceLedger:
    def __init__(self) -> None:
        self._items: list[Observation] = []

    def add(self, obs: Observation) -> None:
        self._items.append(obs)

    def all(self) -> list[Observation]:
        return list(self._items)

    def get(self, obs_id: str) -> Observation | None:
        return next((o for o in self._items if o.id == obs_id), None)

    def __len__(self) -> int:
        return len(self._items)


@dataclass(frozen=True)
class Source:
    observation: Observation
    score: float


class AnswerSources:
    """Pick at most 6 observations that support an answer, best first."""

    @staticmethod
    def pick(answer: str, ledger: EvidenceLedger, limit: int = MAX_SOURCES) -> list[Source]:
        wanted = _features(answer)
        if not wanted:
            return []
        scored: list[Source] = []
        items = [o for o in ledger.all() if o.kind is not ObsKind.USER_SAID]
        for position, obs in enumerate(items):
            # The fence's own words (untrusted, source=…) are Mika's markup, not what was read.
            shared = wanted & _features(unfence(obs.text) + " " + obs.title)
            if not shared:
                continue
            # Numbers and long words say more than short common words; later reads win ties
            # because they show the state the answer describes.
            weight = sum(2.0 if any(c.isdigit() for c in f) else 1.0 for f in shared)
            scored.append(Source(obs, weight + position * 1e-3))
        scored.sort(key=lambda s: s.score, reverse=True)
        picked: list[Source] = []
        seen_text: set[str] = set()
        for s in scored:
            if s.observation.text in seen_text:
                continue
            seen_text.add(s.observation.text)
            picked.append(s)
            if len(picked) == limit:
                break
        return picked
