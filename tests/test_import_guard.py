"""tests/import_guard.py: a skip because one of our own modules did not import fails the
run; other skips stay skips. Run through pytest itself (pytester) on small test files."""

from __future__ import annotations

import pytest

from tests.import_guard import names_own_import

# The guard module is already imported (this run uses it), so the inner run can't rewrite it.
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestAssertRewriteWarning")


def _run(pytester: pytest.Pytester, source: str) -> pytest.RunResult:
    # The snapshot plugin cleans a temp dir of its own at session end: not for an inner run.
    pytester.makepyfile(test_sample=source)
    return pytester.runpytest_inprocess(
        "-p",
        "tests.import_guard",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:textual-snapshot",
        "-p",
        "no:xdist",
        "-p",
        "no:asyncio",
        "-q",
    )


def test_a_module_level_importorskip_of_ours_fails_collection(pytester: pytest.Pytester) -> None:
    result = _run(
        pytester,
        """
import pytest
pytest.importorskip("mika.no_such_module")

def test_never_runs():
    assert True
""",
    )
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*Skipped because one of our own modules did not import*mika.no_such_module*"])


@pytest.mark.parametrize("module", ["mika_tui.no_such_screen", "tests.no_such_helper", "mika.sim.nowhere"])
def test_an_importorskip_of_ours_inside_a_test_fails_it(pytester: pytest.Pytester, module: str) -> None:
    result = _run(
        pytester,
        f"""
import pytest

def test_needs_it():
    pytest.importorskip({module!r})
""",
    )
    result.assert_outcomes(failed=1)


def test_an_except_importerror_skip_of_ours_fails(pytester: pytest.Pytester) -> None:
    result = _run(
        pytester,
        """
import pytest

def test_fallback():
    try:
        from mika.cap.phone.adb import no_such_name  # noqa: F401
    except ImportError as exc:
        pytest.skip(f"ImportError: {exc}")
""",
    )
    result.assert_outcomes(failed=1)


def test_other_skips_stay_skips(pytester: pytest.Pytester) -> None:
    result = _run(
        pytester,
        """
import pytest

def test_third_party_extra():
    pytest.importorskip("no_such_third_party_package_xyz")

def test_platform():
    pytest.skip("needs a GPU")

@pytest.mark.xfail(reason="ImportError in 'mika.x' is expected here", strict=True)
def test_expected_failure():
    raise ImportError("No module named 'mika.x'")
""",
    )
    result.assert_outcomes(skipped=2, xfailed=1)


def test_the_reason_matcher() -> None:
    assert names_own_import("could not import 'mika.cap.phone.adb.parse': No module named 'mika.cap.phone.adb'")
    assert names_own_import("ImportError: cannot import name 'X' from 'mika_tui.app' (/x/app.py)")
    assert names_own_import("ModuleNotFoundError: No module named 'tests.sim_wire'")
    assert not names_own_import("could not import 'textual_image': No module named 'textual_image'")
    assert not names_own_import("could not import 'mikado': No module named 'mikado'")
    assert not names_own_import("the phone is not connected: 'mika.sim' said no")
