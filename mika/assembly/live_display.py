"""The live phone of a running run, for faces that show or drive its display (the TUI's
preview and takeover): the faces reach a run's display only through here.

One `LiveDisplay` per run that has a phone. `video()` starts one decoder per display the
run's helper made (the stream can be read only once) and hands it out again to every
asker; while it runs, the run's own screenshots of that display are its decoded frame.
`input()` drives the display through its control socket when there is one, else `input -d N`.
`user_took_over()` is the takeover's word to the display's keeper: keep the app at the end.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.cap.phone.display.input import AdbDisplayInput, ControlDisplayInput, DisplayInput, TaskMover
from mika.cap.phone.display.video import VideoDecoder


@dataclass(frozen=True)
class DisplayVideo:
    decoder: VideoDecoder
    display: int
    size: tuple[int, int]


class LiveDisplay:
    def __init__(self, phone: PhoneCapability) -> None:
        self.phone = phone
        self._lock = threading.Lock()
        self._video: DisplayVideo | None = None
        self._server: Any = None  # the DisplayServer whose stream `_video` decodes

    @property
    def serial(self) -> str:
        return self.phone.serial

    def _running_server(self) -> Any:
        keeper = self.phone.keeper
        server = getattr(keeper, "server", None)
        if server is None or not server.alive or server.display_id is None:
            return None
        return server

    def video(self) -> DisplayVideo | None:
        """The decoder of the run's display now (started on first ask); None while the run
        has no display of its own."""
        with self._lock:
            server = self._running_server()
            if server is None:
                return None
            if self._video is not None and self._server is server and not self._video.decoder.ended:
                return self._video
            self._stop_locked()
            keeper = self.phone.keeper
            assert keeper is not None
            stream = keeper.video_stream()
            if stream is None:
                return None
            head, packets = stream
            # Its pictures also go to the keeper's black-frame watch (a powered-off display).
            decoder = VideoDecoder(head.codec or "h264", on_frame=keeper.watch_frames(server))
            decoder.start(packets)
            size = (head.width or server.size[0], head.height or server.size[1])
            self._video = DisplayVideo(decoder, int(server.display_id), size)
            self._server = server
            port = self.phone.port
            if isinstance(port, AdbPort):
                port.frame_source = self._frame
            return self._video

    def _frame(self, display: int) -> Any:
        """The run's screenshot of `display`: the decoded frame while the video runs, as
        the PIL image it is (a PNG in between would be encoded and decoded for nothing)."""
        video = self._video
        if video is None or video.display != display or video.decoder.ended:
            return None
        frame = video.decoder.latest()
        return None if frame is None else frame.image

    def input(self) -> DisplayInput | None:
        """The user's hands on the run's display N; None while it has none (display 0 is
        the user's own screen: nothing to operate from the terminal there)."""
        server = self._running_server()
        if server is None:
            return None
        display = int(server.display_id)
        channel = server.control
        if channel is not None:
            return ControlDisplayInput(channel, display)
        return AdbDisplayInput(self.serial, display)

    def mover(self) -> TaskMover:
        return TaskMover(self.serial)

    async def mend(self) -> bool:
        """While the run waits (a takeover) nothing calls the keeper: when the preview's
        pictures of its display have been black for a while, ask the keeper now, which
        re-creates the display only if `dumpsys display` says it is OFF. True when a new
        display was made (its DisplayChosen event is in the run's stream)."""
        keeper = self.phone.keeper
        if keeper is None or keeper.state is None or not keeper.black.suspicious:
            return False
        before = keeper.state.id
        return (await keeper.ensure()).id != before

    async def user_took_over(self) -> None:
        """The user took the run's display over from a face (moved its task to the main
        screen, or operated it from the preview): the app is theirs now, so the run's end
        keeps it — moved to the main screen — instead of closing it with the display, and
        its sound comes back at once. Awaited on the run's own event loop (the TUI's)."""
        keeper = self.phone.keeper
        if keeper is not None:
            await keeper.user_takes_over()

    @property
    def display(self) -> int:
        server = self._running_server()
        return int(server.display_id) if server is not None else 0

    def _stop_locked(self) -> None:
        video, self._video, self._server = self._video, None, None
        port = self.phone.port
        if isinstance(port, AdbPort) and port.frame_source == self._frame:
            port.frame_source = None
        if video is not None:
            video.decoder.stop()

    def close(self) -> None:
        with self._lock:
            self._stop_locked()
