"""The listing's recall and size bar (issue 16): on every real dump and every screen of the
simulated phone, every control the XML names has its own line, and what the model reads
(the fenced listing) is at most 0.15 of the raw XML. Then the check itself, attacked: a
listing that drops, merges or only mentions a control fails it."""

from __future__ import annotations

import pytest
from uistate_real import ALL_DUMPS

from mika.cap.phone.fenced import fenced_listing
from mika.sim.apps.frame import build_frame
from mika.sim.apps.registry import dialog_names, load_apps
from mika.sim.phone import make_device
from mika.sim.world.hierarchy import dump_plain, dump_u2
from mika.uistate import Bounds, build_screen, estimate_tokens, parse_hierarchy
from mika.uistate.elements import LABEL_MAX
from mika.uistate.recall import listed_labels, listing_recall, owed_controls

BAR = 0.15
SIM_SIZE = (1080, 2400)
SIM_SCREENS = [(app.package, name) for app in load_apps().values() for name in app.screens]
SIM_DIALOGS = dialog_names()


def _check(raw: bytes, what: str, size: tuple[int, int] | None = None) -> None:
    screen = build_screen(parse_hierarchy(raw), size=size)
    listing = screen.listing()
    recall = listing_recall(screen.tree, screen.frame, listing)
    assert not recall.missed, f"{what}: not in the listing: {', '.join(map(str, recall.missed))}"
    ratio = estimate_tokens(fenced_listing(screen)) / estimate_tokens(raw.decode("utf-8", errors="replace"))
    assert ratio <= BAR, f"{what}: the listing is {ratio:.3f} of the XML, over the bar {BAR}"


@pytest.mark.parametrize("path", ALL_DUMPS, ids=lambda p: p.stem)
def test_every_named_control_of_a_real_dump_is_listed_within_the_bar(path) -> None:
    _check(path.read_bytes(), path.stem)


@pytest.mark.parametrize(("package", "name"), SIM_SCREENS, ids=[f"{p.rsplit('.', 1)[-1]}.{s}" for p, s in SIM_SCREENS])
def test_every_named_control_of_a_simulated_screen_is_listed_within_the_bar(package: str, name: str) -> None:
    world = make_device("recall").world
    world.launch(package, 0, screen=name)
    world.clock.jump(5)  # past any loading state
    frame = build_frame(world, 0)
    _check(dump_plain(frame).encode(), f"{package} {name}", SIM_SIZE)
    # As uiautomator2 dumps it (the route a run reads by default): every window, display ids.
    _check(dump_u2([(0, frame)]).encode(), f"{package} {name} (u2)", SIM_SIZE)


@pytest.mark.parametrize("name", SIM_DIALOGS)
def test_every_named_control_of_a_system_dialog_is_listed_within_the_bar(name: str) -> None:
    world = make_device("recall").world
    world.show_system_dialog(name)
    _check(dump_plain(build_frame(world, 0)).encode(), f"dialog {name}", SIM_SIZE)


def test_the_real_dumps_owe_controls_at_all() -> None:
    # A check that owes nothing passes everything: the dumps hold many named controls.
    owed = sum(
        len(owed_controls(s.tree, s.frame)) for s in (build_screen(parse_hierarchy(p.read_bytes())) for p in ALL_DUMPS)
    )
    assert owed >= 150


# --- the check itself --------------------------------------------------------------------

FRAME = '<hierarchy rotation="0"><node class="android.widget.FrameLayout" package="p" bounds="[0,0][1000,2000]">{}</node></hierarchy>'


def _node(bounds: str, cls: str = "android.widget.Button", **attrs: str) -> str:
    flags = {"clickable": "true", "enabled": "true", "visible-to-user": "true"} | attrs
    return (
        f'<node class="{cls}" package="p" bounds="{bounds}" ' + " ".join(f'{k}="{v}"' for k, v in flags.items()) + "/>"
    )


def _screen(*nodes: str):
    return build_screen(parse_hierarchy(FRAME.format("".join(nodes))))


def _recall(screen, listing: str | None = None):
    return listing_recall(screen.tree, screen.frame, screen.listing() if listing is None else listing)


def test_a_dropped_line_is_missed() -> None:
    screen = _screen(_node("[0,0][500,100]", text="Pay"), _node("[0,100][500,200]", text="Cancel"))
    assert not _recall(screen).missed and len(_recall(screen).owed) == 2
    without_pay = "\n".join(line for line in screen.listing().splitlines() if '"Pay"' not in line)
    missed = _recall(screen, without_pay).missed
    assert [m.names for m in missed] == [("Pay",)]


def test_two_controls_of_one_name_need_two_lines() -> None:
    screen = _screen(_node("[0,0][500,100]", text="OK"), _node("[0,100][500,200]", text="OK"))
    assert not _recall(screen).missed
    lines = screen.listing().splitlines()
    first_ok = next(i for i, line in enumerate(lines) if '"OK"' in line)
    merged = "\n".join(lines[: first_ok + 1] + [line for line in lines[first_ok + 1 :] if '"OK"' not in line])
    assert len(_recall(screen, merged).missed) == 1


def test_a_name_only_mentioned_is_not_a_line() -> None:
    # Inside another label, in the text read from the picture, or in a header: not its own line.
    screen = _screen(_node("[0,0][500,100]", text="Delete"))
    for fake in (
        'Screen v0 · p\n== app\n1 item "Delete · all"',
        'Screen v0 · p\n== app\n- "Delete" @250,50',
        'Screen v0 · "Delete"\n== app "Delete"',
        "Screen v0 · p\n== app\n1 button Delete",
        'Screen v0 · p\n== app\n1 button "Delete',
    ):
        assert len(_recall(screen, fake).missed) == 1, fake


def test_odd_bytes_in_labels_are_read_back_exactly() -> None:
    # (XML attribute as the dump holds it, the name as one line)
    cases = [
        ("say &quot;hi&quot; \\ now", 'say "hi" \\ now'),
        ("two&#10;lines", "two lines"),
        ("emoji 🎉 ok", "emoji 🎉 ok"),
        ("&lt;b&gt; 支付 ¥1", "<b> 支付 ¥1"),
        ("\u202eevil", "evil"),  # a bidi override is dropped, the rest stays
    ]
    nodes = [_node(f"[0,{i * 100}][500,{i * 100 + 100}]", text=xml) for i, (xml, _) in enumerate(cases)]
    screen = _screen(*nodes)
    recall = _recall(screen)
    assert [m.names for m in recall.owed] == [(name,) for _, name in cases] and not recall.missed
    assert all(listed_labels(screen.listing())[name] == 1 for _, name in cases)


def test_a_long_label_is_recalled_by_its_cut_and_only_by_it() -> None:
    long = "x" * (LABEL_MAX * 2)
    screen = _screen(_node("[0,0][500,100]", text=long))
    assert not _recall(screen).missed
    assert len(_recall(screen, f'Screen v0\n1 button "{long[:10]}…"').missed) == 1


def test_who_is_owed() -> None:
    screen = _screen(
        _node("[0,0][500,100]", text="\ue001", **{"content-desc": "Search"}),  # an icon-font glyph: named by desc
        _node("[0,100][500,200]", cls="android.widget.EditText", text="hunter2", password="true"),  # text never shown
        _node("[0,200][500,300]", text="Hidden", **{"visible-to-user": "false"}),
        _node("[0,5000][500,5100]", text="Far below"),
        _node("[0,300][500,400]", cls="android.widget.TextView", text="Just text", clickable="false"),
        _node(
            "[0,400][500,500]",
            cls="android.widget.ListView",
            scrollable="true",
            clickable="false",
            **{"content-desc": "Results"},
        ),
        _node("[0,500][500,600]", cls="android.widget.CheckBox", checkable="true", clickable="false", text="Agree"),
    )
    owed = {m.names for m in owed_controls(screen.tree, Bounds(0, 0, 1000, 2000))}
    assert owed == {("Search",), ("Results",), ("Agree",)}
    assert "hunter2" not in screen.listing()
    assert not _recall(screen).missed


# --- what the shorter lines still say ------------------------------------------------------


@pytest.mark.parametrize("path", ALL_DUMPS, ids=lambda p: p.stem)
def test_a_window_of_another_app_still_names_its_package(path) -> None:
    # Only the foreground app's package, which the head states, is left off a window header:
    # a status bar, a keyboard or another app's overlay keeps saying whose it is.
    screen = build_screen(parse_hierarchy(path.read_bytes()))
    lines = screen.listing().splitlines()
    headers = [line for line in lines if line.startswith("== ")]
    shown = {screen.window(e.window).package for e in screen.elements if screen.window(e.window)}
    for package in shown - {screen.foreground_package}:
        assert any(h.endswith(f" {package}") for h in headers), (path.stem, package, headers)
    if screen.foreground_package:
        assert screen.foreground_package in lines[0]
        assert not any(h.endswith(f" {screen.foreground_package}") for h in headers)


def test_implied_states_are_left_off_and_the_rest_kept() -> None:
    screen = _screen(
        _node("[0,0][500,100]", cls="android.widget.EditText", text="", hint="Name", focused="true"),
        _node("[0,100][500,900]", cls="android.widget.ListView", scrollable="true", clickable="false"),
        _node("[0,900][500,1000]", cls="android.widget.EditText", text="notes", scrollable="true"),
        _node("[0,1000][500,1100]", cls="android.webkit.WebView", scrollable="true", clickable="false"),
    )
    lines = screen.listing().splitlines()[2:]
    assert lines[0] == '1 input "Name" (hint) focused'
    assert lines[1] == "2 list @250,500"
    assert lines[2] == '3 input "notes" scrollable'  # an input that scrolls says so
    assert lines[3].startswith("4 webview") and lines[3].endswith(" scrollable")
    # The elements keep every state for the code that reads them (observe's JSON, effects).
    assert "editable" in screen.element(1).states and "scrollable" in screen.element(2).states


# --- texts folded into one line: shorter, and every change still seen ----------------------


def _group(*texts: str, at: int = 0, cls: str = "android.widget.LinearLayout", **attrs: str) -> str:
    kids = "".join(
        f'<node class="android.widget.TextView" package="p" text="{t}" visible-to-user="true" enabled="true"'
        f' bounds="[0,{at + i * 40}][400,{at + i * 40 + 40}]"/>'
        for i, t in enumerate(texts)
    )
    extra = " ".join(f'{k}="{v}"' for k, v in attrs.items())
    return (
        f'<node class="{cls}" package="p" visible-to-user="true" enabled="true" {extra}'
        f' bounds="[0,{at}][1000,{at + 40 * len(texts)}]">{kids}</node>'
    )


def test_texts_with_nothing_to_act_on_share_one_line_where_they_are() -> None:
    screen = _screen(_group("Linen Throw Pillow", "Out for delivery", "¥68.00", at=100))
    (row,) = screen.elements
    assert (row.role, row.label, row.label_source) == (
        "text",
        "Linen Throw Pillow · Out for delivery · ¥68.00",
        "inner",
    )
    assert row.bounds.top == 100 and row.bounds.right == 400  # the texts' box, not the container's
    assert screen.element_at(*row.centre) is row


@pytest.mark.parametrize(
    ("why", "xml"),
    [
        (
            "a control inside",
            _group("Alice", "Hi").replace(
                '<node class="android.widget.TextView" package="p" text="Hi"',
                '<node class="android.widget.TextView" package="p" clickable="true" text="Hi"',
            ),
        ),
        ("a selected text inside", _group("Alice", "Hi").replace('text="Hi"', 'text="Hi" selected="true"')),
        ("a page's texts", _group("Chapter 1", "Done", cls="android.webkit.WebView")),
        ("too long to show whole", _group("x" * 50, "y" * 40)),
        ("spread over the screen", _group("top", "bottom").replace("[0,40][400,80]", "[0,1900][1000,2000]")),
    ],
)
def test_texts_keep_their_own_lines_when_one_line_would_lose_something(why: str, xml: str) -> None:
    screen = _screen(xml)
    assert not any(e.label_source == "inner" and e.role == "text" for e in screen.elements), why
    labels = [e.label for e in screen.elements if e.label]
    assert len(labels) == 2 and " · " not in "".join(labels), (why, labels)


def _key_changes(before_xml: str, after_xml: str) -> bool:
    return _screen(before_xml).content_key() != _screen(after_xml).content_key()


def test_a_change_inside_one_line_is_still_a_change() -> None:
    # Any text of a merged line, a text folded into its ancestor's label, or one only in
    # the part of a long label the cut hides: the screen reads as changed.
    assert _key_changes(_group("Pillow", "Shipped"), _group("Pillow", "Out for delivery"))
    folded = '<node class="android.widget.FrameLayout" package="p" content-desc="Volume 5 of 10" clickable="true" bounds="[0,0][500,100]">{}</node>'
    inner = '<node class="android.widget.TextView" package="p" text="{}" bounds="[0,0][100,100]"/>'
    before, after = folded.format(inner.format("5")), folded.format(inner.format("10"))
    assert [e.label for e in _screen(before).elements] == ["Volume 5 of 10"]  # "5" is said by the row
    assert [e.label for e in _screen(after).elements] == ["Volume 5 of 10"]
    assert _key_changes(before, after)


def test_a_text_past_a_cut_label_keeps_its_line() -> None:
    long_desc = "Sender, Subject, " + "z" * LABEL_MAX
    row = f'<node class="android.widget.FrameLayout" package="p" content-desc="{long_desc}" clickable="true" bounds="[0,0][1000,200]">{{}}</node>'
    kids = (
        '<node class="android.widget.TextView" package="p" text="Sender" bounds="[0,0][500,100]"/>'
        f'<node class="android.widget.TextView" package="p" text="{"z" * LABEL_MAX}" bounds="[0,100][500,200]"/>'
    )
    labels = [e.label for e in _screen(row.format(kids)).elements]
    assert labels[0].endswith("…") and "Sender" not in labels[1:]  # shown in the row's cut label
    assert any(label.startswith("zzz") for label in labels[1:])  # the cut hides it: its own line


def test_a_drawn_column_of_values_keeps_a_line_per_value() -> None:
    # A drawn day wheel (a plain View, no flags): each day is picked by its own number.
    screen = _screen(_group("18", "19", "20", "21", "22", cls="android.view.View"))
    assert [e.label for e in screen.elements] == ["18", "19", "20", "21", "22"]
    # Two texts that read as one row still share a line.
    assert [e.label for e in _screen(_group("Pillow", "Out for delivery")).elements] == ["Pillow · Out for delivery"]


def test_a_row_whose_label_is_cut_leaves_the_hidden_texts_their_own_lines() -> None:
    # A ride request: a long address fills the row's line; the fare after it must still show.
    address = "Manco Capac y Av. San Valentín " * 3
    row = (
        '<node class="android.view.ViewGroup" package="p" clickable="true" bounds="[0,0][1000,300]">'
        f'<node class="android.widget.TextView" package="p" text="{address.strip()}" bounds="[0,0][1000,100]"/>'
        '<node class="android.widget.TextView" package="p" text="S/ 23" bounds="[0,100][300,200]"/>'
        "</node>"
    )
    screen = _screen(row)
    assert screen.element(1).label.endswith("…") and "S/ 23" not in screen.element(1).label
    assert any(e.label == "S/ 23" for e in screen.elements[1:])
    # A row whose line holds all its texts uses them up, as before.
    short = row.replace(address.strip(), "1 min.")
    assert [e.label for e in _screen(short).elements] == ["1 min. · S/ 23"]
