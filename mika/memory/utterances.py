"""`UserUtterances`: the user's own words in a run — the only source memory may draw on.

What counts: the goal, the user's messages during the run (steers), their answers to
questions, and the user side of the conversation's earlier turns. What never counts:
screens, pages, files, command output, child runs, and Mika's own answers (earlier
turns' answers quote screens).

A user's message written after Mika read something may quote it ("the screen says …"),
or be an option Mika offered that was copied from a screen: any long stretch of a steer
or an answer that is also in what was read before it is masked out, so it can't turn
screen text into the user's words. The goal and earlier turns were written before this
run read anything and are taken whole.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from mika.memory.support import Support, support
from mika.memory.text import normal, terms
from mika.observe.evidence import EvidenceLedger
from mika.observe.observation import ObsKind
from mika.observe.untrusted import unfence
from mika.runtypes.spec import RunOrigin, RunSpec

# A common stretch this long (in characters, normal form) between a user's message and
# something read before it is a quote of it, not the user's own words.
QUOTE_CHARS = 12
# Runs whose goal is not the user's own words.
NOT_THE_USER = frozenset({RunOrigin.CHILD, RunOrigin.MCP})


@dataclass(frozen=True)
class Utterance:
    text: str
    where: str  # goal | steer | answer | earlier_turn


def _mask_quotes(said: str, read: Sequence[str]) -> str:
    """`said` (normal form, lowercased) with every stretch of ≥ QUOTE_CHARS that also
    occurs in one of `read` blanked."""
    text = normal(said).lower()
    keep = list(text)
    masked = False
    for other in read:
        other = normal(other).lower()
        if len(other) < QUOTE_CHARS:
            continue
        matcher = difflib.SequenceMatcher(None, text, other, autojunk=False)
        for block in matcher.get_matching_blocks():
            if block.size >= QUOTE_CHARS:
                keep[block.a : block.a + block.size] = " " * block.size
                masked = True
    # Untouched words are kept as the user wrote them (they become an item's source words).
    return "".join(keep) if masked else said


class UserUtterances:
    def __init__(self, utterances: Iterable[Utterance], read: Iterable[str] = ()) -> None:
        self.utterances = tuple(u for u in utterances if u.text.strip())
        # Everything Mika read in the run (screens, pages, files, history): terms found only
        # there and not in the user's words mark a save as screen words.
        self.read = tuple(read)

    @classmethod
    def from_run(cls, spec: RunSpec, evidence: EvidenceLedger | None = None) -> UserUtterances:
        if spec.provenance.origin in NOT_THE_USER:
            # A child's goal is written by its parent model, an MCP run's by another agent:
            # neither is the user speaking.
            return cls(())
        said: list[Utterance] = [Utterance(t.user, "earlier_turn") for t in spec.prior_turns]
        said.append(Utterance(spec.goal, "goal"))
        read: list[str] = []
        for obs in evidence.all() if evidence is not None else ():
            if obs.kind is ObsKind.USER_SAID:
                where = "answer" if obs.title == "answer" else "steer"
                said.append(Utterance(_mask_quotes(obs.text, read), where))
            else:
                read.append(unfence(obs.text) + "\n" + obs.title)
        return cls(said, read)

    def texts(self) -> list[str]:
        return [u.text for u in self.utterances]

    def check(self, text: str) -> Support:
        return support(text, self.texts(), self.read)

    def supports(self, text: str) -> bool:
        """Whether `text` comes from the user's words: every number and name in it and
        most of its terms are in them, and none of its other terms comes from a screen."""
        return self.check(text).ok

    def source_for(self, text: str, limit: int = 2000) -> str:
        """The utterances a save draws on (those sharing a term with it), as its source words."""
        wanted = set(terms(text))
        picked = [u.text for u in self.utterances if wanted & set(terms(u.text))]
        return " / ".join(picked)[:limit]

    def transcript(self, limit: int = 6000) -> str:
        """The user's words as the extractor reads them: one line each, nothing else."""
        lines = [f"- {' '.join(u.text.split())}" for u in self.utterances]
        text = "\n".join(lines)
        return text[-limit:] if len(text) > limit else text
