"""Listing tokens vs raw XML tokens, and the listing's recall, over every real UI dump and
every screen of the simulated phone.

    uv run python benchmarks/listing_tokens.py [DUMPS_DIR]

`list tok` is the listing alone; `model tok` is what a tool result carries: the same
listing with the app's part fenced as untrusted (mika.cap.phone.fenced), the ratio is
taken on it against the raw XML of the same screen, measured in the same run. Tokens are
estimated with mika.uistate.tokens.estimate_tokens (CJK/kana/Hangul 1 per character, other
non-ASCII 1 per 2, ASCII 1 per 4).

`recall` is mika.uistate.recall: of the controls the XML names (clickable, long-clickable,
editable, scrollable or checkable, on screen, with a text or content-desc), how many have
their own line in the listing — counted, so two "OK" buttons need two lines.

The bars (issue 16): on every screen the listing is at most 0.15 of the raw XML, and
recall is 1.0 on every screen. The exit status is 0 only when both hold.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from mika.cap.phone.fenced import fenced_listing
from mika.uistate import build_screen, estimate_tokens, parse_hierarchy
from mika.uistate.recall import listing_recall

REPO = Path(__file__).resolve().parents[1]
# The dumps bundled with the repo, and the ones only MIKA_REAL_FIXTURES (default
# ../shared/fixtures/real) may hold: the same places the tests read (tests/real_fixtures.py).
BUNDLED = REPO / "tests" / "fixtures" / "real" / "ui_dumps"
SHARED = Path(os.environ.get("MIKA_REAL_FIXTURES") or REPO.parent / "shared" / "fixtures" / "real") / "ui_dumps"
BAR = 0.15
SIM_SIZE = (1080, 2400)


def real_dumps(folders: list[Path]) -> Iterator[tuple[str, bytes, tuple[int, int] | None]]:
    by_name = {p.name: p for folder in reversed(folders) for p in folder.glob("*.xml")}
    for name in sorted(by_name):
        yield by_name[name].stem, by_name[name].read_bytes(), None


def sim_dumps() -> Iterator[tuple[str, bytes, tuple[int, int] | None]]:
    """Every screen of every simulated app, and every system dialog over the launcher, as
    `uiautomator dump` gives them (the same route as tests/sim_world/test_app_files.py)."""
    from mika.sim.apps.frame import build_frame
    from mika.sim.apps.registry import dialog_names, load_apps
    from mika.sim.phone import make_device
    from mika.sim.world.hierarchy import dump_plain

    for app in load_apps().values():
        for name in app.screens:
            world = make_device("bench").world
            world.launch(app.package, 0, screen=name)
            world.clock.jump(5)  # past any loading state
            yield f"sim {app.package.rsplit('.', 1)[-1]}.{name}", dump_plain(build_frame(world, 0)).encode(), SIM_SIZE
    for name in dialog_names():
        world = make_device("bench").world
        world.show_system_dialog(name)
        yield f"sim dialog {name}", dump_plain(build_frame(world, 0)).encode(), SIM_SIZE


def measure(name: str, raw: bytes, size: tuple[int, int] | None) -> tuple:
    start = time.perf_counter()
    screen = build_screen(parse_hierarchy(raw), size=size)
    listing = screen.listing()
    fenced = fenced_listing(screen)
    ms = (time.perf_counter() - start) * 1000
    recall = listing_recall(screen.tree, screen.frame, listing)
    xml_tokens = estimate_tokens(raw.decode("utf-8", errors="replace"))
    list_tokens = estimate_tokens(listing)
    model_tokens = estimate_tokens(fenced)
    return (
        name,
        screen.tree.node_count(),
        len(screen.elements),
        xml_tokens,
        list_tokens,
        model_tokens,
        model_tokens / xml_tokens,
        len(recall.owed),
        len(recall.missed),
        ms,
        recall,
    )


def table(title: str, rows: list[tuple]) -> None:
    width = max(len(title), *(len(r[0]) for r in rows))
    header = (
        f"{title:<{width}}  {'nodes':>5}  {'elems':>5}  {'xml tok':>7}  {'list tok':>8}  {'model tok':>9}"
        f"  {'ratio':>6}  {'bar':>5}  {'owed':>4}  {'recall':>6}  {'parse+list ms':>13}"
    )
    print(header)
    print("-" * len(header))
    for name, nodes, elems, xt, lt, mt, ratio, owed, missed, ms, _ in rows:
        recall = 1 - missed / owed if owed else 1.0
        print(
            f"{name:<{width}}  {nodes:>5}  {elems:>5}  {xt:>7}  {lt:>8}  {mt:>9}  {ratio:>6.3f}  {BAR:>5.2f}"
            f"  {owed:>4}  {recall:>6.3f}  {ms:>13.1f}"
        )
    total_x, total_l, total_m = (sum(r[i] for r in rows) for i in (3, 4, 5))
    owed, missed = sum(r[7] for r in rows), sum(r[8] for r in rows)
    print("-" * len(header))
    print(
        f"{'total':<{width}}  {sum(r[1] for r in rows):>5}  {sum(r[2] for r in rows):>5}  {total_x:>7}  {total_l:>8}"
        f"  {total_m:>9}  {total_m / total_x:>6.3f}  {BAR:>5.2f}  {owed:>4}  {1 - missed / max(owed, 1):>6.3f}"
        f"  {sum(r[9] for r in rows):>13.1f}"
    )
    print(f"fence overhead {total_m - total_l} tokens ({(total_m - total_l) / total_l:.1%} of the listings)\n")


def main(argv: list[str]) -> int:
    folders = [Path(argv[1])] if len(argv) > 1 else [BUNDLED, SHARED]
    real = [measure(*d) for d in real_dumps(folders)]
    if not real:
        print(f"no *.xml dumps in {', '.join(map(str, folders))}", file=sys.stderr)
        return 2
    sim = [] if len(argv) > 1 else [measure(*d) for d in sim_dumps()]
    table("real dump", real)
    if sim:
        table("simulated screen", sim)
    rows = real + sim
    worst = max(rows, key=lambda r: r[6])
    missed = [(r[0], m) for r in rows for m in r[10].missed]
    for name, m in missed:
        print(f"MISSED on {name}: {m}")
    ratio_ok, recall_ok = worst[6] <= BAR, not missed
    print(f"worst ratio {worst[6]:.3f} ({worst[0]}); bar is {BAR:.3f} — {'met' if ratio_ok else 'NOT met'}")
    print(
        f"recall {sum(len(r[10].owed) for r in rows) - len(missed)}/{sum(len(r[10].owed) for r in rows)} controls"
        f" on {len(rows)} screens — {'met' if recall_ok else 'NOT met'}"
    )
    return 0 if ratio_ok and recall_ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
