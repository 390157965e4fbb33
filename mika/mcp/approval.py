"""Payment approval over MCP: the client's user is asked through elicitation, or nobody is.

A client that declares elicitation, on a connection that can send it a request while a
tool call runs (the 2025 protocol versions; 2026-07-28 connections have no back channel
mid-call), is "attended": its runs may ask. Accept with `allow` true releases exactly
that one step; anything else (decline, cancel, allow false, an error) refuses it. A client
that cannot be asked never pays: its runs are unattended (`approval_unavailable`).
"""

from __future__ import annotations

import logging
from typing import Any

from mcp.server.elicitation import AcceptedElicitation, elicit_with_validation
from mcp_types import ClientCapabilities, ElicitationCapability
from pydantic import BaseModel, Field

from mika.mcp.texts import t

log = logging.getLogger(__name__)


class AllowPaymentStep(BaseModel):
    allow: bool = Field(description="true: do exactly this one payment step now; false: do not.")


def can_elicit(rctx: Any) -> bool:
    """Whether this request's client can be asked mid-call (see the module's note)."""
    session = rctx.session
    try:
        declared = session.check_client_capability(ClientCapabilities(elicitation=ElicitationCapability()))
    except Exception:  # an old or odd client: treated as one that cannot be asked
        return False
    return bool(declared and session.can_send_request)


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
