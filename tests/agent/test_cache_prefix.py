"""The benchmark's run, as a test of structure (not of time): between the points where
the prefix may break, what was sent comes back byte-identical."""

from __future__ import annotations

from benchmarks.context_cache import STABLE_SHARE, run


async def test_the_stable_share_stays_above_ninety_percent_except_at_breaks():
    rows = await run(24_000, 40)
    assert len(rows) >= 40
    assert any("compressed" in r["note"] for r in rows), "the run should reach a compression point"
    for r in rows:
        if not r["note"]:
            assert r["stable"] >= STABLE_SHARE, f"request {r['n']}: only {r['stable']:.1%} of the previous request reused"
    steady = [r for r in rows if not r["note"]]
    assert sum(r["shared"] for r in steady) / sum(r["total"] for r in steady) >= 0.85
