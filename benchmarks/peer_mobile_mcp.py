"""Mika beside a public peer, the MCP server @mobilenext/mobile-mcp 1.0.4, on the same
simulated phone (issue 35): each operation called as an MCP client calls it, through the
`mcp` SDK's stdio client, on both servers, and checked on the phone's state afterwards
(a row whose call did not do its job stops the benchmark instead of timing it).

Both act on the main screen (Mika with `[phone] display = "main"`, so the two touch the
same display) at pace fast (`mika mcp --pace fast`: no human-like waits; the peer has
none). Before each call the phone is put in the row's starting state (outside the clock);
the clock runs from the request to its answer. Rounds alternate which server goes first.
Every round starts from the same screens, so what either server keeps of a screen it saw
before (Mika: the screen built from a dump seen again, mika/cap/phone/reader.py) applies,
as it does when a run comes back to a screen; the first round of each row is untimed.

Rows: screenshot (and its image's bytes), list the elements, tap a point, scroll, launch
an app, type ASCII, type Chinese, back, home, and the dark-mode task — open Settings,
Display, switch Dark theme on — done with the fewest calls each server's answers allow
(the peer's taps and launches answer with no screen, so it lists the elements before each
tap; Mika's answers carry the new screen's listing).

The peer is found as the tests find it: MIKA_PEER_MOBILE_MCP (see .ci/run), with node.

    uv run python benchmarks/peer_mobile_mcp.py [--rounds N] [--only ROW,ROW] [--json FILE]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from _sim_bench import BenchPhone, bench_phone, free_port
from mcp import StdioServerParameters

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the peer's session and launch helpers live with its test

from tests.peer.mcp_session import PeerSession, Reply, peer_entry, peer_env, stop_peer_daemon  # noqa: E402

SETTINGS = "com.android.settings"
LAUNCHER = "com.android.launcher3"
SIGN_IN = "com.mika.account/.SignInActivity"
ASCII_TEXT = "hello world 42"
CHINESE_TEXT = "你好，世界"


class Failed(Exception):
    """A call that did not do its row's job: the row is not timed."""


@dataclass
class Rig:
    phone: BenchPhone
    mika: PeerSession
    peer: PeerSession

    @property
    def world(self) -> Any:
        return self.phone.world

    def shell(self, command: str) -> str:
        return str(self.phone.client.device(self.phone.serial).shell(command))

    def fresh(self, activity: str | None = None) -> None:
        """The default world, on the launcher or with `activity` started (outside the clock)."""
        self.world.reset("default")
        if activity is not None:
            self.shell(f"am start -n {activity}")

    def top(self) -> str:
        top = self.world.top_activity(0)
        return top.package if top is not None else ""


def _ok(reply: Reply, what: str) -> Reply:
    if reply.failed:
        raise Failed(f"{what}: {reply.text[:400]}")
    return reply


def _peer(rig: Rig, name: str, **args: object) -> Reply:
    return _ok(rig.peer.call(name, device=rig.phone.serial, **args), name)


def _mika(rig: Rig, name: str, **args: object) -> Reply:
    return _ok(rig.mika.call(name, **args), name)


def _peer_elements(rig: Rig) -> list[dict[str, Any]]:
    text = _peer(rig, "mobile_list_elements_on_screen", format="json").text
    return json.loads(text.removeprefix("Found these elements on screen: "))


def _peer_centre(elements: list[dict[str, Any]], label: str) -> tuple[int, int]:
    for e in elements:
        if label in (e.get("text") or "") or label in (e.get("label") or ""):
            box = e["coordinates"]
            return box["x"] + box["width"] // 2, box["y"] + box["height"] // 2
    raise Failed(f"the peer's listing has no {label!r}")


def _mika_number(listing: str, label: str) -> int:
    """The element number of the first listed line whose label contains `label`."""
    for line in listing.splitlines():
        m = re.match(r'(\d+) \S+ "([^"]*)"', line)
        if m and label in m.group(2):
            return int(m.group(1))
    raise Failed(f"Mika's listing has no {label!r}:\n{listing[:600]}")


def _image_bytes(reply: Reply) -> int:
    images = [c for c in reply.content if getattr(c, "type", "") == "image"]
    if len(images) != 1:
        raise Failed(f"a screenshot answer has {len(images)} images")
    return len(base64.b64decode(images[0].data))


# --- the rows: each is (setup, {system: call}, check); a call returns image bytes or None


def _username_centre(rig: Rig) -> tuple[int, int]:
    rig.fresh(SIGN_IN)
    for e in _peer_elements(rig):
        if (e.get("identifier") or "").endswith("username"):
            box = e["coordinates"]
            return box["x"] + box["width"] // 2, box["y"] + box["height"] // 2
    raise Failed("the sign-in screen has no username field")


@dataclass(frozen=True)
class Row:
    name: str
    setup: Callable[[Rig], None]
    calls: dict[str, Callable[[Rig], int | None]]
    check: Callable[[Rig], bool]


def _rows(rig: Rig) -> list[Row]:
    ux, uy = _username_centre(rig)

    def focused(r: Rig) -> None:
        r.fresh(SIGN_IN)
        r.shell(f"input tap {ux} {uy}")

    def typed(text: str) -> Callable[[Rig], bool]:
        return lambda r: r.world.top_activity(0).fields.get("user") == text

    def scrolled(r: Rig) -> bool:
        scroll = r.world.top_activity(0).scroll
        return bool(scroll) and max(scroll.values()) > 0

    def peer_dark(r: Rig) -> None:
        _peer(r, "mobile_launch_app", packageName=SETTINGS)
        x, y = _peer_centre(_peer_elements(r), "Display")
        _peer(r, "mobile_click_on_screen_at_coordinates", x=x, y=y)
        x, y = _peer_centre(_peer_elements(r), "Dark theme")
        _peer(r, "mobile_click_on_screen_at_coordinates", x=x, y=y)

    def mika_dark(r: Rig) -> None:
        opened = _mika(r, "phone_launch_app", app=SETTINGS).text
        display = _mika(r, "phone_tap", element=_mika_number(opened, "Display")).text
        _mika(r, "phone_tap", element=_mika_number(display, "Dark theme"))

    return [
        Row(
            "screenshot",
            lambda r: r.fresh(f"{SETTINGS}/.Settings"),
            {
                "mika": lambda r: _image_bytes(_mika(r, "phone_screenshot")),
                "peer": lambda r: _image_bytes(_peer(r, "mobile_take_screenshot")),
            },
            lambda r: r.top() == SETTINGS,
        ),
        Row(
            "list elements",
            lambda r: r.fresh(f"{SETTINGS}/.Settings"),
            {
                "mika": lambda r: _need(_mika(r, "phone_list_elements"), "Network & internet"),
                "peer": lambda r: _need(_peer(r, "mobile_list_elements_on_screen"), "Network & internet"),
            },
            lambda r: r.top() == SETTINGS,
        ),
        Row(
            "tap a point",
            lambda r: r.fresh(SIGN_IN),
            {
                "mika": lambda r: _none(_mika(r, "phone_tap", x=ux, y=uy)),
                "peer": lambda r: _none(_peer(r, "mobile_click_on_screen_at_coordinates", x=ux, y=uy)),
            },
            lambda r: r.world.top_activity(0).focus == "user",
        ),
        Row(
            "scroll",
            lambda r: r.fresh(f"{SETTINGS}/.Settings"),
            {
                "mika": lambda r: _none(_mika(r, "phone_scroll", direction="down")),
                "peer": lambda r: _none(_peer(r, "mobile_swipe_on_screen", direction="up")),
            },
            scrolled,
        ),
        Row(
            "launch an app",
            lambda r: r.fresh(),
            {
                "mika": lambda r: _none(_mika(r, "phone_launch_app", app=SETTINGS)),
                "peer": lambda r: _none(_peer(r, "mobile_launch_app", packageName=SETTINGS)),
            },
            lambda r: r.top() == SETTINGS,
        ),
        Row(
            "type ASCII",
            focused,
            {
                "mika": lambda r: _none(_mika(r, "phone_type_text", text=ASCII_TEXT)),
                "peer": lambda r: _none(_peer(r, "mobile_type_keys", text=ASCII_TEXT, submit=False)),
            },
            typed(ASCII_TEXT),
        ),
        Row(
            "type Chinese",
            focused,
            {
                "mika": lambda r: _none(_mika(r, "phone_type_text", text=CHINESE_TEXT)),
                "peer": lambda r: _none(_peer(r, "mobile_type_keys", text=CHINESE_TEXT, submit=False)),
            },
            typed(CHINESE_TEXT),
        ),
        Row(
            "back",
            lambda r: r.fresh(f"{SETTINGS}/.Settings"),
            {
                "mika": lambda r: _none(_mika(r, "phone_back")),
                "peer": lambda r: _none(_peer(r, "mobile_press_button", button="BACK")),
            },
            lambda r: r.top() == LAUNCHER,
        ),
        Row(
            "home",
            lambda r: r.fresh(f"{SETTINGS}/.Settings"),
            {
                "mika": lambda r: _none(_mika(r, "phone_press_key", key="HOME")),
                "peer": lambda r: _none(_peer(r, "mobile_press_button", button="HOME")),
            },
            lambda r: r.top() == LAUNCHER,
        ),
        Row(
            "dark-mode task",
            lambda r: r.fresh(),
            {"mika": lambda r: _none(mika_dark(r)), "peer": lambda r: _none(peer_dark(r))},
            lambda r: r.world.data["settings"]["dark_mode"] is True,
        ),
    ]


def _need(reply: Reply, text: str) -> None:
    if text not in reply.text:
        raise Failed(f"the answer lacks {text!r}: {reply.text[:400]}")


def _none(_: object) -> None:
    return None


# --- the servers


def _mika_session(rig_dir: Path, serial: str, adb_port: int, errlog: TextIO) -> PeerSession:
    cfg = rig_dir / "mika-config.toml"
    # The model is never asked here (only the phone tools are called); the provider is a
    # closed loopback port so nothing leaves the machine.
    cfg.write_text(
        f'[providers.local]\nkind = "openai-chat"\nbase_url = "http://127.0.0.1:{free_port()}/v1"\n'
        'api_key_env = "MIKA_BENCH_KEY"\n[roles]\nmain = "local/m"\n[phone]\ndisplay = "main"\n'
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    env.update(
        MIKA_STATE_DIR=str(rig_dir / "mika-state"),
        XDG_CONFIG_HOME=str(rig_dir / "xdg"),
        MIKA_BENCH_KEY="sk-bench",
        ANDROID_ADB_SERVER_PORT=str(adb_port),
        ADB_MDNS="0",
    )
    argv = ["-c", "from mika_tui.launcher import main; main()", "mcp", "--device", serial, "--pace", "fast"]
    params = StdioServerParameters(command=sys.executable, args=[*argv, "--config", str(cfg)], env=env)
    return PeerSession(params, errlog=errlog)


def _median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", default="", help="comma-separated row names (default: every row)")
    ap.add_argument("--json", type=Path, default=None, help="also write the medians here")
    args = ap.parse_args()
    entry = peer_entry()
    if shutil.which("node") is None or entry is None:
        sys.exit("needs node and MIKA_PEER_MOBILE_MCP naming an installed @mobilenext/mobile-mcp 1.0.4 (see .ci/run)")
    only = {s.strip() for s in args.only.split(",") if s.strip()}

    with bench_phone() as phone, tempfile.TemporaryDirectory(prefix="mika-peer-bench-") as tmp:
        rig_dir = Path(tmp)
        os.symlink(phone.adb, rig_dir / "adb")
        env = peer_env(str(rig_dir), phone.port, free_port())
        # The servers' stderr (the peer logs every call there) goes to a file, not the table.
        errlog = (rig_dir / "servers.log").open("w")
        peer = PeerSession(StdioServerParameters(command="node", args=[str(entry)], env=env), errlog=errlog)
        mika = _mika_session(rig_dir, phone.serial, phone.port, errlog)
        rig = Rig(phone, mika, peer)
        times: dict[str, dict[str, list[float]]] = {}
        pictures: dict[str, list[int]] = {"mika": [], "peer": []}
        try:
            rows = [row for row in _rows(rig) if not only or row.name in only]
            for row in rows:  # one untimed call each: first-use costs belong to first_answer.py
                for call in row.calls.values():
                    row.setup(rig)
                    call(rig)
            for n in range(args.rounds):
                for row in rows:
                    order = list(row.calls.items())
                    for system, call in order if n % 2 == 0 else order[::-1]:
                        row.setup(rig)
                        t0 = time.perf_counter()
                        got = call(rig)
                        took = time.perf_counter() - t0
                        if not row.check(rig):
                            raise Failed(f"{row.name}: {system}'s call answered but the phone shows it undone")
                        times.setdefault(row.name, {}).setdefault(system, []).append(took)
                        if got is not None:
                            pictures[system].append(got)
        except Failed as exc:
            sys.exit(f"benchmark stopped: {exc}")
        finally:
            mika.close()
            peer.close()
            stop_peer_daemon(entry, env)
            errlog.close()

    print(
        f"Mika (mika mcp --pace fast) and @mobilenext/mobile-mcp 1.0.4 on the simulated phone; ms, median of {args.rounds}"
    )
    print(f"{'row':<18}{'mika':>9}{'peer':>9}{'ratio':>8}{'ok':>5}")
    out: dict[str, Any] = {}
    for name, by in times.items():
        m, p = _median_ms(by["mika"]), _median_ms(by["peer"])
        ok = "yes" if m <= p else "NO"
        print(f"{name:<18}{m:>9.1f}{p:>9.1f}{m / p:>7.2f}×{ok:>5}")
        out[name] = {"mika_ms": m, "peer_ms": p, "ratio": m / p}
    if pictures["mika"] and pictures["peer"]:
        m_b, p_b = statistics.median(pictures["mika"]), statistics.median(pictures["peer"])
        ok = "yes" if m_b <= 0.5 * p_b else "NO"
        print(f"{'image bytes':<18}{m_b:>9.0f}{p_b:>9.0f}{m_b / p_b:>7.2f}×{ok:>5}  (target ≤ 0.50×)")
        out["image bytes"] = {"mika": m_b, "peer": p_b, "ratio": m_b / p_b}
    print(f"load average {os.getloadavg()[0]:.1f}")
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
