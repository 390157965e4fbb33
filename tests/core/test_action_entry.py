"""The single action entry: passes can't be forged or reused, reads can't write."""

from __future__ import annotations

import pytest

from mika.action import executor as _executor
from mika.observe.evidence import EvidenceLedger
from mika.tool.action_pass import ActionPass, ForgedPass, issue_minter
from mika.tool.dispatcher import NotARead, ToolDispatcher
from tests.core.toy import ToyTap, ToyWorld


def test_an_action_pass_cannot_be_created_outside_the_executor():
    with pytest.raises(ForgedPass):
        ActionPass("call_1", "toy_tap")
    with pytest.raises(ForgedPass):
        ActionPass("call_1", "toy_tap", _token=object())


def test_the_minter_is_issued_only_once():
    with pytest.raises(ForgedPass):
        issue_minter()


def test_a_pass_is_spent_once_and_only_for_its_call():
    p = _executor._MINTER.mint("call_1", "toy_tap")
    with pytest.raises(ForgedPass):
        p.spend("call_2", "toy_tap")
    p.spend("call_1", "toy_tap")
    with pytest.raises(ForgedPass):
        p.spend("call_1", "toy_tap")


async def test_execute_read_rejects_a_write_tool():
    dispatcher = ToolDispatcher(EvidenceLedger())
    with pytest.raises(NotARead):
        await dispatcher.execute_read(ToyTap(ToyWorld()), {"label": "x"}, ctx=None)  # type: ignore[arg-type]


async def test_execute_without_a_pass_is_refused():
    dispatcher = ToolDispatcher(EvidenceLedger())
    with pytest.raises(PermissionError):
        await dispatcher.execute("call_1", ToyTap(ToyWorld()), {"label": "x"}, None, object())  # type: ignore[arg-type]
