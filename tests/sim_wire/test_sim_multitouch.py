"""The sim's scrcpy control socket with two fingers, as a client sends them: touch events
with their own pointer ids, plain DOWN/UP (what scrcpy's client sends; its server makes
ACTION_POINTER_DOWN/UP itself) or ACTION_POINTER_DOWN/UP (5/6) as Android names them.
A pinch zooms the Photos viewer, a twist rotates it, and two fingers are never a swipe."""

from __future__ import annotations

import struct
from collections.abc import Iterator

import pytest

from tests.adb_env import SimPhone
from tests.sim_wire.test_scrcpy_server import PRODUCT_OPTIONS, Session, open_session, start_app, sync_control

W, H = 720, 1280  # the product options' video size
A, B = -2, -3  # scrcpy's generic finger and virtual finger


def touch(action: int, pointer: int, x: int, y: int) -> bytes:
    return struct.pack(">BBqiiHHHii", 2, action, pointer, x, y, W, H, 0xFFFF if action not in (1, 6) else 0, 0, 0)


@pytest.fixture
def session(sim_phone: SimPhone) -> Iterator[Session]:
    s = open_session(sim_phone, *PRODUCT_OPTIONS)
    yield s
    for sock in (s.video, s.control, s.out.conn.conn):
        sock.close()


def _open(session: Session, package: str) -> None:
    session.control.sendall(start_app(package))
    sync_control(session)


def _pinch(a0, a1, b0, b1, *, down=(0, 0), up=(1, 1), steps: int = 6) -> bytes:
    """Finger A down, B down, both moved together, A lifted, then B."""
    out = touch(down[0], A, *a0) + touch(down[1], B, *b0)
    for i in range(1, steps + 1):
        ax, ay = (a0[0] + (a1[0] - a0[0]) * i // steps, a0[1] + (a1[1] - a0[1]) * i // steps)
        bx, by = (b0[0] + (b1[0] - b0[0]) * i // steps, b0[1] + (b1[1] - b0[1]) * i // steps)
        out += touch(2, A, ax, ay) + touch(2, B, bx, by)
    return out + touch(up[0], A, *a1) + touch(up[1], B, *b1)


def test_plain_down_up_with_two_pointer_ids_is_a_pinch(sim_phone: SimPhone, session: Session) -> None:
    world = sim_phone.device.world  # type: ignore[attr-defined]
    world.data.pop("photo", None)
    _open(session, "com.mika.photos")
    # 100 video px apart → 200 apart: ×2 (the video is scaled to the display, ratios stay).
    session.control.sendall(_pinch((310, 500), (260, 500), (410, 500), (460, 500)))
    sync_control(session)
    assert world.data["photo"]["zoom"] == 200
    assert len(world.data["last_stroke"]["pointers"]) == 2


def test_android_pointer_down_and_up_actions_are_taken_too(sim_phone: SimPhone, session: Session) -> None:
    world = sim_phone.device.world  # type: ignore[attr-defined]
    world.data.pop("photo", None)
    _open(session, "com.mika.photos")
    # 200 apart → 100 apart, sent as DOWN, POINTER_DOWN … POINTER_UP, UP: ×0.5.
    session.control.sendall(_pinch((260, 500), (310, 500), (460, 500), (410, 500), down=(0, 5), up=(6, 1)))
    sync_control(session)
    assert world.data["photo"]["zoom"] == 50


def test_a_twist_rotates_and_a_small_wobble_does_nothing(sim_phone: SimPhone, session: Session) -> None:
    world = sim_phone.device.world  # type: ignore[attr-defined]
    world.data.pop("photo", None)
    _open(session, "com.mika.photos")
    # The line between the fingers turns from pointing right to pointing down: +90°.
    session.control.sendall(_pinch((260, 600), (360, 500), (460, 600), (360, 700)))
    sync_control(session)
    assert world.data["photo"] == {"rotation": 90}
    # A wobble of a few pixels is under the recogniser's slop: nothing changes.
    session.control.sendall(_pinch((300, 600), (302, 601), (400, 600), (401, 599)))
    sync_control(session)
    assert world.data["photo"] == {"rotation": 90}


def test_two_fingers_over_a_list_are_not_a_swipe(sim_phone: SimPhone, session: Session) -> None:
    world = sim_phone.device.world  # type: ignore[attr-defined]
    _open(session, "com.android.settings")
    n = session.display_id
    before = dict(world.top_activity(n).scroll)
    # Both fingers drag up 300 px together: one finger would scroll the list; two do not
    # (Settings takes no two-finger gestures), and neither finger's lift is a swipe.
    session.control.sendall(_pinch((300, 900), (300, 600), (420, 900), (420, 600)))
    sync_control(session)
    # Compared by offset: a list the fingers touched may note it at 0, which is no scroll.
    assert {k: v for k, v in world.top_activity(n).scroll.items() if v} == {k: v for k, v in before.items() if v}
    assert world.top_activity(n).package == "com.android.settings"
    # The same drag with one finger does scroll: the list is under the fingers.
    moves = b"".join(touch(2, A, 300, 900 - d) for d in range(50, 301, 50))
    session.control.sendall(touch(0, A, 300, 900) + moves + touch(1, A, 300, 600))
    sync_control(session)
    assert world.top_activity(n).scroll != before
