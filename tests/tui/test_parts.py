"""The app's parts without the app: half blocks, QR, config writing, event folding, the
device list through a real adb server and the simulated phone."""

from __future__ import annotations

import io
import tomllib

import pytest
from PIL import Image

from mika.assembly.devices import AdbDevices
from mika.cap.phone.adb.pairing import PairingError, check_address, normalise_code, parse_mdns, qr_payload
from mika_tui.config_write import dumps, update_config
from mika_tui.frames import PNG_MAGIC, AdbFrameSource
from mika_tui.halfblock import fit, to_strips
from mika_tui.run_view import RunView, format_elapsed
from mika_tui.screens.devices import qr_drawing as qr_text
from tests.tui import scenes
from tests.tui.conftest import sim_frames


def test_half_blocks_keep_the_aspect_ratio_and_colours():
    img = Image.new("RGB", (4, 8), (255, 0, 0))
    for x in range(4):
        for y in range(4, 8):
            img.putpixel((x, y), (0, 0, 255))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    strips = to_strips(buf.getvalue(), (4, 4))  # 4×8 pixels: 4 cells wide, 4 rows of 2 pixels
    assert len(strips) == 4 and strips[0].cell_length == 4
    top, bottom = next(iter(strips[0])), next(iter(strips[3]))
    assert top.text == "▀▀▀▀" and top.style.color.triplet == (252, 0, 0)
    assert bottom.style.bgcolor.triplet == (0, 0, 252)
    assert len(to_strips(buf.getvalue(), (4, 2))) == 2  # a shorter box shrinks the picture
    assert fit((1080, 2400), (40, 30)) == (27, 30)


def test_a_sim_frame_renders_to_the_requested_box():
    strips = to_strips(sim_frames()[0], (38, 25))
    assert len(strips) <= 25 and max(s.cell_length for s in strips) <= 38


def test_qr_is_drawn_and_payload_is_androids_format():
    assert qr_payload("mika-1", "pw") == "WIFI:T:ADB;S:mika-1;P:pw;;"
    text = qr_text(qr_payload("mika-1", "pw"))
    lines = text.splitlines()
    assert len(lines) > 10 and len({len(line) for line in lines}) == 1


def test_address_and_code_checks_and_mdns_parsing():
    # The Devices screen checks with the phone layer's own rules (one place for them).
    assert check_address("192.168.1.20:37123") == "192.168.1.20:37123"
    with pytest.raises(PairingError):
        check_address("my phone")
    assert normalise_code("123 456") == "123456"
    with pytest.raises(PairingError):
        normalise_code("12345")
    out = "List of discovered mdns services\nadb-R5CT-abc\t_adb-tls-pairing._tcp\t192.168.1.20:37123\n"
    assert parse_mdns(out)[0].address == "192.168.1.20:37123"


def test_config_round_trips_through_toml(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[general]\nlanguage = "zh"\n\n[providers.deepseek]\npreset = "deepseek"\n')
    update_config(path, {"general": {"autonomous": True}, "keymap": {"main.stop": "ctrl+s"}})
    data = tomllib.loads(path.read_text())
    assert data["general"] == {"language": "zh", "autonomous": True}
    assert data["providers"]["deepseek"]["preset"] == "deepseek"
    assert data["keymap"]["main.stop"] == "ctrl+s"
    assert tomllib.loads(dumps({"a": {"b": {"c": 'x"y'}}})) == {"a": {"b": {"c": 'x"y'}}}


def test_a_recorded_run_folds_into_its_timeline(tmp_path):
    from mika.record.recorder import find_run, read_events

    run_id = scenes.write_run_record(tmp_path, sim_frames()[0])
    view = RunView(run_id)
    for event in read_events(find_run(tmp_path, run_id)):
        view.apply(event)
    assert [s.name for s in view.steps] == ["open_app", "tap", "tap"]
    assert view.steps[1].ok is False and view.steps[1].code == "stale_element"
    assert view.steps[2].wait_ms == 1200 and view.status == "answered"
    assert format_elapsed(72) == "1m12s"


def test_devices_and_frames_through_a_real_adb_server(sim_phone):
    rows = AdbDevices().list()
    row = next(r for r in rows if r.serial == sim_phone.serial)
    assert row.state == "device" and row.transport == "tcp"
    png = AdbFrameSource(sim_phone.serial).grab()
    assert png.startswith(PNG_MAGIC)
    assert Image.open(io.BytesIO(png)).size[0] > 100


def test_the_drawn_qr_reads_back_as_the_libraries_matrix():
    import qrcode

    payload = qr_payload("mika-3f9a1c", "7c2e91ab")
    qr = qrcode.QRCode(border=2, error_correction=qrcode.constants.ERROR_CORRECT_L)
    qr.add_data(payload)
    qr.make(fit=True)
    matrix = qr.get_matrix()
    cell = {"█": (False, False), " ": (True, True), "▀": (False, True), "▄": (True, False)}
    rows: list[list[bool]] = []
    for line in qr_text(payload).splitlines():
        pairs = [cell[ch] for ch in line]
        rows.append([t for t, _ in pairs])
        rows.append([b for _, b in pairs])
    assert rows[: len(matrix)] == matrix


class TestStepTargets:
    """The timeline names a step's target the way a person reads it."""

    def test_labels_elements_and_points(self):
        from mika_tui.run_view import target_of

        assert target_of({"app": "Settings"}) == "Settings"
        assert target_of({"element": 11}) == "#11"
        assert target_of({"x": 540, "y": 1200.0}) == "@540,1200"
        assert target_of({}) == ""
