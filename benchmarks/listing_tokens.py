"""Listing tokens vs raw XML tokens over every real UI dump.

    uv run python benchmarks/listing_tokens.py [DUMPS_DIR]

`list tok` is the listing alone; `model tok` is what a tool result carries: the same
listing with the app's part fenced as untrusted (mika.cap.phone.fenced), the ratio is
taken on it. Tokens are estimated with mika.uistate.tokens.estimate_tokens (CJK/kana/Hangul 1 per
character, other non-ASCII 1 per 2, ASCII 1 per 4). The issue's bar: the listing is at
most a quarter of the raw XML on every dump.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from mika.cap.phone.fenced import fenced_listing
from mika.uistate import build_screen, estimate_tokens, parse_hierarchy

REPO = Path(__file__).resolve().parents[1]
# The dumps bundled with the repo, and the ones only MIKA_REAL_FIXTURES (default
# ../shared/fixtures/real) may hold: the same places the tests read (tests/real_fixtures.py).
BUNDLED = REPO / "tests" / "fixtures" / "real" / "ui_dumps"
SHARED = Path(os.environ.get("MIKA_REAL_FIXTURES") or REPO.parent / "shared" / "fixtures" / "real") / "ui_dumps"


def main(argv: list[str]) -> int:
    folders = [Path(argv[1])] if len(argv) > 1 else [BUNDLED, SHARED]
    by_name = {p.name: p for folder in reversed(folders) for p in folder.glob("*.xml")}
    dumps = [by_name[name] for name in sorted(by_name)]
    if not dumps:
        print(f"no *.xml dumps in {', '.join(map(str, folders))}", file=sys.stderr)
        return 2
    rows = []
    for path in dumps:
        raw = path.read_bytes()
        start = time.perf_counter()
        screen = build_screen(parse_hierarchy(raw))
        listing = screen.listing()
        fenced = fenced_listing(screen)
        ms = (time.perf_counter() - start) * 1000
        xml_tokens = estimate_tokens(raw.decode("utf-8", errors="replace"))
        list_tokens = estimate_tokens(listing)
        model_tokens = estimate_tokens(fenced)
        rows.append(
            (
                path.stem,
                screen.tree.node_count(),
                len(screen.elements),
                xml_tokens,
                list_tokens,
                model_tokens,
                model_tokens / xml_tokens,
                ms,
            )
        )
    width = max(len(r[0]) for r in rows)
    header = f"{'dump':<{width}}  {'nodes':>5}  {'elems':>5}  {'xml tok':>7}  {'list tok':>8}  {'model tok':>9}  {'ratio':>6}  {'parse+list ms':>13}"
    print(header)
    print("-" * len(header))
    for name, nodes, elems, xt, lt, mt, ratio, ms in rows:
        print(f"{name:<{width}}  {nodes:>5}  {elems:>5}  {xt:>7}  {lt:>8}  {mt:>9}  {ratio:>6.3f}  {ms:>13.1f}")
    total_x = sum(r[3] for r in rows)
    total_l = sum(r[4] for r in rows)
    total_m = sum(r[5] for r in rows)
    worst = max(rows, key=lambda r: r[6])
    print("-" * len(header))
    print(
        f"{'total':<{width}}  {sum(r[1] for r in rows):>5}  {sum(r[2] for r in rows):>5}  {total_x:>7}  {total_l:>8}  {total_m:>9}  {total_m / total_x:>6.3f}  {sum(r[7] for r in rows):>13.1f}"
    )
    print(f"fence overhead {total_m - total_l} tokens ({(total_m - total_l) / total_l:.1%} of the listings)")
    print(f"worst ratio {worst[6]:.3f} ({worst[0]}); bar is 0.250 — {'met' if worst[6] <= 0.25 else 'NOT met'}")
    return 0 if worst[6] <= 0.25 else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
