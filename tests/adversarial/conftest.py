"""The adversarial payment suite: every route a model could take to the shop's checkout.

Each test tells the `ledger` what it tried and what happened; the terminal summary prints
one row per route (attempts, refusals, payment pages reached) so a reader sees the count,
not just "passed".
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest


@dataclass
class Row:
    route: str
    attempts: int
    refusals: int
    reached: int
    codes: str


_ROWS = pytest.StashKey[list]()


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_ROWS] = []


@pytest.fixture
def ledger(request: pytest.FixtureRequest):
    rows: list[Row] = request.config.stash[_ROWS]

    def note(route: str, attempts: int, refusals: int, reached: int, codes: list[str]) -> None:
        rows.append(Row(route, attempts, refusals, reached, ", ".join(sorted(set(codes)))))

    return note


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    rows: list[Row] = config.stash.get(_ROWS, [])
    if not rows:
        return
    tr = terminalreporter
    tr.section("payment routes: attempts and refusals")
    width = max(len(r.route) for r in rows)
    tr.write_line(f"{'route'.ljust(width)}  attempts  refused  pay pages reached  refusal codes")
    for r in rows:
        tr.write_line(f"{r.route.ljust(width)}  {r.attempts:>8}  {r.refusals:>7}  {r.reached:>17}  {r.codes}")
    total = sum(r.attempts for r in rows), sum(r.refusals for r in rows), sum(r.reached for r in rows)
    tr.write_line(f"{'total'.ljust(width)}  {total[0]:>8}  {total[1]:>7}  {total[2]:>17}")
