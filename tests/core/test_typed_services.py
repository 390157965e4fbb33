"""Services are found by their class (ctx.service(ApprovalPolicy)), never by a string key."""

from __future__ import annotations

import pytest

from mika.action.approval import ApprovalPolicy
from mika.cap.general.confirmation import RequestConfirmation
from mika.observe.evidence import EvidenceLedger
from mika.runtypes.inbox import RunInbox
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from mika.tool.context import ToolContext, services_by_type


class Desk:
    pass


class OtherDesk(Desk):
    pass


def _ctx(*services: object) -> ToolContext:
    spec = RunSpec(goal="pay", provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED))
    return ToolContext(
        spec=spec, inbox=RunInbox(), emit=lambda e: None, evidence=EvidenceLedger(), services=services_by_type(services)
    )


def test_a_service_is_found_by_its_class_and_only_by_it():
    desk, other = Desk(), OtherDesk()
    ctx = _ctx(desk, other)
    assert ctx.service(Desk) is desk
    assert ctx.service(OtherDesk) is other
    assert ctx.service(ApprovalPolicy) is None


def test_two_services_of_one_class_are_refused():
    with pytest.raises(ValueError, match="two services of class Desk"):
        services_by_type([Desk(), Desk()])


def test_a_string_key_finds_nothing():
    # What the old string table allowed: something stored under a name is not a service.
    ctx = _ctx()
    ctx.services["approval"] = ApprovalPolicy(RunProvenance(RunOrigin.CLI, Attendance.PRESENT), None, False)  # type: ignore[index]
    assert ctx.service(ApprovalPolicy) is None


async def test_request_confirmation_without_an_approval_policy_asks_nobody():
    out = await RequestConfirmation().run({"what": "coffee", "amount": "¥23.50"}, _ctx(Desk()))
    assert not out.ok and out.code == "approval_unavailable"


async def test_request_confirmation_finds_the_runs_policy_by_type():
    # With a policy that can ask, the tool gets past "nobody can approve" to its next check.
    from mika.action.confirmation import ConfirmationGate

    policy = ApprovalPolicy(RunProvenance(RunOrigin.UI, Attendance.PRESENT), ConfirmationGate(), False)
    assert policy.can_ask
    out = await RequestConfirmation().run({"what": "coffee", "amount": "no amount"}, _ctx(policy))
    assert out.code == "amount_required", "the policy was found by its class, so the tool went on to check the amount"


def test_a_service_protocol_finds_its_one_implementation_by_the_base_class():
    from mika.tool.declaration import ToolOutcome
    from mika.tool.links import LinkReader

    class Browser(LinkReader):
        async def read_link(self, url: str) -> ToolOutcome:
            return ToolOutcome(text=url)

    browser = Browser()
    ctx = _ctx(browser, Desk())
    assert ctx.service(LinkReader) is browser
    assert ctx.service(Browser) is browser
    # A plain base class is not a protocol: an OtherDesk is not found as a Desk.
    assert _ctx(OtherDesk()).service(Desk) is None
    with pytest.raises(ValueError, match="two services of class LinkReader"):
        services_by_type([Browser(), Browser.__new__(type("Other", (Browser,), {}))])
