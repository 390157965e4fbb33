from __future__ import annotations

import pytest

from mika.assembly import RunEnvironment, capabilities_for
from mika.model.retry import RetryPolicy
from mika.run.task_run import RunOptions, TaskRun
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from tests.agent.phoneish import PhoneishCapability, PhoneishWorld


@pytest.fixture(autouse=True)
def english_ui(monkeypatch):
    # User-facing sentences follow the UI language; tests pin it unless they set their own.
    monkeypatch.setenv("MIKA_LANGUAGE", "en")


@pytest.fixture
def world() -> PhoneishWorld:
    return PhoneishWorld()


@pytest.fixture
def make_run(tmp_path, world):
    def make(
        model,
        *,
        goal="check my orders",
        attendance=Attendance.UNATTENDED,
        origin=RunOrigin.CLI,
        light=None,
        record=True,
        budget=0,
        **options,
    ):
        spec = RunSpec(
            goal=goal, provenance=RunProvenance(origin, attendance), step_budget=budget, conversation_id="conv-1"
        )
        caps = capabilities_for(spec, RunEnvironment(extra=[PhoneishCapability(world)]))
        opts = RunOptions(
            pacing=False,
            state_dir=tmp_path if record else None,
            retry=RetryPolicy(base_delay=0.01, max_delay=0.05, total_wait_cap=1.0),
            **options,
        )
        return TaskRun(spec, model, caps, opts, light=light)

    return make
