"""The live preview from the agent's display video: decode time, frame rate, UI frame time.

1. The simulated phone's rendered screens (home, then Settings scrolling by) are encoded
   to H.264 with PyAV's libx264 at the sim's resolution, split into scrcpy's config +
   frame packets and framed as the video socket's bytes.
2. Those bytes are parsed and decoded by mika.cap.phone.display.video as fast as it can
   (decode ms median / p95, frames per second).
3. The same stream is played at 30 fps into the decoder's worker while the TUI runs
   headless at 120×40 with the preview fed from it: the frames the preview drew per
   second, the event loop's lag (tui_frame_time.py's way) and one full screen render.
Target: ≥ 15 fps in the preview with UI frames ≤ 16 ms.
"""

from __future__ import annotations

import asyncio
import io
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._tui_bench_app import make_app
from benchmarks.tui_frame_time import loop_lag, pct

PLAY_FPS = 30
SECONDS = 4.0


def sim_screens():
    from PIL import Image

    from mika.sim.phone import make_device
    from mika.sim.shell.commands.ui import screenshot

    world = make_device("mika-bench").world
    home = Image.open(io.BytesIO(screenshot(world, 0, "png"))).convert("RGB")
    world.launch("com.android.settings", display_id=0)
    settings = Image.open(io.BytesIO(screenshot(world, 0, "png"))).convert("RGB")
    w, h = home.size
    frames = [home] * 5
    # Settings scrolling by 12 px a frame: every frame differs, like a list being read.
    for i in range(int(PLAY_FPS * SECONDS)):
        shift = (i * 12) % (h // 2)
        frame = Image.new("RGB", (w, h), (0, 0, 0))
        frame.paste(settings.crop((0, shift, w, h)), (0, 0))
        frame.paste(settings.crop((0, 0, w, shift)), (0, h - shift))
        frames.append(frame)
    return frames


def main() -> None:
    from mika.cap.phone.display.h264_encode import H264Encoder
    from mika.cap.phone.display.packets import StreamHead, encode_stream, parse_stream
    from mika.cap.phone.display.video import VideoDecoder

    screens = sim_screens()
    w, h = screens[0].size
    encoder = H264Encoder(w, h, fps=PLAY_FPS)
    t = time.perf_counter()
    packets = [p for s in screens for p in encoder.encode(s)] + encoder.flush()
    encode_s = time.perf_counter() - t
    wire = encode_stream(StreamHead("mika-sim", "h264", w, h), packets)
    print(
        f"stream: {len(screens)} sim screens {w}×{h}, {len(packets)} packets, {len(wire) / 1024:.0f} KiB "
        f"(libx264 ultrafast/zerolatency encode {encode_s / len(screens) * 1000:.1f} ms a frame)"
    )

    # 2. Flat out: the decoder's own speed.
    decoder = VideoDecoder()
    _, stream = parse_stream(wire)
    t = time.perf_counter()
    decoder.start(stream)
    decoder.wait_ended()
    flat = decoder.stats()
    flat_fps = flat.frames / (time.perf_counter() - t)
    assert not decoder.error, decoder.error

    # 3. Played at 30 fps into the TUI's preview.
    rows = asyncio.run(tui_run(packets))

    print()
    print(f"{'measure':<44}{'value':>12}")
    print(f"{'decode ms, median (to RGB picture)':<44}{flat.decode_ms_median:>10.2f}ms")
    print(f"{'decode ms, p95':<44}{flat.decode_ms_p95:>10.2f}ms")
    print(f"{'decode frames/s, flat out':<44}{flat_fps:>12.1f}")
    for name, value, unit in rows:
        print(f"{name:<44}{value:>{12 - len(unit)}.2f}{unit}")
    shown = next(v for n, v, _ in rows if n.startswith("preview frames/s"))
    p95 = next(v for n, v, _ in rows if n.startswith("UI loop lag p95"))
    render = next(v for n, v, _ in rows if n.startswith("full screen render"))
    ok = shown >= 15 and p95 <= 16 and render <= 16
    print(f"\ntarget ≥ 15 fps with UI frames ≤ 16 ms: {'met' if ok else 'NOT met'}")


async def tui_run(packets) -> list[tuple[str, float, str]]:
    from mika.cap.phone.display.video import VideoDecoder
    from mika_tui.frames import VideoFrameSource
    from mika_tui.widgets.preview import PhonePreview

    decoder = VideoDecoder()
    stop = threading.Event()

    def paced():
        """The packets as a phone sends them: one frame every 1/30 s, config with its frame."""
        start = time.perf_counter()
        n = 0
        for p in packets:
            if stop.is_set():
                return
            if not p.config:
                n += 1
                delay = start + n / PLAY_FPS - time.perf_counter()
                if delay > 0:
                    stop.wait(delay)  # pacing like the device's encoder, not synchronisation
            yield p

    app = make_app(fps=5.0)
    async with app.run_test(size=(120, 40)) as pilot:
        preview = app.screen.query_one(PhonePreview)
        preview.use_video(VideoFrameSource(decoder, 1))
        await pilot.pause()
        decoder.start(paced())
        # Skip the first half second (the key frame, the worker starting).
        await asyncio.sleep(0.5)
        start_frames, start_decoded = preview.frames_shown, decoder.stats().frames
        t = time.perf_counter()
        lags = await loop_lag(min(SECONDS - 1.0, 3.0))
        seconds = time.perf_counter() - t
        shown = (preview.frames_shown - start_frames) / seconds
        decoded = (decoder.stats().frames - start_decoded) / seconds
        renders = []
        for _ in range(20):
            t = time.perf_counter()
            app.screen._compositor.render_update(full=True)
            renders.append((time.perf_counter() - t) * 1000)
        stop.set()
        decoder.stop()
        live = decoder.stats()
    return [
        ("stream played at (frames/s)", decoded, ""),
        ("decode ms p95 while the TUI runs", live.decode_ms_p95, "ms"),
        ("preview frames/s drawn (120×40 half blocks)", shown, ""),
        ("UI loop lag p50", statistics.median(lags), "ms"),
        ("UI loop lag p95", pct(lags, 0.95), "ms"),
        ("UI loop lag max", max(lags), "ms"),
        ("full screen render, median", statistics.median(renders), "ms"),
    ]


if __name__ == "__main__":
    main()
