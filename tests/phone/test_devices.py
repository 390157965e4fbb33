"""Devices through the real adb server: listing, picking, connect/disconnect, pairing input."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from mika.cap.phone import PhoneOpenError, open_phone
from mika.cap.phone.adb.devices import transport_of
from mika.cap.phone.adb.pairing import PairingError, normalise_code, parse_mdns, qr_payload
from mika.cap.phone.adb.server import AdbServerError, ServerAddress
from mika.commands.devices import connect_command, devices_command, disconnect_command, pair_command


class TestServerAddress:
    def test_the_env_is_honoured_like_adb_does(self):
        assert ServerAddress.from_env({"ADB_SERVER_SOCKET": "tcp:127.0.0.5:5999"}) == ServerAddress("127.0.0.5", 5999)
        assert ServerAddress.from_env({"ANDROID_ADB_SERVER_PORT": "6001"}) == ServerAddress("127.0.0.1", 6001)
        assert ServerAddress.from_env({}) == ServerAddress("127.0.0.1", 5037)
        with pytest.raises(AdbServerError, match="ADB_SERVER_SOCKET"):
            ServerAddress.from_env({"ADB_SERVER_SOCKET": "unix:/x"})


class TestPairingInput:
    @pytest.mark.parametrize("typed", ["123456", "123 456", "123-456", "１２３４５６", " 12–34—56 "])
    def test_codes_are_normalised(self, typed):
        assert normalise_code(typed) == "123456"

    @pytest.mark.parametrize("typed", ["12345", "1234567", "12a456", ""])
    def test_bad_codes_are_refused_before_trying(self, typed):
        with pytest.raises(PairingError, match="6 digits"):
            normalise_code(typed)

    def test_qr_payload_and_mdns_lines(self):
        assert qr_payload("mika-ab", "pw1") == "WIFI:T:ADB;S:mika-ab;P:pw1;;"
        lines = (
            "mika-ab\t_adb-tls-pairing._tcp.\t192.168.1.5:37001\nadb-XYZ\t_adb-tls-connect._tcp.\t192.168.1.5:40111\n"
        )
        services = parse_mdns(lines)
        assert [(s.name, s.kind, s.address) for s in services] == [
            ("mika-ab", "_adb-tls-pairing._tcp", "192.168.1.5:37001"),
            ("adb-XYZ", "_adb-tls-connect._tcp", "192.168.1.5:40111"),
        ]

    def test_pair_command_checks_the_code_first(self, adb_server):
        out = CliRunner().invoke(pair_command, ["127.0.0.1:1", "12-345"])
        assert out.exit_code == 3 and "6 digits" in out.output

    def test_pairing_with_nobody_there_says_so(self, adb_server):
        out = CliRunner().invoke(pair_command, ["127.0.0.1:9", "123456"])
        assert out.exit_code == 3 and "Pairing with 127.0.0.1:9 failed" in out.output


class TestDevices:
    def test_transport_is_read_from_the_serial(self):
        assert transport_of("127.0.0.1:5555") == "tcp"
        assert transport_of("R58M123ABC") == "usb"
        assert transport_of("adb-R58M-abc._adb-tls-connect._tcp") == "tls"

    def test_devices_json_lists_the_simulated_phone(self, sim_phone):
        out = CliRunner().invoke(devices_command, ["--json"])
        assert out.exit_code == 0, out.output
        rows = json.loads(out.output)
        row = next(r for r in rows if r["serial"] == sim_phone.serial)
        assert row == {
            "serial": sim_phone.serial,
            "state": "device",
            "transport": "tcp",
            "model": "Mika Sim Phone",
            "release": row["release"],
        }
        assert row["release"]

    def test_disconnect_and_connect_again(self, sim_phone):
        out = CliRunner().invoke(disconnect_command, [sim_phone.serial])
        assert out.exit_code == 0, out.output
        states = {i.serial: i.state for i in sim_phone.server.client().list()}
        assert sim_phone.serial not in states
        out = CliRunner().invoke(connect_command, [sim_phone.serial])
        assert out.exit_code == 0 and "connected to" in out.output
        sim_phone.server.client().wait_for(sim_phone.serial, state="device", timeout=10)

    def test_connect_refuses_what_is_not_host_port(self, adb_server):
        out = CliRunner().invoke(connect_command, ["phone.local"])
        assert out.exit_code == 3 and "HOST:PORT" in out.output


class TestOpenPhone:
    def test_the_only_phone_is_picked(self, sim_phone):
        cap = open_phone(None, ocr=False, backend="dump")
        assert cap.serial == sim_phone.serial and cap.id == "phone"

    def test_several_phones_are_listed(self, sim_phone_factory):
        a, b = sim_phone_factory(serial="a"), sim_phone_factory(serial="b")
        with pytest.raises(PhoneOpenError) as err:
            open_phone(None, ocr=False)
        assert a.serial in str(err.value) and b.serial in str(err.value) and "--device" in str(err.value)

    def test_a_named_phone_that_is_not_there(self, sim_phone):
        with pytest.raises(PhoneOpenError, match="No phone 'nope:1'"):
            open_phone("nope:1", ocr=False)

    def test_sim_starts_through_the_given_starter(self, sim_phone_factory, tmp_path):
        started = []

        def start():
            phone = sim_phone_factory(serial="started")
            started.append(phone)
            return phone.running

        cap = open_phone("sim", start_sim=start, ocr=False, state_dir=tmp_path)
        assert cap.serial == started[0].serial

    def test_sim_without_a_starter_says_how(self, adb_server):
        with pytest.raises(PhoneOpenError, match="mika sim"):
            open_phone("sim", ocr=False)


class TestChinese:
    def test_messages_follow_the_ui_language(self, monkeypatch, adb_server):
        from mika.config.language import set_language

        set_language("zh")
        try:
            out = CliRunner().invoke(pair_command, ["127.0.0.1:1", "12-345"])
            assert out.exit_code == 3 and "6 位数字" in out.output
            with pytest.raises(PhoneOpenError, match="没有连接名为"):
                open_phone("nope:1", ocr=False)
        finally:
            set_language(None)


class TestServerStart:
    def test_the_bundled_adb_is_started_when_none_runs(self):
        import subprocess

        from mika.cap.phone.adb.server import adb_client, bundled_adb
        from tests.adb_env import free_port

        address = ServerAddress("127.0.0.1", free_port())
        assert not address.is_listening()
        try:
            client = adb_client(address)
            assert address.is_listening() and client.server_version() > 0
        finally:
            subprocess.run([bundled_adb(), "-P", str(address.port), "kill-server"], capture_output=True, timeout=30)
