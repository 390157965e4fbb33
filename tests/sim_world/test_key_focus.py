"""Key focus in the simulated phone: DPAD_DOWN / DPAD_UP / TAB move focus over the
clickable views (not only fields), the dump shows it as focused="true", ENTER and
DPAD_CENTER press the focused view, a touch leaves key focus, and keys never reach a
view that a dialog covers."""

from __future__ import annotations

from mika.sim.phone import make_device
from tests.adb_env import SimPhone
from tests.sim_world.driver import Local, OverAdb, dump, find, tap, texts

SIGN_IN = "com.mika.account/.SignInActivity"


def _focused(d) -> list[str]:
    return [n.get("resource-id", "").rsplit("/", 1)[-1] for n in dump(d).iter("node") if n.get("focused") == "true"]


def _toast(d) -> str | None:
    # A toast is its own window, which `uiautomator dump` (the focused window) never holds.
    phone = d.phone if isinstance(d, Local) else d.sim.device
    return phone.world.last_toast


def _keys(d, *names: str) -> None:
    for name in names:
        d.shell(f"input keyevent KEYCODE_{name}")


def _sign_in() -> Local:
    d = Local(make_device("w"))
    d.shell(f"am start -n {SIGN_IN}")
    assert _focused(d) == []
    return d


def test_dpad_walks_fields_and_buttons_in_order_and_stops_at_the_ends() -> None:
    d = _sign_in()
    seen = []
    for _ in range(5):
        _keys(d, "DPAD_DOWN")
        seen.append(_focused(d))
    # the screen's last focusable is the "Sign in with phone number" button
    assert seen == [["username"], ["password"], ["sign_in"], ["phone_sign_in"], ["phone_sign_in"]]
    _keys(d, "DPAD_UP")
    button = find(d, rid="sign_in")
    assert button is not None and button.get("focused") == "true" and button.get("clickable") == "true"
    _keys(d, "DPAD_UP")
    assert _focused(d) == ["password"]
    _keys(d, "DPAD_UP", "DPAD_UP", "DPAD_UP")
    assert _focused(d) == ["username"]


def test_tab_moves_forward_and_goes_round() -> None:
    d = _sign_in()
    order = []
    for _ in range(5):
        _keys(d, "TAB")
        order.append(_focused(d))
    assert order == [["username"], ["password"], ["sign_in"], ["phone_sign_in"], ["username"]]


def test_typing_goes_to_the_field_key_focus_reached_and_nowhere_on_a_button() -> None:
    d = _sign_in()
    _keys(d, "TAB")
    d.shell("input text ann")
    _keys(d, "TAB")
    d.shell("input text pw1")
    _keys(d, "TAB")
    d.shell("input text xyz")  # a button has focus: nothing is typed anywhere
    fields = d.phone.world.top_activity(0).fields
    assert (fields["user"], fields["pw"]) == ("ann", "pw1")
    assert find(d, rid="username").get("text") == "ann"


def test_enter_and_dpad_center_press_the_focused_button_like_a_tap() -> None:
    for press in ("ENTER", "DPAD_CENTER"):
        d = _sign_in()
        _keys(d, "DPAD_DOWN", "DPAD_DOWN", "DPAD_DOWN", press)
        assert _toast(d) == "Enter your email and password", press
    tapped = _sign_in()
    tap(tapped, rid="sign_in")
    assert _toast(tapped) == "Enter your email and password"


def test_enter_on_a_field_still_does_what_the_field_does_not_press_a_button() -> None:
    d = _sign_in()
    _keys(d, "DPAD_DOWN", "DPAD_DOWN", "DPAD_DOWN", "DPAD_UP", "ENTER")  # back on the password field
    assert _focused(d) == ["password"]
    assert _toast(d) is None


def test_a_touch_leaves_key_focus() -> None:
    d = _sign_in()
    _keys(d, "DPAD_DOWN", "DPAD_DOWN", "DPAD_DOWN")
    assert _focused(d) == ["sign_in"]
    d.shell("input tap 540 1500")  # empty space below the form
    assert _focused(d) == []
    _keys(d, "ENTER")  # nothing has key focus now: ENTER presses nothing
    assert _toast(d) is None


def test_keys_never_reach_a_view_under_a_dialog() -> None:
    d = Local(make_device("w"))
    d.shell("am start -n com.android.contacts/.activities.PeopleActivity")
    before = len(d.phone.world.data["contacts"])
    tap(d, text="Alice Chen")
    for _ in range(12):
        _keys(d, "DPAD_DOWN")
        if (find(d, text="Delete") or {}).get("focused") == "true":
            break
    assert find(d, text="Delete").get("focused") == "true"
    _keys(d, "ENTER")
    assert "Delete this contact?" in texts(d)
    # With the dialog up, keys don't move the app's focus or press its (covered) button.
    _keys(d, "DPAD_DOWN", "DPAD_UP", "TAB", "ENTER", "DPAD_CENTER")
    assert "Delete this contact?" in texts(d)
    assert len(d.phone.world.data["contacts"]) == before


def test_focus_over_the_real_adb_keyevent_and_dump(sim_phone: SimPhone) -> None:
    d = OverAdb(sim_phone)
    d.shell(f"am start -n {SIGN_IN}")
    d.shell("input keyevent 61 61 61")  # TAB by number, three in one command
    assert _focused(d) == ["sign_in"]
    d.shell("input keyevent 23")  # DPAD_CENTER
    assert _toast(d) == "Enter your email and password"
