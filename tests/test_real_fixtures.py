"""The bundled real fixtures are what their manifest says, each with its source's licence,
and a fixture that is neither bundled nor in MIKA_REAL_FIXTURES skips with the reason (or
fails, where CI requires the whole set)."""

from __future__ import annotations

import hashlib

import pytest

from tests import real_fixtures as rf


def test_every_bundled_file_matches_its_manifest_entry_and_carries_its_licence() -> None:
    entries = rf.manifest()
    bundled = [e for e in entries if e["bundled"]]
    assert bundled, "the manifest bundles nothing"
    for e in bundled:
        data = (rf.BUNDLED / e["rel"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == e["sha256"], e["rel"]
        assert e["license"].startswith(("MIT", "Apache-2.0", "BSD")), e["rel"]
        notice = (rf.BUNDLED / e["notice"]).read_text(encoding="utf-8")
        assert "MIT License" in notice or "Apache License" in notice or "Permission is hereby granted" in notice, e[
            "notice"
        ]


def test_nothing_unlicensed_is_in_the_repo() -> None:
    on_disk = {str(p.relative_to(rf.BUNDLED)) for p in rf.BUNDLED.rglob("*") if p.is_file()}
    listed = {e["rel"] for e in rf.manifest() if e["bundled"]}
    paperwork = {"PROVENANCE.md", "provenance.json"} | {e["notice"] for e in rf.manifest() if e["bundled"]}
    assert on_disk - paperwork == listed
    for e in rf.manifest():
        if not e["bundled"]:
            assert not (rf.BUNDLED / e["rel"]).exists(), e["rel"]
            assert not e["license"].startswith(("MIT", "Apache-2.0", "BSD")), e["rel"]


def test_a_shared_only_fixture_skips_naming_the_file_and_the_folder(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(rf.ENV, str(tmp_path))
    monkeypatch.delenv(rf.REQUIRE_ENV, raising=False)
    rel = next(e["rel"] for e in rf.manifest() if not e["bundled"])
    with pytest.raises(pytest.skip.Exception) as info:
        rf.real(rel)
    assert rel in str(info.value) and str(tmp_path) in str(info.value) and "MIKA_REAL_FIXTURES" in str(info.value)
    # The bundled ones never depend on that folder.
    bundled = next(e["rel"] for e in rf.manifest() if e["bundled"])
    assert rf.real(bundled) == rf.BUNDLED / bundled


def test_ci_turns_the_skip_into_a_failure(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(rf.ENV, str(tmp_path))
    monkeypatch.setenv(rf.REQUIRE_ENV, "1")
    rel = next(e["rel"] for e in rf.manifest() if not e["bundled"])
    with pytest.raises(pytest.fail.Exception):
        rf.real(rel)


def test_a_file_the_shared_folder_holds_is_read_from_there(tmp_path, monkeypatch) -> None:
    rel = next(e["rel"] for e in rf.manifest() if not e["bundled"])
    (tmp_path / rel).parent.mkdir(parents=True)
    (tmp_path / rel).write_bytes(b"x")
    (tmp_path / "ui_dumps" / "new_capture.xml").parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "ui_dumps" / "new_capture.xml").write_bytes(b"<hierarchy/>")
    monkeypatch.setenv(rf.ENV, str(tmp_path))
    assert rf.real_bytes(rel) == b"x"
    assert "ui_dumps/new_capture.xml" in rf.listing("ui_dumps", ".xml")
