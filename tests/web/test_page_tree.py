"""build_tree / layout_from_snapshot on CDP answers saved from the engine test pages
(tests/web/fixtures/capture.py made them from real Chromium) and on odd input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mika.cap.web.page_tree import NAME_MAX, build_tree, layout_from_snapshot
from mika.cap.web.playwright.port import _prefixed
from mika.uistate.elements import extract_elements
from mika.uistate.tree import UiNode, UiTree

FIXTURES = Path(__file__).parent / "fixtures"


def _saved(name: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    data = json.loads((FIXTURES / f"{name}.json").read_text())
    nodes = list(data["ax"]["nodes"])
    for k, sub in enumerate(data["child_frames"]):
        nodes += _prefixed(sub["nodes"], f"f{k}:")
    return nodes, layout_from_snapshot(data["snapshot"], data["metrics"], "127.0.0.1")


@pytest.fixture(scope="module")
def world() -> UiTree:
    return build_tree(*_saved("engine_world"))


def _by_text(tree: UiTree, text: str) -> UiNode:
    return next(n for n in tree.nodes() if n.text == text)


def test_roles_names_and_states_of_a_real_page(world: UiTree) -> None:
    listing = {(e.role, e.label, e.states) for e in extract_elements(world)}
    assert ("heading", "商品列表 🛒", ()) in listing
    assert ("link", "苹果手机 ¥5999", ()) in listing
    assert ("link", "华为 Mate 😀👍🏽", ()) in listing
    assert ("button", "加入购物车", ()) in listing  # aria-label, the 🛒 inside folded
    assert ("input", "搜索商品", ("editable",)) in listing  # placeholder is a hint
    assert ("input", "留言", ("editable",)) in listing
    assert ("dropdown", "数量", ()) in listing
    assert ("radio", "快递", ("checked",)) in listing
    assert ("radio", "自提", ("unchecked",)) in listing
    assert ("button", "已售罄", ("disabled",)) in listing
    assert ("image", "商品图片", ()) in listing
    assert ("button", "可点击的卡片", ()) in listing  # a div with a click handler
    assert ("text", "مرحبا بالعالم", ()) in listing  # RTL kept as written
    search = next(n for n in world.nodes() if n.class_name == "web.searchbox")
    assert search.hint == "搜索商品" and search.text == "" and search.editable
    # An image without a name says nothing and is not listed; neither are list bullets.
    assert all(e.label != "•" for e in extract_elements(world))
    assert all(e.role != "image" or e.label for e in extract_elements(world))


def test_inline_runs_become_one_text_and_links_keep_their_line(world: UiTree) -> None:
    labels = [e.label for e in extract_elements(world)]
    i = labels.index("A paragraph with bold and")
    assert labels[i + 1 : i + 3] == ["a link", "inside."]
    merged = _by_text(world, "A paragraph with bold and")
    link = _by_text(world, "a link")
    assert merged.bounds.right == link.bounds.left  # the merged runs' boxes together


def test_handles_class_names_and_host(world: UiTree) -> None:
    for node in world.nodes():
        assert node.class_name.startswith("web.")
        assert node.resource_id == "" or node.resource_id.startswith("web:")
        assert node.package == "127.0.0.1"
    orders = [n.order for n in world.nodes()]
    assert orders == sorted(set(orders))  # pre-order, unique: the listing caches by it
    assert world.format == "web" and len(world.windows) == 1
    assert all("web:" not in e.label for e in extract_elements(world))


def test_viewport_visibility_and_scroll_containers(world: UiTree) -> None:
    bottom = _by_text(world, "页面底部")
    assert not bottom.visible_to_user and bottom.bounds.top > 800
    assert _by_text(world, "商品列表 🛒").visible_to_user
    scrollers = [n for n in world.nodes() if n.scrollable]
    assert len(scrollers) == 1 and scrollers[0].children[0].text == "可以滚动的区域"
    assert world.windows[0].bounds.as_list() == [0, 0, 1280, 800]


def test_nested_frames_hang_under_their_iframe_with_page_coordinates(world: UiTree) -> None:
    frames = [n for n in world.nodes() if n.class_name == "web.iframe"]
    assert len(frames) == 2
    inner_button = _by_text(world, "框内按钮")
    deep_link = _by_text(world, "深层链接")
    assert inner_button in list(frames[0].walk())
    assert deep_link in list(frames[1].walk()) and frames[1] in list(frames[0].walk())
    outer, inner = frames[0].bounds, frames[1].bounds
    assert outer.left <= inner_button.bounds.left and outer.top <= inner_button.bounds.top
    assert inner.left <= deep_link.bounds.left < inner.right and inner.top <= deep_link.bounds.top < inner.bottom


def test_password_value_never_enters_the_tree() -> None:
    nodes, layout = _saved("engine_button")
    tree = build_tree(nodes, layout)
    field = next(n for n in tree.nodes() if n.password)
    assert field.text == "" and field.editable
    dumped = json.dumps([[n.text, n.hint, n.content_desc] for n in tree.nodes()], ensure_ascii=False)
    assert "hunter2" not in dumped and "••" not in dumped
    raw = (FIXTURES / "engine_button.json").read_text()
    assert "hunter2" not in raw  # the capture, like the port, drops the snapshot's input values
    assert "password" in next(e for e in extract_elements(tree) if e.node is field).states


def _ax(
    node_id: str, role: str, name: str = "", parent: str | None = None, children: tuple[str, ...] = (), **kw: Any
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "nodeId": node_id,
        "role": {"type": "role", "value": role},
        "name": {"type": "computedString", "value": name},
        "childIds": list(children),
        "backendDOMNodeId": int(node_id) if node_id.isdigit() else None,
    }
    if parent is not None:
        out["parentId"] = parent
    out.update(kw)
    return out


def test_missing_bounds_and_ignored_nodes() -> None:
    nodes = [
        _ax("1", "RootWebArea", "T", children=("2",)),
        _ax("2", "none", parent="1", children=("3", "4"), ignored=True),
        _ax("3", "button", "No box", parent="2"),
        _ax("4", "link", "Has box", parent="2"),
    ]
    tree = build_tree(nodes, {"viewport": [800, 600], "nodes": {"4": {"bounds": [10, 10, 50, 30]}}})
    no_box = _by_text(tree, "No box")
    assert no_box.bounds.empty and not no_box.visible_to_user
    assert _by_text(tree, "Has box").visible_to_user
    assert [n.text for n in tree.windows[0].root.children] == ["No box", "Has box"]  # ignored node spliced out


def test_huge_names_are_cut_and_odd_input_gives_a_tree_not_an_exception() -> None:
    nodes = [_ax("1", "RootWebArea", children=("2",)), _ax("2", "heading", "x" * 50_000, parent="1")]
    tree = build_tree(nodes, {"viewport": [800, 600]})
    assert len(_by_text(tree, "x" * (NAME_MAX - 1) + "…").text) == NAME_MAX
    for odd in ([], [{"nodeId": "1"}], [{"no": "id"}], "not a list"):
        t = build_tree(odd, {})  # type: ignore[arg-type]
        assert t.windows[0].root.class_name == "web.document"
    cyclic = [_ax("1", "RootWebArea", children=("2",)), _ax("2", "generic", "loop", parent="1", children=("2", "1"))]
    assert _by_text(build_tree(cyclic, {}), "loop")
    bad_layout = {"viewport": "wide", "nodes": {"x": 1, "2": {"bounds": ["a", 1, 2, 3]}}}
    assert build_tree(nodes, bad_layout).windows[0].bounds.as_list() == [0, 0, 1280, 800]


def test_very_deep_pages_are_cut_with_a_warning() -> None:
    depth = 2000
    nodes = [_ax("1", "RootWebArea", children=("2",))]
    for i in range(2, depth):
        nodes.append(_ax(str(i), "group", f"g{i}", parent=str(i - 1), children=(str(i + 1),)))
    tree = build_tree(nodes, {"viewport": [800, 600]})
    assert tree.warnings and "deeper" in tree.warnings[0]
    assert max(n.depth for n in tree.nodes()) <= 301


def test_states_from_ax_properties() -> None:
    def prop(name: str, value: Any) -> dict[str, Any]:
        return {"name": name, "value": {"type": "booleanOrUndefined", "value": value}}

    nodes = [
        _ax("1", "RootWebArea", children=("2", "3", "4", "5")),
        _ax(
            "2",
            "checkbox",
            "Mixed",
            parent="1",
            properties=[{"name": "checked", "value": {"type": "tristate", "value": "mixed"}}],
        ),
        _ax("3", "tab", "Open tab", parent="1", properties=[prop("selected", True), prop("focused", True)]),
        _ax(
            "4",
            "button",
            "Toggle",
            parent="1",
            properties=[{"name": "pressed", "value": {"type": "tristate", "value": "true"}}],
        ),
        _ax(
            "5",
            "textbox",
            "Read only",
            parent="1",
            properties=[prop("readonly", True), {"name": "editable", "value": {"type": "token", "value": "plaintext"}}],
        ),
    ]
    box = {str(i): {"bounds": [0, i * 20, 100, i * 20 + 18]} for i in range(2, 6)}
    tree = build_tree(nodes, {"viewport": [800, 600], "nodes": box})
    mixed, tab, toggle, readonly = (_by_text(tree, t) for t in ("Mixed", "Open tab", "Toggle", "Read only"))
    assert mixed.checkable and mixed.checked
    assert tab.selected and tab.focused and tab.clickable
    assert toggle.checkable and toggle.checked
    assert not readonly.editable
    roles = {e.label: (e.role, e.states) for e in extract_elements(tree)}
    assert roles["Open tab"] == ("tab", ("selected", "focused"))
    assert roles["Toggle"][0] == "button"


@pytest.mark.parametrize(
    ("ax_role", "listing_role"),
    [
        ("link", "link"),
        ("button", "button"),
        ("switch", "switch"),
        ("slider", "slider"),
        ("tab", "tab"),
        ("menuitem", "menuitem"),
        ("menuitemcheckbox", "checkbox"),
        ("option", "option"),
        ("heading", "heading"),
        ("image", "image"),
        ("img", "image"),
        ("combobox", "dropdown"),
        ("searchbox", "input"),
        ("textbox", "input"),
        ("checkbox", "checkbox"),
        ("radio", "radio"),
        ("paragraph", "text"),
    ],
)
def test_web_roles_in_the_listings_words(ax_role: str, listing_role: str) -> None:
    nodes = [_ax("1", "RootWebArea", children=("2",)), _ax("2", ax_role, "Named thing", parent="1")]
    tree = build_tree(nodes, {"viewport": [800, 600], "nodes": {"2": {"bounds": [10, 10, 200, 40]}}})
    (element,) = extract_elements(tree)
    assert element.role == listing_role
    assert element.label == "Named thing"


def test_an_unnamed_element_shows_its_place_never_its_handle() -> None:
    nodes = [_ax("1", "RootWebArea", children=("77",)), _ax("77", "button", "", parent="1")]
    tree = build_tree(nodes, {"viewport": [800, 600], "nodes": {"77": {"bounds": [10, 10, 60, 40]}}})
    (element,) = extract_elements(tree)
    assert element.label == "" and element.node.resource_id == "web:77"
    from mika.uistate.listing import element_line

    line = element_line(element)
    assert "web:" not in line and "77" not in line.split("@")[0][2:], line
