"""`MemoryExtractor`: after an answered run of a conversation, the light model (main as
fallback) reads the user's own words — and nothing else — and proposes what to remember.

The request holds only `UserUtterances.transcript()`: no screen, page, file or answer
text ever reaches it, so a screen that says "remember my PIN" has no way in. Every
proposal still goes through `supports()` and the store's gate (sensitive values,
duplicates) before it is kept. Not run when the run read a web page (seed §12), nor for
runs outside a conversation, nor for triggers and child runs (nobody spoke).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from mika.memory.store import MemoryFileError, MemoryItem, MemoryKind, MemoryRefused, MemoryStore
from mika.memory.utterances import NOT_THE_USER, UserUtterances
from mika.model.messages import Message, ModelRequest, ModelResponse
from mika.observe.evidence import EvidenceLedger
from mika.observe.observation import ObsKind
from mika.resources import prompt
from mika.runtypes.spec import RunOrigin, RunSpec

log = logging.getLogger(__name__)

EXTRACT_TIMEOUT_S = 30.0
# The side call (light model first, main as fallback), given by the run: memory sits below
# the agent layer and does not call models itself. None: no model answered.
Ask = Callable[[ModelRequest], Awaitable[ModelResponse | None]]
MAX_PROPOSALS = 5
_LINE = re.compile(r"^\s*(?:[-*]\s*)?(fact|preference|procedure)\s*[:：]\s*(.+?)\s*$", re.I)
_WEB_PLACES = frozenset({"site", "page"})


def read_web(evidence: EvidenceLedger | None) -> bool:
    """Whether the run read a web page: an observation from the web capability or of a
    site/page place, or a child run's answer (ObsKind.REPLY: the child may have read pages,
    and what it says of them must not become the user's memory either)."""
    for obs in evidence.all() if evidence is not None else ():
        if obs.source == "web" or (obs.place is not None and obs.place.kind in _WEB_PLACES):
            return True
        if obs.kind is ObsKind.REPLY:
            return True
    return False


def eligible(spec: RunSpec, evidence: EvidenceLedger | None) -> bool:
    if not spec.conversation_id or spec.provenance.origin in (RunOrigin.TRIGGER, *NOT_THE_USER):
        return False
    return not read_web(evidence)


def parse_proposals(text: str) -> list[tuple[MemoryKind, str]]:
    out: list[tuple[MemoryKind, str]] = []
    for line in text.splitlines():
        m = _LINE.match(line)
        if m:
            out.append((MemoryKind(m.group(1).lower()), m.group(2)))
    return out[:MAX_PROPOSALS]


@dataclass
class MemoryExtractor:
    ask: Ask
    store: MemoryStore

    def request(self, said: UserUtterances) -> ModelRequest:
        body = "What the user said in this conversation, one message a line:\n" + said.transcript()
        return ModelRequest(
            system=prompt("roles/memory_extraction.md"),
            messages=(Message.user(body),),
            max_output_tokens=300,
            purpose="memory",
        )

    async def run(self, spec: RunSpec, evidence: EvidenceLedger | None) -> list[MemoryItem]:
        if not eligible(spec, evidence):
            return []
        said = UserUtterances.from_run(spec, evidence)
        if not said.utterances:
            return []
        response = await self.ask(self.request(said))
        if response is None:
            return []
        kept: list[MemoryItem] = []
        for kind, text in parse_proposals(response.message.text):
            if not said.supports(text):
                log.info("memory proposal not in the user's words, dropped")
                continue
            try:
                kept.append(self.store.add(kind, text, said.source_for(text), conversation_id=spec.conversation_id))
            except MemoryRefused as refused:
                log.info("memory proposal refused: %s", refused.code)
            except MemoryFileError as exc:
                log.warning("memory not saved: %s", exc)
                break
        return kept
