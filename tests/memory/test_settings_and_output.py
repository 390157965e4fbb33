"""[memory] settings reach the runs through the assembly; the MemoryRemembered event is
recorded and shown by headless output."""

from __future__ import annotations

import json

import pytest

from mika.assembly.assembly import run_options
from mika.assembly.models import SelectedModels
from mika.config.errors import ConfigError
from mika.config.settings import parse_settings
from mika.headless import _progress_line
from mika.model.testing import FunctionModel
from mika.record.events import EVENT_TYPES, MemoryRemembered


def _models(scripted: bool) -> SelectedModels:
    # Real test models (mika.model.testing): selecting a provider needs the network.
    main = FunctionModel(lambda r: "ok")
    return SelectedModels(main, None if scripted else FunctionModel(lambda r: "ok"), None, lambda: None, scripted)


def test_defaults_are_on_and_reach_the_run(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("MIKA_MEMORY_USE", raising=False)
    monkeypatch.delenv("MIKA_MEMORY_AUTO_EXTRACT", raising=False)
    s = parse_settings({})
    assert s.memory_use and s.memory_auto_extract and not s.warnings
    opts = run_options(s, _models(False), tmp_path)
    assert opts.memory is not None and opts.memory.path == tmp_path / "memory.jsonl" and opts.memory_extract
    # A scripted model's replies are the run's: no extraction side call.
    assert not run_options(s, _models(True), tmp_path).memory_extract


def test_off_in_the_file_and_by_environment(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("MIKA_MEMORY_USE", raising=False)
    monkeypatch.delenv("MIKA_MEMORY_AUTO_EXTRACT", raising=False)
    s = parse_settings({"memory": {"use": False}})
    opts = run_options(s, _models(False), tmp_path)
    assert opts.memory is None and not opts.memory_extract
    s = parse_settings({"memory": {"auto_extract": False}})
    assert not run_options(s, _models(False), tmp_path).memory_extract
    monkeypatch.setenv("MIKA_MEMORY_USE", "0")
    assert not parse_settings({"memory": {"use": True}}).memory_use
    monkeypatch.setenv("MIKA_MEMORY_AUTO_EXTRACT", "off")
    assert not parse_settings({}).memory_auto_extract
    monkeypatch.setenv("MIKA_MEMORY_USE", "maybe")
    with pytest.raises(ConfigError, match="MIKA_MEMORY_USE"):
        parse_settings({})


def test_bad_values_and_typos_are_named(monkeypatch) -> None:
    monkeypatch.delenv("MIKA_MEMORY_USE", raising=False)
    with pytest.raises(ConfigError, match=r"memory\.use"):
        parse_settings({"memory": {"use": "yes"}})
    s = parse_settings({"memory": {"auto_extrct": True}})
    assert any("auto_extract" in w for w in s.warnings)


def test_the_event_is_a_record_line_and_a_headless_line(monkeypatch) -> None:
    monkeypatch.setenv("MIKA_LANGUAGE", "en")
    event = MemoryRemembered(
        run_id="r1",
        conversation_id="c1",
        items=(
            {"id": "m-1a2b3c", "kind": "fact", "text": "always takes the 7:30 train", "status": "active"},
            {"id": "m-4d5e6f", "kind": "procedure", "text": "book trains in 12306", "status": "pending"},
        ),
    )
    assert EVENT_TYPES["memory_remembered"] is MemoryRemembered
    row = json.loads(json.dumps(event.to_dict()))
    assert row["type"] == "memory_remembered" and row["items"][0]["id"] == "m-1a2b3c"
    line = _progress_line(event)
    assert "mika memory forget m-1a2b3c" in line and "mika memory approve m-4d5e6f" in line
