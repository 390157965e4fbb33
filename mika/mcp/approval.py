"""Payment approval over MCP: the client's user is asked through elicitation, or nobody is.

A client that declares elicitation is "attended". On a connection that can send it a
request while a tool call runs (the 2025 protocol versions) the question is sent mid-call;
on a 2026-07-28 connection (no back channel mid-call) a phone tool's call answers with an
InputRequiredResult carrying the question, and the client's retry carries the answer
(`PendingQuestions`). A whole run (`run_task`) can only be asked mid-call, so on such a
connection it is unattended. Accept with `allow` true releases exactly that one step;
anything else (decline, cancel, allow false, an error, a retry that does not match the
question) refuses it. A client that cannot be asked never pays (`approval_unavailable`).
"""

from __future__ import annotations

import json
import logging
import secrets
from dataclasses import dataclass
from typing import Any

from mcp.server.elicitation import AcceptedElicitation, elicit_with_validation, render_elicitation_schema
from mcp_types import (
    ClientCapabilities,
    ElicitationCapability,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
)
from pydantic import BaseModel, Field

from mika.action.approval_summary import ScreenSummary
from mika.mcp.texts import t

log = logging.getLogger(__name__)


class AllowPaymentStep(BaseModel):
    allow: bool = Field(description="true: do exactly this one payment step now; false: do not.")


def declares_elicitation(rctx: Any) -> bool:
    try:
        return bool(rctx.session.check_client_capability(ClientCapabilities(elicitation=ElicitationCapability())))
    except Exception:  # an old or odd client: treated as one that cannot be asked
        return False


def can_elicit(rctx: Any) -> bool:
    """Whether this request's client can be asked mid-call (see the module's note)."""
    return declares_elicitation(rctx) and bool(rctx.session.can_send_request)


def allowed_in(response: Any) -> bool:
    """An elicitation answer (a client's ElicitResult) that allows the step, and nothing else."""
    if not isinstance(response, ElicitResult) or response.action != "accept":
        return False
    try:
        return AllowPaymentStep.model_validate(response.content or {}).allow
    except ValueError:
        return False


@dataclass(frozen=True)
class Question:
    tool: str
    arguments: str  # the call's arguments as canonical JSON: the retry must be the same call
    seen: ScreenSummary


class PendingQuestions:
    """Payment questions sent in an InputRequiredResult, by their one-use state token.
    A retry is answered only with the token this server minted for that very call."""

    KEY = "payment"

    def __init__(self) -> None:
        self._open: dict[str, Question] = {}

    def ask(self, tool: str, arguments: dict[str, Any], seen: ScreenSummary) -> InputRequiredResult:
        token = secrets.token_urlsafe(16)
        if len(self._open) > 64:  # questions nobody answered: the oldest go
            self._open.pop(next(iter(self._open)))
        self._open[token] = Question(tool, _canonical(arguments), seen)
        request = ElicitRequest(
            params=ElicitRequestFormParams(
                message=t("pay_question", shown=seen.line()),
                requested_schema=render_elicitation_schema(AllowPaymentStep),
            )
        )
        return InputRequiredResult(input_requests={self.KEY: request}, request_state=token)

    def answer(self, params: Any, tool: str, arguments: dict[str, Any]) -> tuple[Question, bool] | None:
        """(the question, allowed) for a retry that carries this server's token for this
        very call; None when the call is not such a retry."""
        token = getattr(params, "request_state", None)
        if not token:
            return None
        question = self._open.pop(token, None)
        if question is None or question.tool != tool or question.arguments != _canonical(arguments):
            return None
        responses = getattr(params, "input_responses", None) or {}
        return question, allowed_in(responses.get(self.KEY))


def _canonical(arguments: dict[str, Any]) -> str:
    return json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)


async def ask_payment_step(rctx: Any, shown: str) -> bool:
    """Ask the client's user about one payment step; True only for an explicit allow."""
    try:
        result = await elicit_with_validation(
            session=rctx.session,
            message=t("pay_question", shown=shown),
            schema=AllowPaymentStep,
            related_request_id=rctx.request_id,
        )
    except Exception as exc:  # a broken answer is no consent
        log.info("payment elicitation failed: %s", exc)
        return False
    return isinstance(result, AcceptedElicitation) and result.data.allow
