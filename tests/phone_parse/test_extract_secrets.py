"""phone_extract's password rule on dumps in uiautomator's own XML format: every way a
field can be a secret, and every kind of extract (text, rows, form) keeps its text out.

The dumps are written here, in the exact attribute format `uiautomator dump` prints, so
each one isolates one sign (flag, hint, id, label, eye icon); the sim test in
tests/phone/test_extract.py covers a real password field through adb."""

from __future__ import annotations

import pytest

from mika.cap.phone.overlap import list_node, rows_of, structured
from mika.cap.phone.secret_fields import secret_nodes
from mika.cap.phone.tools.extract import form_fields, visible_text
from mika.uistate import parse_hierarchy
from mika.uistate.screen import build_screen

SECRET = "hunter2-秘密"


def node(cls: str, bounds: str, **attrs: str) -> str:
    base = {
        "index": "0",
        "text": "",
        "resource-id": "",
        "class": cls,
        "package": "com.example.bank",
        "content-desc": "",
        "checkable": "false",
        "checked": "false",
        "clickable": "false",
        "enabled": "true",
        "focusable": "false",
        "focused": "false",
        "scrollable": "false",
        "long-clickable": "false",
        "password": "false",
        "selected": "false",
        "bounds": bounds,
    }
    base.update({k.replace("_", "-"): v for k, v in attrs.items()})
    return "<node " + " ".join(f'{k}="{v}"' for k, v in base.items()) + ">"


def dump(*inner: str) -> str:
    body = "".join(inner)
    root = node("android.widget.FrameLayout", "[0,0][1080,2400]")
    return f"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">{root}{body}</node></hierarchy>"


def edit(bounds: str, **attrs: str) -> str:
    return node("android.widget.EditText", bounds, clickable="true", focusable="true", **attrs) + "</node>"


def text(t: str, bounds: str, **attrs: str) -> str:
    return node("android.widget.TextView", bounds, text=t, **attrs) + "</node>"


def screen_of(xml: str):
    return build_screen(parse_hierarchy(xml), size=(1080, 2400))


USER = edit("[40,200][1040,320]", text="alice@example.com", resource_id="com.example.bank:id/user", hint="Email")
CASES = {
    "password flag": edit("[40,400][1040,520]", text=SECRET, password="true", resource_id="com.example.bank:id/f2"),
    "hint 密码": edit("[40,400][1040,520]", text=SECRET, hint="请输入密码", resource_id="com.example.bank:id/f2"),
    "hint PIN": edit("[40,400][1040,520]", text=SECRET, hint="Enter PIN", resource_id="com.example.bank:id/f2"),
    "id pwd": edit("[40,400][1040,520]", text=SECRET, resource_id="com.example.bank:id/et_pwd"),
    "id camelCase": edit("[40,400][1040,520]", text=SECRET, resource_id="com.example.bank:id/loginPassword"),
    "label before": text("支付密码", "[40,340][1040,390]")
    + edit("[40,400][1040,520]", text=SECRET, resource_id="com.example.bank:id/f2"),
    "eye icon beside": node("android.widget.LinearLayout", "[40,400][1040,520]")
    + edit("[40,400][900,520]", text=SECRET, resource_id="com.example.bank:id/f2")
    + node("android.widget.ImageButton", "[900,400][1040,520]", content_desc="Show password", clickable="true")
    + "</node></node>",
    "description": edit(
        "[40,400][1040,520]", text=SECRET, content_desc="Passcode", resource_id="com.example.bank:id/f2"
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_no_extract_kind_returns_a_secret_field_text(case):
    screen = screen_of(dump(USER, CASES[case]))
    assert len(secret_nodes(screen.tree)) == 1, case
    assert all(SECRET not in line for line in visible_text(screen))
    fields = form_fields(screen)
    assert SECRET not in repr(fields)
    secret = [f for f in fields if f["kind"] == "password"]
    assert secret and secret[0]["value"] == "(password, filled)"
    # the plain field next to it still reads
    assert {"label": "Email", "kind": "field", "value": "alice@example.com"} in fields


def test_an_empty_password_is_said_empty_and_a_hint_is_not_a_value():
    screen = screen_of(dump(edit("[40,400][1040,520]", text="密码", hint="密码")))
    assert form_fields(screen) == [{"label": "密码", "kind": "password", "value": "(password, empty)"}]


def test_words_that_merely_contain_pin_are_not_secrets():
    # "shipping" and "spinner" hold the letters p-i-n; the field is an ordinary one
    screen = screen_of(
        dump(edit("[40,400][1040,520]", text="12 Main St", resource_id="com.example.bank:id/shipping_addr"))
    )
    assert form_fields(screen)[0]["value"] == "12 Main St"


def test_a_secret_inside_a_list_row_is_left_out_of_rows():
    lst = node("androidx.recyclerview.widget.RecyclerView", "[0,100][1080,2000]", scrollable="true")
    row = node("android.widget.LinearLayout", "[0,100][1080,400]", resource_id="com.example.bank:id/row")
    xml = dump(
        lst,
        row,
        text("Card 1", "[40,110][600,200]"),
        edit("[40,210][1040,390]", text=SECRET, hint="CVV"),
        "</node>",
        node("android.widget.LinearLayout", "[0,400][1080,700]"),
        text("Card 2", "[40,410][600,500]"),
        "</node></node>",
    )
    screen = screen_of(xml)
    lst_node = list_node(screen)
    assert lst_node is not None
    rows = structured(rows_of(lst_node, skip=secret_nodes(screen.tree)))
    assert [r["text"] for r in rows] == ["Card 1", "Card 2"]
    assert SECRET not in repr(rows)


def test_switches_and_checkboxes_report_on_off():
    xml = dump(
        text("Wi-Fi", "[40,100][800,200]"),
        node("android.widget.Switch", "[900,100][1040,200]", checkable="true", checked="true") + "</node>",
        node("android.widget.CheckBox", "[40,300][1040,400]", text="Remember me", checkable="true") + "</node>",
    )
    assert form_fields(screen_of(xml)) == [
        {"label": "Wi-Fi", "kind": "switch", "value": "on"},
        {"label": "Remember me", "kind": "checkbox", "value": "off"},
    ]
