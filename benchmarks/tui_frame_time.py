"""UI frame time while the live preview runs at 5 fps (headless, 120×40).

Measures: the half-block conversion of one frame (done in the worker thread), the time
to render the whole screen once (compositor, on the UI thread), and the event loop's
lag — how late a 10 ms timer fires — with the preview off and on.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._tui_bench_app import make_app, sim_png


async def loop_lag(seconds: float) -> list[float]:
    lags = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        t = time.perf_counter()
        await asyncio.sleep(0.01)
        lags.append((time.perf_counter() - t - 0.01) * 1000)
    return lags


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]


async def main() -> None:
    from mika_tui.halfblock import to_strips
    from mika_tui.widgets.preview import PhonePreview

    png = sim_png()
    convert = []
    for _ in range(30):
        t = time.perf_counter()
        to_strips(png, (40, 30))
        convert.append((time.perf_counter() - t) * 1000)

    rows = []
    for fps in (0.0, 5.0):
        app = make_app(fps=fps or 5.0, frames=[png])
        async with app.run_test(size=(120, 40)) as pilot:
            preview = app.screen.query_one(PhonePreview)
            if not fps:
                preview.source = None  # preview off: the baseline
            await pilot.pause()
            start_frames = preview.frames_shown
            lags = await loop_lag(3.0)
            shown = preview.frames_shown - start_frames
            renders = []
            for _ in range(20):
                t = time.perf_counter()
                app.screen._compositor.render_update(full=True)
                renders.append((time.perf_counter() - t) * 1000)
        rows.append(
            (
                f"preview {'off' if not fps else '5 fps'}",
                shown / 3.0,
                statistics.median(lags),
                pct(lags, 0.95),
                max(lags),
                statistics.median(renders),
            )
        )

    print(
        f"half-block conversion of a sim frame to 40×30 cells: median {statistics.median(convert):.2f} ms, "
        f"p95 {pct(convert, 0.95):.2f} ms (worker thread)"
    )
    print(f"{'state':<16}{'frames/s':>10}{'lag p50':>10}{'lag p95':>10}{'lag max':>10}{'screen render':>15}")
    for name, fps, p50, p95, mx, render in rows:
        print(f"{name:<16}{fps:>10.1f}{p50:>9.2f}ms{p95:>9.2f}ms{mx:>9.2f}ms{render:>13.2f}ms")


if __name__ == "__main__":
    asyncio.run(main())
