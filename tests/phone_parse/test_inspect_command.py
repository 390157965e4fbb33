"""`inspect` through click's runner, on real dumps and broken files."""

from __future__ import annotations

import json

from click.testing import CliRunner

from mika.cap.phone.inspect_command import inspect_command, listing_for_xml
from tests.real_fixtures import real


def _runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)
    except TypeError:  # click ≥ 8.2 keeps stderr apart by default
        return CliRunner()


def test_listing_is_printed() -> None:
    path = real("ui_dumps/gmail__inbox_compose.xml")
    result = _runner().invoke(inspect_command, [str(path)])
    assert result.exit_code == 0
    assert result.stdout.strip() == listing_for_xml(path.read_bytes())
    assert result.stdout.startswith("Screen v1 · com.google.android.gm")
    assert '"Compose"' in result.stdout


def test_json_has_numbered_elements_with_bounds_and_flags() -> None:
    path = real("ui_dumps/wechat__chat_list__u2_multiwindow.xml")
    result = _runner().invoke(inspect_command, [str(path), "--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["package"] == "com.tencent.mm" and data["format"] == "u2"
    first = data["elements"][0]
    assert first["number"] == 1 and len(first["bounds"]) == 4
    assert set(first["flags"]) >= {"clickable", "checkable", "scrollable", "editable", "password"}
    assert [w["kind"] for w in data["windows"]] == ["status_bar", "app", "overlay"]


def test_broken_dump_is_a_clear_error_in_both_languages(tmp_path) -> None:
    bad = tmp_path / "bad.xml"
    bad.write_bytes((real("ui_dumps/gmail__inbox_compose.xml")).read_bytes()[:500])
    result = _runner().invoke(inspect_command, [str(bad)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "not a UI hierarchy dump" in result.stderr and "truncated" in result.stderr
    assert "不是界面层级文件" in result.stderr
    assert "Traceback" not in result.stderr


def test_missing_file_is_a_clear_error(tmp_path) -> None:
    result = _runner().invoke(inspect_command, [str(tmp_path / "nope.xml")])
    assert result.exit_code == 2
    assert "Cannot read" in result.stderr and "无法读取文件" in result.stderr
