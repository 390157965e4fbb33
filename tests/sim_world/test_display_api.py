"""The simulated world's virtual displays: created, used, released as Android does."""

from __future__ import annotations

from mika.sim.phone import make_device


def _world():
    return make_device("127.0.0.1:1", None, None).world  # type: ignore[arg-type]


def test_a_new_display_gets_the_next_id_and_apps_start_there_without_touching_display_0() -> None:
    world = _world()
    before = world.top_activity(0)
    vd = world.add_display(1080, 2400, 440)
    assert vd.id == 1 and vd.owner == "com.android.shell" and world.display(1) is vd
    world.launch("com.android.settings", display_id=vd.id)
    assert world.top_activity(vd.id).package == "com.android.settings"
    assert world.top_activity(0) == before


def test_ids_are_not_reused_while_the_phone_is_up() -> None:
    world = _world()
    first = world.add_display(720, 1280, 320)
    world.remove_display(first.id)
    assert world.add_display(720, 1280, 320).id == first.id + 1


def test_release_destroys_or_moves_the_content_as_it_was_created() -> None:
    world = _world()
    kept = world.add_display(720, 1280, 320, destroy_content=False)
    world.launch("com.android.settings", display_id=kept.id)
    world.remove_display(kept.id)
    assert world.top_activity(0).package == "com.android.settings"
    gone = world.add_display(720, 1280, 320)
    world.launch("com.mika.notes", display_id=gone.id)
    world.remove_display(gone.id)
    assert all(t.package != "com.mika.notes" for t in world.display(0).tasks)
    assert world.remove_display(0) is False and world.remove_display(99) is False


def test_a_task_moves_to_the_main_screen_for_a_takeover() -> None:
    world = _world()
    vd = world.add_display(1080, 2400, 440)
    world.launch("com.android.settings", display_id=vd.id)
    task = world.display(vd.id).top_task
    assert world.move_task(task.id, 0)
    assert world.display(0).top_task is task and world.display(vd.id).top_task is None
