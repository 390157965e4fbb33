"""How long phone_collect takes to read each long list of the simulated phone, and
whether it read all of it (issue 33).

One scripted run per shape (real TaskRun, real phone capability, a real adb server on a
free port, scenario long_lists; the group chat from scenario group_chat): open the list,
collect it whole. The table gives rows read against rows the data has, rows alike (every
field the same: the chat has two, Tom's "我带吃的" at 09:45 on two days, both kept), the
screens read, why it stopped, and the wall time of the collect call.

    uv run python benchmarks/long_reads.py [--mode virtual|main] [--backend u2|dump]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._sim_bench import bench_phone
from tests.phone.driver import ListingDriver, step


def _data(name: str) -> dict:
    return json.loads((resources.files("mika.sim.world") / "scenarios" / "data" / f"{name}.json").read_text("utf-8"))


def shapes() -> list[tuple[str, str, list, str, int, bool]]:
    """(shape, scenario, steps to open it, direction, rows the data has, grouped contacts)."""
    d = _data("long_lists")
    teas = [i for i in d["shop"]["items"] if "tea" in i["name"].lower()]
    letters = {c["name"][0] for c in d["contacts"]}
    return [
        ("contacts", "long_lists", [step("phone_launch_app", app="Contacts")], "down", len(d["contacts"]), False),
        (
            "contacts, sticky letters",
            "long_lists",
            [step("phone_launch_app", app="Contacts")],
            "down",
            len(d["contacts"]) + len(letters),
            True,
        ),
        (
            "settings: languages",
            "long_lists",
            [
                step("phone_launch_app", app="Settings"),
                step("phone_find", target="System", match="exact"),
                step("phone_tap", pick="System"),
                step("phone_tap", pick="Languages"),
            ],
            "down",
            len(d["locales"]),
            False,
        ),
        ("message list", "long_lists", [step("phone_launch_app", app="Messages")], "down", len(d["threads"]), False),
        (
            "shop results",
            "long_lists",
            [
                step("phone_launch_app", app="Shop"),
                step("phone_type_text", pick="Search products", text="tea", submit=True),
            ],
            "down",
            len(teas),
            False,
        ),
        ("loads more", "long_lists", [step("phone_launch_app", app="Moments")], "down", len(d["feed_posts"]), False),
        ("carousel", "long_lists", [step("phone_launch_app", app="Shop")], "right", len(d["shop"]["picks"]), False),
        (
            "group chat",
            "group_chat",
            [step("phone_launch_app", app="微聊"), step("phone_tap", pick="周末户外群")],
            "up",
            300,
            False,
        ),
    ]


async def _collect(phone, opening: list, direction: str, mode: str, backend: str, tmp: Path) -> tuple[dict, float]:
    from mika.assembly import RunEnvironment, capabilities_for
    from mika.cap.phone import PhoneCapability
    from mika.cap.phone.adb.port import AdbPort
    from mika.run.task_run import RunOptions, TaskRun
    from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec

    cap = PhoneCapability(AdbPort(phone.serial, phone.client, backend=backend), display_mode=mode)
    driver = ListingDriver([*opening, step("phone_collect", direction=direction, max_screens=100), "done"])
    spec = RunSpec(goal="read the list", provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED))
    run = TaskRun(
        spec, driver.model, capabilities_for(spec, RunEnvironment(extra=[cap])), RunOptions(pacing=False, state_dir=tmp)
    )
    await run.run()
    events = [json.loads(x) for x in (Path(run.result.record_dir) / "events.jsonl").read_text().splitlines()]
    out = next(e for e in events if e["type"] == "tool_result" and e["name"] == "phone_collect")
    return out, out["duration_ms"] / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mode", choices=("virtual", "main"), default="virtual")
    parser.add_argument("--backend", choices=("dump", "u2"), default="u2")
    args = parser.parse_args()
    print(f"phone_collect on the simulated phone: display {args.mode}, backend {args.backend}")
    print()
    print("| shape | rows in data | rows read | rows alike | screens | stop | complete | collect s |")
    print("|---|---:|---:|---:|---:|---|---|---:|")
    started = time.monotonic()
    for shape, scenario, opening, direction, want, grouped in shapes():
        with bench_phone(scenario) as phone, tempfile.TemporaryDirectory() as tmp:
            if grouped:
                phone.world.data["contacts_grouped"] = True
                phone.world.changed()
            out, seconds = asyncio.run(_collect(phone, opening, direction, args.mode, args.backend, Path(tmp)))
        keys = [json.dumps(r["fields"], ensure_ascii=False) for r in out["rows"]]
        read = out.get("read", {})
        print(
            f"| {shape} | {want} | {len(keys)} | {len(keys) - len(set(keys))} | {read.get('screens', '?')} "
            f"| {read.get('stop', '?')} | {read.get('complete', '?')} | {seconds:.1f} |"
        )
    print()
    print(f"all shapes: {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
