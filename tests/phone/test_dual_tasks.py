"""The dual / diagnose sim tasks (tasks_dual.json) are solvable by the moves a user would
make, and fail before them: each check is real, not satisfied by the start state."""

from __future__ import annotations

from mika.sim.apps.engine import key, tap
from mika.sim.apps.frame import build_frame
from mika.sim.apps.live_world import LiveWorld
from mika.sim.tasks import get_task
from mika.sim.tasks.check import passes
from mika.sim.world.world import World


def press(world: World, label: str) -> None:
    """Tap the topmost clickable node whose text or description is `label`."""
    for window in reversed(build_frame(world, 0)):
        for node in window.root.walk():
            if node.clickable and label in (node.text, node.desc):
                tap(world, 0, *node.center)
                return
    raise AssertionError(f"no {label!r} on screen")


def start(task_id: str) -> tuple[World, dict]:
    task = get_task(task_id)
    world = LiveWorld("t", task.scenario, None)
    assert not passes(task.check, world.state()), f"{task_id} passes before anything was done"
    return world, task.check


def test_dual_tasks_pick_the_copy():
    for task_id, item in (
        ("dual_open_main", "微聊"),
        ("dual_open_other", "微聊 (dual)"),
        ("dual_open_other_zh", "双开微聊"),
    ):
        world, check = start(task_id)
        world.launch("com.mika.chat", 0)
        assert world.state()["foreground"]["0"].startswith("android/"), "the chooser comes first"
        press(world, item)
        assert passes(check, world.state()), task_id


def test_the_main_copy_is_no_answer_to_the_other_copy_task():
    world, check = start("dual_open_other")
    world.launch("com.mika.chat", 0)
    press(world, "微聊")
    assert not passes(check, world.state())


def test_back_on_the_chooser_opens_nothing():
    world, _ = start("dual_open_main")
    world.launch("com.mika.chat", 0)
    key(world, 0, "BACK")
    assert world.state()["running_copies"] == []
    assert not world.state()["foreground"]["0"].startswith(("android/", "com.mika.chat/"))


def test_checkout_needs_the_tips_closed_first():
    world, check = start("lab_checkout_behind_tips")
    press(world, "Checkout")
    press(world, "Check out")  # lands on the tips bubble
    assert not passes(check, world.state())
    press(world, "Close tips")
    press(world, "Check out")
    assert passes(check, world.state())


def test_create_account_needs_the_terms():
    world, check = start("lab_create_account")
    press(world, "Sign up")
    press(world, "Create account")
    assert not passes(check, world.state())
    press(world, "I agree to the terms")
    press(world, "Create account")
    assert passes(check, world.state())


def test_send_needs_the_keyboard_hidden():
    world, check = start("lab_send_under_keyboard")
    press(world, "Compose")
    press(world, "Message")  # the field: the keyboard comes up over Send
    press(world, "Send")
    assert not passes(check, world.state())
    key(world, 0, "BACK")
    press(world, "Send")
    assert passes(check, world.state())
