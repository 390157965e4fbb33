"""The adversarial suite's table: attempts, refusals and payment pages reached, per route.

A plugin named in tests/conftest.py rather than a hook in tests/adversarial/conftest.py:
under pytest-xdist the controller process collects nothing, so a folder's conftest never
loads there, and the summary would silently not print. The rows travel on each test's
report (`user_properties`, set by the `ledger` fixture).
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


KEY = "payment_route"


def _rows(terminalreporter) -> list[Row]:
    rows = []
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", "") != "call":
                continue
            rows += [Row(**value) for key, value in getattr(report, "user_properties", ()) if key == KEY]
    return sorted(rows, key=lambda r: r.route)


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    rows = _rows(terminalreporter)
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
