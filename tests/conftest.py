from collections.abc import Iterator

import pytest

from mika.config.language import set_language

pytest_plugins = ["tests.bytecode", "tests.adb_env", "tests.import_guard", "tests.adversarial.report", "pytester"]


@pytest.fixture(autouse=True)
def _language_set_by_a_test_is_forgotten() -> Iterator[None]:
    # `set_language` is process-wide (a face calls it once at start); a command a test
    # invokes may set it from its config, and the next test must not inherit that.
    yield
    set_language(None)


@pytest.fixture(autouse=True)
def _runs_act_at_fast_pace(monkeypatch: pytest.MonkeyPatch) -> None:
    # Runs built by the assembly would dwell 0.5–2 s before each phone action under the
    # default `standard` pace; the suite acts at once (seed: evaluations default to fast).
    # Tests of the pace itself delete this.
    monkeypatch.setenv("MIKA_RUN_PACE", "fast")


@pytest.fixture(autouse=True)
def _no_user_knowledge(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    # The user's own knowledge and skills ($XDG_DATA_HOME/mika/…) win over the shipped
    # ones; a developer's personal files must not change what a test's run is told.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.getbasetemp() / "xdg-data"))
    monkeypatch.delenv("MIKA_DATA_DIR", raising=False)
