"""Numbered screens and the listing, on every real dump."""

from __future__ import annotations

import json

import pytest
from uistate_real import ALL_DUMPS, dump

from mika.uistate import (
    QueryError,
    ScreenTracker,
    StaleElement,
    UnknownElement,
    build_screen,
    estimate_tokens,
    find_nodes,
    parse_hierarchy,
)
from mika.uistate.elements import clean_label, id_label, own_label


def _screen(name: str):
    return build_screen(parse_hierarchy(dump(name)))


def _visible_on(node, frame) -> bool:
    return node.visible_to_user and not node.bounds.intersection(frame).empty


@pytest.mark.parametrize("path", ALL_DUMPS, ids=lambda p: p.stem)
def test_listing_keeps_every_labelled_control_and_is_a_quarter_of_the_xml(path) -> None:
    raw = path.read_bytes()
    screen = build_screen(parse_hierarchy(raw))
    listing = screen.listing()
    listed = {e.node.order: e for e in screen.elements}
    for node in screen.tree.nodes():
        actionable = node.clickable or node.long_clickable or node.checkable or node.scrollable or node.editable
        label, _ = own_label(node)
        if actionable and label and _visible_on(node, screen.frame):
            assert node.order in listed, f"{path.stem}: {node.class_name} {label!r} missing"
            shown = listed[node.order].label.rstrip("…")
            assert shown and label.startswith(shown)
            assert json.dumps(shown, ensure_ascii=False)[1:-1] in listing
        elif actionable and _visible_on(node, screen.frame):
            # Labelled only by a readable resource-id, or not at all: still there to act on,
            # unless it is the very same spot as another listed element of its window.
            if node.order in listed:
                if id_label(node) and not listed[node.order].label:
                    raise AssertionError(f"{path.stem}: {node.resource_id} lost its id label")
            else:
                assert any(e.bounds == node.bounds and e.window == node.window for e in screen.elements), (
                    f"{path.stem}: {node.class_name} at {node.bounds} missing"
                )
    assert "<node" not in listing and "bounds=" not in listing
    assert estimate_tokens(listing) * 4 <= estimate_tokens(raw.decode("utf-8")), path.stem


@pytest.mark.parametrize("path", ALL_DUMPS, ids=lambda p: p.stem)
def test_numbers_run_from_one_and_lines_carry_them(path) -> None:
    screen = build_screen(parse_hierarchy(path.read_bytes()))
    assert [e.number for e in screen.elements] == list(range(1, len(screen.elements) + 1))
    lines = [line for line in screen.listing().splitlines() if line[:1].isdigit()]
    assert [int(line.split(" ", 1)[0]) for line in lines] == [e.number for e in screen.elements]


def test_listing_is_grouped_by_window_app_first() -> None:
    screen = _screen("wechat__chat_list__u2_multiwindow")
    lines = screen.listing().splitlines()
    headers = [line for line in lines if line.startswith("== ")]
    # The head names the foreground app, so its window's header does not repeat it; a
    # window of another app names its package.
    assert lines[0].startswith("Screen v0 · com.tencent.mm ·")
    assert headers[0] == "== app"
    assert headers[-1] == "== status bar com.android.systemui"
    assert screen.foreground_package == "com.tencent.mm"
    assert screen.element(1).package == "com.tencent.mm"


def test_clickable_rows_are_labelled_by_their_texts_once() -> None:
    screen = _screen("wechat__chat_list__u2_multiwindow")
    rows = [e for e in screen.elements if e.label_source == "inner"]
    assert rows, "chat rows should take their labels from the texts inside"
    row = rows[0]
    inner_texts = [clean_label(n.text) for n in row.node.walk() if n is not row.node and n.text]
    assert inner_texts and inner_texts[0] in row.label
    # Those texts are not listed a second time as separate text lines.
    listed_orders = {e.node.order for e in screen.elements}
    assert not any(n.order in listed_orders for n in row.node.walk() if n is not row.node and n.text)


def test_states_are_shown() -> None:
    screen = _screen("wechat__chat_list__u2_multiwindow")
    selected = [e for e in screen.elements if "selected" in e.states]
    assert selected and any(
        f"{e.number} " in line and "selected" in line for e in selected for line in screen.listing().splitlines()
    )
    gmail = _screen("gmail__inbox_compose")
    field = next(e for e in gmail.elements if e.role == "input")
    assert "editable" in field.states
    scroll = next(e for e in gmail.elements if e.node.scrollable)
    assert "scrollable" in scroll.states


def test_password_text_never_shown() -> None:
    xml = (
        '<hierarchy rotation="0"><node class="android.widget.FrameLayout" package="p" bounds="[0,0][100,200]">'
        '<node class="android.widget.EditText" package="p" text="hunter2-secret" hint="Password" password="true"'
        ' clickable="true" focusable="true" bounds="[0,0][100,50]"/>'
        '<node class="android.widget.Button" package="p" text="Log in" clickable="true" bounds="[0,60][100,100]"/>'
        '<node class="android.widget.Button" package="p" text="Next" clickable="true" bounds="[0,100][100,150]"/>'
        "</node></hierarchy>"
    )
    screen = build_screen(parse_hierarchy(xml))
    listing = screen.listing()
    assert "hunter2" not in listing
    field = screen.element(1)
    assert field.label == "Password" and field.label_source == "hint"
    assert "password" in field.states and "filled" in field.states
    assert "hunter2" not in json.dumps([e.as_dict() for e in screen.elements])
    assert find_nodes(screen, text="hunter2") == ()
    assert "hunter2" not in " ".join(screen.texts())


def test_landscape_frame_and_dialog_only_dump() -> None:
    landscape = _screen("mumu_launcher__landscape_rotation1")
    assert landscape.listing().splitlines()[0].endswith("1920x1080")
    dialog = _screen("kakaotalk__delete_message_dialog_partial_bounds")
    assert dialog.has_dialog
    assert dialog.foreground_package == "com.kakao.talk"
    assert dialog.listing().splitlines()[1] == "== dialog"  # its app is named in the head above
    assert all(e.bounds.top >= 583 for e in dialog.elements)


def test_element_at_picks_the_smallest_containing_element() -> None:
    screen = _screen("gmail__inbox_compose")
    compose = next(e for e in screen.elements if e.label == "Compose")
    assert screen.element_at(*compose.centre) is compose


def test_unknown_number_is_a_clear_error() -> None:
    screen = _screen("unity_game__near_empty_tree")
    with pytest.raises(UnknownElement, match="has no element 99"):
        screen.element(99)


class TestTracker:
    def test_same_content_keeps_version_and_resolves(self) -> None:
        tracker = ScreenTracker()
        first = tracker.update(_screen("gmail__inbox_compose"))
        again = tracker.update(_screen("gmail__inbox_compose"))
        assert first.version == again.version == 1
        assert tracker.resolve(1, 1).label == "Compose"

    def test_number_from_older_screen_is_stale_with_fresh_listing(self) -> None:
        tracker = ScreenTracker()
        old = tracker.update(_screen("wechat__chat_list__u2_multiwindow"))
        new = tracker.update(_screen("wechat__group_chat__u2_multiwindow"))
        assert new.version == old.version + 1
        with pytest.raises(StaleElement) as info:
            tracker.resolve(6, old.version)
        err = info.value
        assert err.listing == new.listing()
        assert f"v{old.version}" in str(err) and f"now v{new.version}" in str(err)
        assert "Nothing was done" in str(err)

    def test_old_number_still_naming_the_same_element_is_accepted(self) -> None:
        # The status bar clock ticks: a new version, but the app's element 1 is unchanged.
        raw = dump("wechat__chat_list__u2_multiwindow").decode("utf-8")
        tracker = ScreenTracker()
        old = tracker.update(build_screen(parse_hierarchy(raw)))
        typed = raw.replace('content-desc="搜索"', 'content-desc="搜索 x"', 1)
        assert typed != raw
        new = tracker.update(build_screen(parse_hierarchy(typed)))
        assert new.version == old.version + 1
        assert tracker.resolve(1, old.version) == new.element(1)
        changed = next(e for e in new.elements if e.label.startswith("搜索 x"))
        with pytest.raises(StaleElement):
            tracker.resolve(changed.number, old.version)

    def test_status_bar_clock_does_not_bump_the_version(self) -> None:
        raw = dump("wechat__chat_list__u2_multiwindow").decode("utf-8")
        tracker = ScreenTracker()
        old = tracker.update(build_screen(parse_hierarchy(raw)))
        later = raw.replace('text="11:49"', 'text="11:50"')
        assert later != raw
        assert tracker.update(build_screen(parse_hierarchy(later))).version == old.version

    def test_moved_screen_makes_every_number_stale(self) -> None:
        tracker = ScreenTracker()
        seen = tracker.update(_screen("gmail__inbox_compose"))
        tracker.mark_moved()
        with pytest.raises(StaleElement):
            tracker.resolve(1, seen.version)

    def test_evicted_version_is_stale(self) -> None:
        tracker = ScreenTracker(keep=2)
        names = [
            "gmail__inbox_compose",
            "wechat__chat_list__u2_multiwindow",
            "futu_trader__position_history_scrollable_list",
        ]
        versions = [tracker.update(_screen(n)).version for n in names]
        with pytest.raises(StaleElement):
            tracker.resolve(1, versions[0])


class TestQuery:
    def test_finds_texts_folded_into_rows_and_points_at_the_row(self) -> None:
        screen = _screen("wechat__chat_list__u2_multiwindow")
        hits = find_nodes(screen, text="剪辑接单群2群")
        assert hits
        row = screen.element(hits[0].element)
        assert "剪辑接单群2群" in row.label and row.node.clickable

    def test_by_resource_id_short_and_class(self) -> None:
        screen = _screen("gmail__inbox_compose")
        by_id = find_nodes(screen, resource_id="contact_image")
        assert by_id and all(h.node.resource_id.endswith(":id/contact_image") for h in by_id)
        edits = find_nodes(screen, class_name="EditText")
        assert edits and all(h.node.class_name.endswith("EditText") for h in edits)
        assert find_nodes(screen, text="inbox", class_name="TextView")[0].text == "Inbox"

    def test_exact_and_nothing_given(self) -> None:
        screen = _screen("gmail__inbox_compose")
        assert find_nodes(screen, text="inbox", exact=True) == ()
        with pytest.raises(QueryError, match="at least one"):
            find_nodes(screen)


def test_repeated_tab_texts_and_shadow_clickables_are_listed_once() -> None:
    tiktok = _screen("tiktok__search_results__u2_small_screen")
    labels = [e.label for e in tiktok.elements]
    assert labels.count("Videos") == 1 and labels.count("Top") == 1
    youtube = _screen("youtube__upload_short_add_details")
    spots = [(e.window, e.bounds) for e in youtube.elements if not e.label]
    assert len(spots) == len(set(spots))


def test_screen_keeps_only_the_windows_of_its_display() -> None:
    # A real u2 dump with the status bar window moved to display 2, as a second display would be.
    raw = dump("tonghuashun__stock_trade__u2_multiwindow").decode("utf-8")
    first_window_end = raw.index("\n  <node", raw.index("<node") + 1)
    moved = raw[:first_window_end].replace('display-id="0"', 'display-id="2"') + raw[first_window_end:]
    tree = parse_hierarchy(moved)
    assert tree.display_ids == (0, 2)
    main = build_screen(tree, display_id=0)
    other = build_screen(tree, display_id=2)
    assert {e.package for e in main.elements} == {"com.hexin.plat.android"}
    assert {e.package for e in other.elements} == {"com.android.systemui"}
    assert other.display_id == 2 and "display 2" in other.listing().splitlines()[0]


def test_lock_screen_is_recognised_only_on_the_keyguard_dump() -> None:
    from uistate_real import ALL_DUMPS as all_dumps

    from mika.uistate.lock import looks_locked

    locked = {p.stem for p in all_dumps if looks_locked(build_screen(parse_hierarchy(p.read_bytes())))}
    assert locked == {"systemui__keyguard_clock_1264x2780"}
