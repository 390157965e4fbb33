"""Devices: what the adb server sees, connect HOST:PORT, pair with a code or a QR code drawn
in the terminal, choose the simulated phone, and whether uiautomator2 is on each.

Every device operation is the phone layer's, through `mika.assembly.devices` (the adb
server's `host:pair` and mDNS, the QR payload); this screen only draws and asks.
"""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Button, DataTable, Footer, Input, Static

from mika.assembly.devices import DeviceOpError, DeviceStatus
from mika.cap.phone.adb.devices import transport_of
from mika.cap.phone.adb.pairing import PairingError, check_address, new_qr_identity, normalise_code, qr_payload
from mika_tui.deps import DeviceInfo
from mika_tui.plain import cell, plain
from mika_tui.screens.base import SubScreen


def qr_drawing(payload: str) -> str:
    """The QR code drawn with half blocks, so a phone's camera can read it off the terminal.
    (Only the drawing is the TUI's: the payload and the pairing are the phone layer's.)"""
    import qrcode

    qr = qrcode.QRCode(border=2, error_correction=qrcode.constants.ERROR_CORRECT_L)
    qr.add_data(payload)
    qr.make(fit=True)
    matrix = qr.get_matrix()  # True = dark module
    if len(matrix) % 2:
        matrix.append([False] * len(matrix[0]))
    lines = []
    for top, bottom in zip(matrix[0::2], matrix[1::2], strict=True):
        # Light modules are drawn as full blocks: scanners want dark-on-light.
        lines.append(
            "".join(
                {(False, False): "█", (True, True): " ", (False, True): "▀", (True, False): "▄"}[(t, b)]
                for t, b in zip(top, bottom, strict=True)
            )
        )
    return "\n".join(lines)


def _valid(check, text: str) -> str | None:
    try:
        return check(text)
    except PairingError:
        return None


class DevicesScreen(SubScreen):
    CSS_PATH = "devices.tcss"
    BINDINGS = [Binding("f5", "refresh", "b_refresh", id="devices.refresh", tooltip="b_refresh")]

    class Listed(Message):
        def __init__(self, rows: list[DeviceStatus] | None, error: str = "") -> None:
            super().__init__()
            self.rows, self.error = rows, error

    class Said(Message):
        def __init__(self, text: str, error: bool = False) -> None:
            super().__init__()
            self.text, self.error = text, error

    def compose(self) -> ComposeResult:
        tr = self.mika.tr
        with VerticalScroll():
            yield Static(tr("devices_title"), classes="title")
            yield DataTable(id="device-table", cursor_type="row")
            with Horizontal():
                yield Input(placeholder=tr("connect_label"), id="connect-addr")
                yield Button(tr("connect_button"), id="connect")
                yield Button(tr("use_button"), id="use")
                yield Button(tr("sim_button"), id="use-sim")
            with Horizontal():
                yield Input(placeholder=tr("pair_label"), id="pair-addr")
                yield Input(placeholder="123456", id="pair-code")
                yield Button(tr("pair_button"), id="pair")
                yield Button(tr("qr_button"), id="pair-qr")
            yield Static("", id="device-message")
            yield Static("", id="qr")
        yield Footer()

    def on_mount(self) -> None:
        super().on_mount()
        tr = self.mika.tr
        table = self.query_one(DataTable)
        for key in ("col_serial", "col_state", "col_model", "col_transport", "col_u2"):
            table.add_column(tr(key), key=key)
        self.action_refresh()

    def action_refresh(self) -> None:
        if self.mika.deps.devices_port is None:
            self.post_message(self.Listed([], ""))
            return
        self._list()

    @work(thread=True, exclusive=True, exit_on_error=False, group="devices")
    def _list(self) -> None:
        try:
            rows = self.mika.deps.devices_port.list()  # type: ignore[union-attr]
        except DeviceOpError as exc:
            self.post_message(self.Listed(None, str(exc)))
            return
        self.post_message(self.Listed(rows))

    def on_devices_screen_listed(self, message: Listed) -> None:
        tr = self.mika.tr
        table = self.query_one(DataTable)
        table.clear()
        if message.rows is None:
            self._say(message.error, error=True)
            return
        for r in message.rows:
            current = " ◀" if r.serial == self.mika.deps.device.serial else ""
            # Serials, models and states are what the phone or adb reported: cells of text.
            table.add_row(
                cell(r.serial + current),
                cell(r.state),
                cell(r.model),
                cell(r.transport),
                tr(f"u2_{r.u2}") if r.u2 in ("running", "installed", "absent", "unknown") else cell(r.u2),
                key=r.serial,
            )
        if not message.rows:
            self._say(tr("devices_none"))

    def on_devices_screen_said(self, message: Said) -> None:
        self._say(message.text, error=message.error)

    def _say(self, text: str, *, error: bool = False) -> None:
        line = self.query_one("#device-message", Static)
        line.update(plain(text))
        line.set_class(error, "-error")

    @on(Button.Pressed, "#connect")
    def on_connect(self) -> None:
        addr = self.query_one("#connect-addr", Input).value.strip()
        address = _valid(check_address, addr)
        if address is None:
            self._say(self.mika.tr("bad_hostport", text=addr), error=True)
            return
        self._op("connect", address)

    @on(Button.Pressed, "#pair")
    def on_pair(self) -> None:
        addr = self.query_one("#pair-addr", Input).value.strip()
        code = self.query_one("#pair-code", Input).value.strip()
        address, digits = _valid(check_address, addr), _valid(normalise_code, code)
        if address is None:
            self._say(self.mika.tr("bad_hostport", text=addr), error=True)
            return
        if digits is None:
            self._say(self.mika.tr("bad_code"), error=True)
            return
        self._op("pair", address, digits)

    @work(thread=True, exclusive=True, exit_on_error=False, group="device-op")
    def _op(self, op: str, *args: str) -> None:
        port = self.mika.deps.devices_port
        try:
            text = getattr(port, op)(*args)
        except (DeviceOpError, AttributeError) as exc:
            self.post_message(self.Said(str(exc), True))
            return
        self.post_message(self.Said(str(text)))
        self.app.call_from_thread(self.action_refresh)

    @on(Button.Pressed, "#pair-qr")
    def on_pair_qr(self) -> None:
        name, password = new_qr_identity()
        self.show_qr(name, password)
        self._watch_pairing(name, password)

    def show_qr(self, name: str, password: str) -> None:
        self.query_one("#qr", Static).update(qr_drawing(qr_payload(name, password)))
        self._say(self.mika.tr("qr_help", name=name) + "\n" + self.mika.tr("qr_waiting"))

    @work(thread=True, exclusive=True, exit_on_error=False, group="qr")
    def _watch_pairing(self, name: str, password: str) -> None:
        import time

        port = self.mika.deps.devices_port
        worker = __import__("textual.worker", fromlist=["get_current_worker"]).get_current_worker()
        deadline = time.monotonic() + 120
        while port is not None and not worker.is_cancelled and time.monotonic() < deadline:
            try:
                found = [s for s in port.pairing_services() if s.name == name]
                if found:
                    self.post_message(self.Said(port.pair(found[0].address, password)))
                    self.app.call_from_thread(self.action_refresh)
                    return
            except DeviceOpError as exc:
                self.post_message(self.Said(str(exc), True))
                return
            time.sleep(1.0)

    @on(Button.Pressed, "#use")
    def on_use(self) -> None:
        table = self.query_one(DataTable)
        if table.row_count == 0:
            return
        serial = str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
        self._choose(DeviceInfo(serial, serial, transport_of(serial)))

    @on(Button.Pressed, "#use-sim")
    def on_use_sim(self) -> None:
        if self.mika.deps.start_sim is not None:
            self._start_sim()

    @work(thread=True, exclusive=True, exit_on_error=False, group="device-op")
    def _start_sim(self) -> None:
        try:
            info = self.mika.deps.start_sim()  # type: ignore[misc]
        except DeviceOpError as exc:
            self.post_message(self.Said(str(exc), True))
            return
        self.app.call_from_thread(self._choose, info)

    def _choose(self, info: DeviceInfo) -> None:
        from mika_tui.frames import AdbFrameSource
        from mika_tui.widgets.preview import PhonePreview

        deps = self.mika.deps
        deps.use_device(info)  # the next runs use it too
        deps.frames = AdbFrameSource(info.serial)
        self.mika.main_screen.query_one(PhonePreview).source = deps.frames
        self._say(self.mika.tr("device_chosen", serial=info.serial))
        self.action_refresh()
