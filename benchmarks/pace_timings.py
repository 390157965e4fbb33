"""Distributions of the timings `[general] pace` decides, per setting (fast / standard / human).

    uv run python benchmarks/pace_timings.py [ROUNDS]

Pure: it asks the same objects the phone tools and the action entry ask (mika.action.pace)
for ROUNDS decisions each and prints min / median / p95 / max in milliseconds:
a tap (pause before touch-down + hold), a 300 ms swipe and a 1200 ms drag (their paced
duration), typing a Latin and a CJK sentence (sum of chunk pauses, and the chunk count),
and the dwell before an action on the same / a new screen, and in a careful app after
reading a 400-character screen. Measuring them on the simulated phone through adb is
not done here (see the tests in tests/phone/test_pace_typing.py for the sim).
"""

from __future__ import annotations

import random
import statistics
import sys

from mika.action.pace import AppDwell, GesturePacing, TypingPacing

LATIN = "Meet me at the park gate at seven, ok?"
CJK = "好的，我们明天早上七点在公园门口见。"


def _row(name: str, values: list[float]) -> str:
    v = sorted(values)
    p95 = v[min(len(v) - 1, int(len(v) * 0.95))]
    return f"  {name:<30} {v[0]:>8.0f} {statistics.median(v):>8.0f} {p95:>8.0f} {v[-1]:>8.0f}"


def _gestures(pace: str, rng: random.Random) -> GesturePacing:
    # Gestures are paced under every setting but fast (seed: 手势三种都像人; fast = the old way).
    return GesturePacing.instant() if pace == "fast" else GesturePacing(rng)


def bench(pace: str, rounds: int) -> list[str]:
    rng = random.Random(1)
    g = _gestures(pace, rng)
    typing = TypingPacing.for_pace(pace, rng)
    clock = [0.0]
    dwell = AppDwell(pace, rng, lambda: clock[0], app_pace=lambda p: "careful" if p == "com.bank" else "")
    taps, swipes, drags, latin, cjk, latin_n, cjk_n, same, new, careful = ([] for _ in range(10))
    for _ in range(rounds):
        taps.append(g.pre_touch_ms() + g.tap_hold_ms())
        swipes.append(g.swipe(540, 1800, 540, 600, 300)[-1][0])
        drags.append(g.swipe(540, 1800, 540, 600, 1200)[-1][0])
        lp, cp = typing.plan(LATIN), typing.plan(CJK)
        latin.append(sum(c.delay_ms for c in lp))
        cjk.append(sum(c.delay_ms for c in cp))
        latin_n.append(len(lp))
        cjk_n.append(len(cp))
        dwell.after("no_effect")
        same.append(1000 * dwell.before("com.app"))
        dwell.after("done")
        new.append(1000 * dwell.before("com.app"))
        dwell.screen_read(400)
        dwell.after("done")
        careful.append(1000 * dwell.before("com.bank"))
        dwell.screen_read(0)
    return [
        f"pace = {pace}",
        f"  {'(ms unless said)':<30} {'min':>8} {'median':>8} {'p95':>8} {'max':>8}",
        _row("tap: pre-touch + hold", taps),
        _row("swipe 300 ms: duration", swipes),
        _row("drag 1200 ms: duration", drags),
        _row(f"type Latin ({len(LATIN)} chars)", latin),
        _row("  chunks (count)", latin_n),
        _row(f"type CJK ({len(CJK)} chars)", cjk),
        _row("  chunks (count)", cjk_n),
        _row("dwell, same screen", same),
        _row("dwell, new screen", new),
        _row("dwell, careful app, 400 chars", careful),
    ]


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    print(f"pace timings, {rounds} decisions each")
    for pace in ("fast", "standard", "human"):
        print("\n".join(bench(pace, rounds)))


if __name__ == "__main__":
    main()
