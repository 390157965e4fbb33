"""The assembly builds every face's runs: a run made by `Assembly.make_run` gets the tools
of `[mcp.servers.*]`, and none when every server is disabled."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from mika.assembly import Assembly, SelectedModels
from mika.assembly.device import DeviceChoice
from mika.config.settings import Settings
from mika.model.testing import Reply, ScriptedModel, last_tool_results
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from tests.mcp_cap.conftest import stdio_config


def _assembly(tmp_path: Path, main: ScriptedModel, settings: Settings) -> Assembly:
    models = SelectedModels(main, None, None, lambda: None, scripted=True)
    return Assembly(settings, tmp_path, models, DeviceChoice(tmp_path))


def _spec() -> RunSpec:
    return RunSpec(goal="look it up", provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED))


async def test_a_run_from_the_assembly_offers_and_calls_the_servers_tools(tmp_path):
    main = ScriptedModel([Reply.call("mcp_fx_lookup", word="beta"), "beta is the second letter."])
    asm = _assembly(tmp_path, main, Settings(language="en", mcp_servers=(stdio_config(),)))
    run = asm.make_run(_spec())
    assert [c.id for c in run.capabilities] == ["general", "mcp"]
    await run.run()
    assert "mcp_fx_lookup" in [t.name for t in main.requests[0].tools]
    assert "second letter" in last_tool_results(main.requests[1])[0]


async def test_disabled_servers_give_no_mcp_capability(tmp_path):
    off = dataclasses.replace(stdio_config(), enabled=False)
    asm = _assembly(tmp_path, ScriptedModel(["ok"]), Settings(language="en", mcp_servers=(off,)))
    run = asm.make_run(_spec())
    assert "mcp" not in [c.id for c in run.capabilities]
