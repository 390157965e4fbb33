"""A finished run as the faces hand it to programs: the headless `result` object and the
MCP server's run_task result are this one dictionary, and both add the same sentence
when a payment step was refused or could not be approved."""

from __future__ import annotations

from typing import Any

from mika.run.ui_text import t
from mika.runtypes.result import RunResult


def with_not_paid(answer: str) -> str:
    """The answer with the sentence that nothing was paid, in the UI language."""
    note = t("not_paid")
    return f"{answer.rstrip()}\n\n{note}" if answer.strip() else note


def result_dict(result: RunResult, conversation_id: str, *, not_paid: bool = False) -> dict[str, Any]:
    return {
        "type": "result",
        "run_id": result.run_id,
        "conversation_id": conversation_id,
        "outcome": result.status.value,
        "subtype": result.subtype,
        "answer": with_not_paid(result.answer) if not_paid else result.answer,
        "not_paid": not_paid,
        "steps": result.steps,
        "usage": {k: result.usage.get(k, 0) for k in ("input", "output", "cached")},
        "sources": [{"id": s.get("id"), "title": s.get("title"), "place": s.get("place")} for s in result.sources],
        "record": result.record_dir,
    }
