"""Launch to first paint: a fresh interpreter imports the app, mounts the main screen and
shows the first phone frame (headless driver, 120×40). Prints a table over 5 launches."""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import time
t0 = time.perf_counter()
import asyncio, sys
sys.path.insert(0, {root!r})
from benchmarks._tui_bench_app import make_app, sim_png
png = sim_png()
t_import = time.perf_counter()
app = make_app(frames=[png])
async def main():
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        t_paint = time.perf_counter()
        from mika_tui.widgets.preview import PhonePreview
        preview = app.screen.query_one(PhonePreview)
        while preview.frames_shown < 1:
            await asyncio.sleep(0.005)
        t_frame = time.perf_counter()
        print(f"{{(t_import - t0) * 1000:.1f}} {{(t_paint - t0) * 1000:.1f}} {{(t_frame - t0) * 1000:.1f}}")
asyncio.run(main())
"""


def main() -> None:
    root = str(Path(__file__).resolve().parents[1])
    rows = []
    for _ in range(5):
        out = subprocess.run(
            [sys.executable, "-c", CHILD.format(root=root)], capture_output=True, text=True, timeout=120
        )
        if out.returncode != 0:
            sys.exit(out.stderr)
        rows.append([float(x) for x in out.stdout.split()])
    print(f"{'measure (ms from process start)':<36}{'median':>10}{'min':>10}{'max':>10}")
    for i, name in enumerate(
        ("imports + sim frame rendered", "first paint of the main screen", "first phone frame shown")
    ):
        vals = [r[i] for r in rows]
        print(f"{name:<36}{statistics.median(vals):>10.1f}{min(vals):>10.1f}{max(vals):>10.1f}")


if __name__ == "__main__":
    main()
