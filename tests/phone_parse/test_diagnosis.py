"""phone_diagnose's pure rules on hand-made dumps: the causes the sim screens don't
cover (a plain label, a label folded into its row, nothing wrong)."""

from __future__ import annotations

from mika.cap.phone.diagnosis import diagnose
from mika.uistate.screen import build_screen
from mika.uistate.tree import parse_hierarchy

_ROW = """<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
<hierarchy rotation="0">
  <node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.x" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" visible-to-user="true" bounds="[0,0][1080,2400]" drawing-order="0" hint="">
    <node index="0" text="" resource-id="com.x:id/row" class="android.widget.LinearLayout" package="com.x" content-desc="" checkable="false" checked="false" clickable="{row}" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" visible-to-user="true" bounds="[0,300][1080,500]" drawing-order="1" hint="">
      <node index="0" text="Wi-Fi settings" resource-id="com.x:id/label" class="android.widget.TextView" package="com.x" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" visible-to-user="true" bounds="[40,340][600,460]" drawing-order="1" hint="" />
    </node>
    <node index="1" text="OK" resource-id="com.x:id/ok" class="android.widget.Button" package="com.x" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" visible-to-user="true" bounds="[40,800][1040,950]" drawing-order="2" hint="" />
  </node>
</hierarchy>
"""


def screen(row_clickable: bool):
    xml = _ROW.replace("{row}", "true" if row_clickable else "false")
    return build_screen(parse_hierarchy(xml), size=(1080, 2400))


def element(s, label):
    return next(e for e in s.elements if e.label == label)


def test_a_label_folded_into_its_clickable_row_is_fine():
    # the listing names the row by its label: tapping it is tapping the row
    s = screen(True)
    row = next(e for e in s.elements if "Wi-Fi settings" in e.label)
    assert row.node.clickable
    assert diagnose(s, row.centre, row) == []


def test_a_plain_label_takes_no_taps():
    s = screen(False)
    label = next(e for e in s.elements if "Wi-Fi settings" in e.label)
    findings = diagnose(s, label.centre, label)
    assert [f.cause for f in findings] == ["not_clickable"], findings
    assert "long press" in findings[0].do


def test_nothing_wrong_gives_no_findings():
    s = screen(True)
    ok = element(s, "OK")
    assert diagnose(s, ok.centre, ok) == []


def test_labels_go_through_quote():
    s = screen(False)
    label = next(e for e in s.elements if "Wi-Fi settings" in e.label)
    (finding,) = diagnose(s, label.centre, label, quote=lambda t: f"<<{t}>>")
    assert "<<Wi-Fi settings>>" in finding.what


_LAYER = """<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
<hierarchy rotation="0">
  <node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.x" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" visible-to-user="true" bounds="[0,0][1080,2400]" drawing-order="0" hint="">
    <node index="0" text="Pay now" resource-id="com.x:id/pay" class="android.widget.Button" package="com.x" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" visible-to-user="true" bounds="[40,2000][1040,2150]" drawing-order="1" hint="" />
    <node index="1" text="" resource-id="com.x:id/promo_layer" class="android.view.View" package="com.x" content-desc="Promo" checkable="false" checked="false" clickable="{layer}" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" visible-to-user="true" bounds="[0,1800][1080,2400]" drawing-order="2" hint="" />
  </node>
</hierarchy>
"""


def layer_screen(clickable: bool):
    xml = _LAYER.replace("{layer}", "true" if clickable else "false")
    return build_screen(parse_hierarchy(xml), size=(1080, 2400))


def test_a_clickable_layer_of_the_same_page_over_the_button_is_named():
    s = layer_screen(True)
    pay = element(s, "Pay now")
    findings = diagnose(s, pay.centre, pay)
    assert findings and findings[0].cause == "covered" and findings[0].by == "com.x:id/promo_layer", findings


def test_a_layer_that_takes_no_taps_covers_nothing():
    s = layer_screen(False)
    pay = element(s, "Pay now")
    assert diagnose(s, pay.centre, pay) == []
