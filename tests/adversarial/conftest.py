"""The adversarial payment suite: every route a model could take to the shop's checkout.

Each test tells the `ledger` what it tried and what happened; the terminal summary prints
one row per route (attempts, refusals, payment pages reached) so a reader sees the count,
not just "passed".
"""

from __future__ import annotations

import pytest

from tests.adversarial.report import KEY, Row


@pytest.fixture
def ledger(request: pytest.FixtureRequest):
    def note(route: str, attempts: int, refusals: int, reached: int, codes: list[str]) -> None:
        row = Row(route, attempts, refusals, reached, ", ".join(sorted(set(codes))))
        request.node.user_properties.append((KEY, row.__dict__))

    return note
