"""phone_pull_file through the real adb server (sync STAT/RECV) against the simulated phone:
the copy lands in the conversation's workspace, never over an existing file; paths outside
shared storage, '..', folders, missing and oversize files are refused."""

from __future__ import annotations

import os

import pytest

from mika.action.origin import Origin
from mika.assembly import RunEnvironment, capabilities_for
from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.cap.phone.adb.reconnect import ReconnectPolicy
from mika.cap.phone.tools import pull
from mika.config.paths import workspace_dir
from mika.model.messages import ToolCall
from mika.run.acting import build_acting
from mika.run.task_run import RunOptions
from mika.runtypes.inbox import RunInbox
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec


@pytest.fixture
def run(sim_phone, tmp_path):
    port = AdbPort(sim_phone.serial, sim_phone.server.client(), reconnect=ReconnectPolicy(first_delay=0.05, total=2.0))
    cap = PhoneCapability(port, workspaces=tmp_path / "state")
    spec = RunSpec(goal="x", provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED), conversation_id="c1")
    events: list = []
    acting = build_acting(
        spec,
        capabilities_for(spec, RunEnvironment(extra=[cap])),
        RunOptions(pacing=False),
        inbox=RunInbox(),
        emit=events.append,
        recorder=None,
    )

    async def call(path: str):
        return await acting.executor.perform(ToolCall("p", "phone_pull_file", {"path": path}), acting.ctx, Origin.MODEL)

    return call


@pytest.fixture
def folder(tmp_path):
    return workspace_dir(tmp_path / "state", "c1") / "phone"


def push(sim_phone, tmp_path, data: bytes, where: str) -> None:
    src = tmp_path / "src.bin"
    src.write_bytes(data)
    sim_phone.run_adb("push", str(src), where)


async def test_a_file_lands_in_the_workspace_and_never_over_another(run, folder, sim_phone, tmp_path) -> None:
    data = os.urandom(200_000)  # several sync DATA chunks
    push(sim_phone, tmp_path, data, "/sdcard/Download/report.pdf")
    out = await run("/sdcard/Download/report.pdf")
    assert out.ok, out.text
    assert "/workspace/phone/report.pdf" in out.text and "200000 bytes" in out.text
    assert (folder / "report.pdf").read_bytes() == data
    (folder / "report.pdf").write_bytes(b"the user's edit")
    out = await run("/storage/emulated/0/Download/report.pdf")
    assert out.ok and "report-2.pdf" in out.text, out.text
    assert (folder / "report.pdf").read_bytes() == b"the user's edit"
    assert (folder / "report-2.pdf").read_bytes() == data
    assert sorted(p.name for p in folder.iterdir()) == ["report-2.pdf", "report.pdf"]  # no .part left


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("/data/local/tmp/x.txt", "shared storage"),
        ("/proc/version", "shared storage"),
        ("/sdcard/../data/local/tmp/x.txt", "'..'"),
        ("Download/report.pdf", "full path"),
        ("/sdcard/Download/none.txt", "no file"),
        ("/sdcard/Download", "not a plain file"),
        ("/sdcard/a\nb", "control characters"),
    ],
)
async def test_refused_paths_copy_nothing(run, folder, sim_phone, tmp_path, path, said) -> None:
    push(sim_phone, tmp_path, b"secret", "/data/local/tmp/x.txt")
    out = await run(path)
    assert not out.ok and said in out.text, out.text
    assert not folder.exists() or not any(folder.iterdir())


async def test_an_oversize_file_is_refused(run, folder, sim_phone, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(pull, "PULL_MAX", 1000)  # the real cap is 200 MB; the rule is the same
    push(sim_phone, tmp_path, b"x" * 1001, "/sdcard/Download/big.bin")
    out = await run("/sdcard/Download/big.bin")
    assert out.code == "pull_failed" and "at most 1000" in out.text
    assert not any(folder.iterdir())


async def test_a_link_in_place_of_the_folder_is_refused(run, folder, tmp_path, sim_phone) -> None:
    push(sim_phone, tmp_path, b"hi", "/sdcard/Download/a.txt")
    folder.parent.mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    folder.symlink_to(outside)
    out = await run("/sdcard/Download/a.txt")
    assert out.code == "path_refused"
    assert not any(outside.iterdir())
