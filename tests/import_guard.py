"""A skip because one of our own modules did not import is a failure, not a skip.

`pytest.importorskip("mika.…")`, `except ImportError: pytest.skip(…)` and the like once
let a half-built tree look green: the tests that would have caught the break were
skipped. Mika, mika_tui and the tests are all in this repository, so if one of them
does not import, the build is broken and the run must say so. Skips for anything else
(a third-party extra, a platform) stay skips.

Loaded from tests/conftest.py (`pytest_plugins`); tests/test_import_guard.py proves it.
"""

from __future__ import annotations

import re

import pytest

OWN_PACKAGES = ("mika", "mika_tui", "tests")
_IMPORT_WORDS = re.compile(r"ImportError|ModuleNotFoundError|could not import|No module named|cannot import name")
_OWN_NAME = re.compile(r"""['"](?:{})(?:\.[\w.]+)?['"]""".format("|".join(OWN_PACKAGES)))


def names_own_import(reason: str) -> bool:
    """True when a skip's reason is an import of one of our own packages failing."""
    return bool(_IMPORT_WORDS.search(reason) and _OWN_NAME.search(reason))


def _skip_reason(report: pytest.CollectReport | pytest.TestReport) -> str:
    if not report.skipped or hasattr(report, "wasxfail"):
        return ""
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr or "")


def _as_failure(report: pytest.CollectReport | pytest.TestReport, reason: str) -> None:
    report.outcome = "failed"
    report.longrepr = (
        f"Skipped because one of our own modules did not import: {reason}\n"
        "A module of mika, mika_tui or tests that does not import is a broken build, not a "
        "reason to skip: fix the import (tests/import_guard.py)."
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    report = outcome.get_result()
    reason = _skip_reason(report)
    if reason and names_own_import(reason):
        _as_failure(report, reason)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):  # type: ignore[no-untyped-def]
    outcome = yield
    report = outcome.get_result()
    reason = _skip_reason(report)
    if reason and names_own_import(reason):
        _as_failure(report, reason)
