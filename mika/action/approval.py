"""`ApprovalPolicy`: approval asks about one thing only — spending money (seed §4 审批).

Sending, posting, deleting run without asking. A payment step is asked only when a person
is present at a UI or terminal run; anything else refuses it (`approval_unavailable`). The
final "pay" is never released by consent: it is handed to the user. Autonomous mode, one
global switch, lifts all of this (the classifier still runs, to pace outward actions).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from mika.action.approval_summary import ScreenSummary
from mika.action.confirmation import ConfirmationGate
from mika.action.origin import Origin
from mika.action.risk import Classified, RiskClass
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance
from mika.tool.declaration import ActionTarget


class Verdict(enum.Enum):
    GO = "go"
    RELEASED = "released"  # a consent released this payment step
    NEEDS_CONFIRMATION = "confirmation_required"
    UNAVAILABLE = "approval_unavailable"
    HAND_TO_USER = "pay_by_user"
    # A payment screen is in front and what the action would hit can't be told for sure
    # (a point between elements, Enter with no focused button): refused, never asked.
    UNCLEAR = "payment_target_unclear"


# Verdicts that mean a payment step did not happen because nobody could or did approve it.
BLOCKED = (Verdict.UNAVAILABLE.value, Verdict.HAND_TO_USER.value, Verdict.UNCLEAR.value, "refused")


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    classified: Classified

    @property
    def allowed(self) -> bool:
        return self.verdict in (Verdict.GO, Verdict.RELEASED)


class ApprovalPolicy:
    def __init__(self, provenance: RunProvenance, gate: ConfirmationGate | None, autonomous: bool) -> None:
        self.provenance = provenance
        # None in autonomous mode: nothing can be confirmed because nothing is asked.
        self.gate = gate
        self.autonomous = autonomous
        # The screen of the last payment step that was held back: what a request for
        # consent shows the person (not the model's description of it).
        self.seen: ScreenSummary | None = None

    @property
    def can_ask(self) -> bool:
        return (
            not self.autonomous
            and self.gate is not None
            and self.provenance.attendance is Attendance.PRESENT
            # An MCP run is attended only when its client can ask its user (elicitation).
            and self.provenance.origin in (RunOrigin.UI, RunOrigin.CLI, RunOrigin.MCP)
        )

    def decide(self, classified: Classified, target: ActionTarget, origin: Origin, step: int) -> Decision:
        risk = classified.risk
        if self.autonomous or risk in (RiskClass.NONE, RiskClass.OUTWARD, RiskClass.IRREVERSIBLE):
            return Decision(Verdict.GO, classified)
        if risk is RiskClass.PAY:
            return Decision(Verdict.HAND_TO_USER, classified)
        if target.unclear:
            return Decision(Verdict.UNCLEAR, classified)
        # A payment step.
        if not self.can_ask:
            return Decision(Verdict.UNAVAILABLE, classified)
        assert self.gate is not None
        if self.gate.release(
            app=target.app,
            kind=target.kind,
            screen_text=target.screen_text,
            on_screen=target.on_screen,
            step=step,
            label=target.label,
            origin=origin,
        ):
            return Decision(Verdict.RELEASED, classified)
        return Decision(Verdict.NEEDS_CONFIRMATION, classified)
