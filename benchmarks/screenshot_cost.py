"""What one phone_screenshot costs Mika: bytes and pixels the model gets, CPU time and
image decodes/encodes of the processing, before and after issue 35.

    uv run python benchmarks/screenshot_cost.py [ROUNDS]

Captures: screens of the simulated phone (`screencap -p` through a real adb server, the
shared setup of benchmarks/_sim_bench.py) and the real screenshots of MIKA_REAL_FIXTURES
(default ../shared/fixtures/real) when it is there.

`before` is the processing of main@41bcf7d, kept here so it can still be measured: the
capture check decoded the PNG, the black check decoded it again, the app-window black
check decoded it a third time, cropped it, encoded the crop as PNG and decoded that; the
model got the full PNG. `after` is today's path: `screen_picture` (one decode), the
app-window check on that picture, `for_model` (scaled to `[phone] picture_long_side`,
JPEG). CPU is this thread's time (`time.thread_time`), the sim idle meanwhile; decodes
and encodes are counted at PIL's decoder/encoder factories.
"""

from __future__ import annotations

import asyncio
import base64
import io
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _sim_bench import bench_phone

from mika.cap.phone.model_picture import for_model
from mika.cap.phone.screenshot import screen_picture
from mika.cap.phone.tools.observe import app_window_black
from mika.uistate import Screen, build_screen, parse_hierarchy

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("MIKA_REAL_FIXTURES") or REPO.parent / "shared" / "fixtures" / "real")
REAL = [
    ("real haoce webview", "haoce__webview_reading_report"),
    ("real wechat chats", "wechat__chat_list__u2_multiwindow"),
]
SIM = [
    ("sim launcher", "input keyevent HOME"),
    ("sim settings display", "am start -a android.settings.DISPLAY_SETTINGS"),
    ("sim reading report", "am start -n com.mika.reader/.WebActivity"),
]


class Counts:
    """Decodes and encodes made through PIL while `counting()` is on."""

    def __init__(self) -> None:
        self.decodes = 0
        self.encodes = 0
        self._real_dec: Any = Image._getdecoder
        self._real_enc: Any = Image._getencoder

    def install(self) -> None:
        def dec(*a: Any, **k: Any) -> Any:
            self.decodes += 1
            return self._real_dec(*a, **k)

        def enc(*a: Any, **k: Any) -> Any:
            self.encodes += 1
            return self._real_enc(*a, **k)

        Image._getdecoder = dec  # type: ignore[assignment]
        Image._getencoder = enc  # type: ignore[assignment]

    def reset(self) -> None:
        self.decodes = self.encodes = 0


def _black(img: Image.Image) -> bool:
    small = img.convert("L")
    small.thumbnail((96, 96))
    low_high: Any = small.getextrema()
    return low_high[1] <= 10


def before(png: bytes, screen: Screen) -> tuple[bytes, tuple[int, int]]:
    """main@41bcf7d's phone_screenshot processing, step for step."""
    with Image.open(io.BytesIO(png)) as img:  # screenshot.validate_png: decode to check
        img.load()
        size = img.size
    with Image.open(io.BytesIO(png)) as img:  # screenshot.is_black
        _black(img)
    apps = [w for w in screen.windows if w.kind in ("app", "dialog")]
    if apps:  # tools/observe.app_window_black: decode, crop, PNG-encode the crop, decode it
        box = max(apps, key=lambda w: w.bounds.area).bounds
        with Image.open(io.BytesIO(png)) as img:
            crop = img.crop((box.left, box.top, min(box.right, img.width), min(box.bottom, img.height)))
            buf = io.BytesIO()
            crop.save(buf, format="PNG")
        with Image.open(io.BytesIO(buf.getvalue())) as img:
            _black(img)
    return png, size  # the model got the PNG itself


def after(png: bytes, screen: Screen) -> tuple[bytes, tuple[int, int]]:
    picture = screen_picture(png)
    app_window_black(picture, screen)
    sent = for_model(picture, screen.size or picture.size)
    return sent.image.data, sent.scale.picture


def _captures() -> Iterator[tuple[str, bytes, Screen]]:
    for name, stem in REAL:
        shot, dump = SHARED / "screenshots" / f"{stem}.png", SHARED / "ui_dumps" / f"{stem}.xml"
        if shot.exists() and dump.exists():
            png = shot.read_bytes()
            with Image.open(io.BytesIO(png)) as img:
                size = img.size
            yield name, png, build_screen(parse_hierarchy(dump.read_text(encoding="utf-8")), size=size)
    with bench_phone() as phone:
        from mika.cap.phone.adb.port import AdbPort
        from mika.cap.phone.reader import ScreenReader

        device = phone.client.device(phone.serial)

        async def grab() -> list[tuple[str, bytes, Screen]]:
            port = AdbPort(phone.serial, phone.client, backend="u2")
            reader = ScreenReader(port)
            got = []
            for name, command in SIM:
                device.shell(command)
                screen = await reader.read()
                got.append((name, bytes(device.shell("screencap -p", encoding=None)), screen))
            await port.close()
            return got

        yield from asyncio.run(grab())


def _measure(
    fn: Callable[[bytes, Screen], tuple[bytes, tuple[int, int]]],
    png: bytes,
    screen: Screen,
    rounds: int,
    counts: Counts,
) -> tuple[bytes, tuple[int, int], float, int, int]:
    fn(png, screen)  # warm: imports, codecs
    counts.reset()
    out, size = fn(png, screen)
    decodes, encodes = counts.decodes, counts.encodes
    times = []
    for _ in range(rounds):
        t0 = time.thread_time()
        fn(png, screen)
        times.append((time.thread_time() - t0) * 1000)
    return out, size, statistics.median(times), decodes, encodes


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    counts = Counts()
    counts.install()
    head = f"{'capture':<22} {'path':<7} {'sent':>9} {'format':>6} {'bytes':>8} {'base64':>8} {'CPU ms':>7} {'decodes':>7} {'encodes':>7}"
    print(head)
    print("-" * len(head))
    totals: dict[str, list[float]] = {"before": [], "after": []}
    for name, png, screen in _captures():
        for label, fn in (("before", before), ("after", after)):
            out, (w, h), cpu, dec, enc = _measure(fn, png, screen, rounds, counts)
            kind = "PNG" if out.startswith(b"\x89PNG") else "JPEG"
            b64 = len(base64.b64encode(out))
            totals[label].append(cpu)
            print(
                f"{name:<22} {label:<7} {f'{w}x{h}':>9} {kind:>6} {len(out):>8,} {b64:>8,} {cpu:>7.1f} {dec:>7} {enc:>7}"
            )
    if totals["before"]:
        b, a = statistics.mean(totals["before"]), statistics.mean(totals["after"])
        print(f"\nmean CPU per screenshot: before {b:.1f} ms, after {a:.1f} ms ({b / a:.1f}x less)")


if __name__ == "__main__":
    main()
