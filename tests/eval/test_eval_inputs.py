"""Bad input to `mika eval` is one clear line and exit 2, never a traceback, and nothing
is started: unknown suite or task, a broken suite file (each way a task can be wrong),
a bad shard, a bad model, a report folder that is not a report."""

from __future__ import annotations

import json

import pytest

from mika.eval.scoring import outcome_matches, score
from mika.eval.suite import Shard, SuiteError
from mika.sim.tasks import parse_task
from tests.eval.evalrun import MIXED, mika

GOOD = json.loads(MIXED.read_text())[0]


def eval_args(tmp_path, *args):
    return mika("eval", *args, "--report", str(tmp_path / "r"))


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--suite", "nonsense"], "no suite 'nonsense': give one of all, core"),
        (["--suite", "tag:no-such-tag"], "no shipped task has the tag 'no-such-tag'"),
        (["--tasks", "settings_wifi_off,nope_task"], "no task 'nope_task' in this suite"),
        (["--shard", "0/2"], "--shard '0/2': I must be between 1 and N"),
        (["--shard", "3/2"], "--shard '3/2': I must be between 1 and N"),
        (["--shard", "half"], "--shard 'half': give I/N"),
        (["--model", "gpt"], "--model 'gpt': give reference, lazy, script:PATH or PROVIDER/MODEL"),
        (["--model", "script:/no/such/script.json"], "no model script at /no/such/script.json"),
    ],
)
def test_bad_arguments_exit_2_with_one_clear_line(tmp_path, args, says):
    code, out, err = eval_args(tmp_path, *args)
    assert code == 2
    assert says in err, err
    assert "Traceback" not in err and out == ""
    assert not (tmp_path / "r").exists()  # nothing ran


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("{not json", "is not valid JSON"),
        ("[]", "must be a non-empty JSON list of tasks"),
        (json.dumps([{**GOOD, "check": None}]), "(settings_wifi_off): 'check' must be an object"),
        (json.dumps([{**GOOD, "expect": "maybe"}]), "'expect' must be one of done, handoff, answer, not_done"),
        (json.dumps([{k: v for k, v in GOOD.items() if k != "goal"}]), "'goal' must be a non-empty string"),
        (json.dumps([{**GOOD, "setup": "simctl reset"}]), "'setup' must be a list of strings"),
        (json.dumps([{**GOOD, "solution": "tap it"}]), "'solution' must be a list of model replies"),
        (json.dumps([GOOD, GOOD]), "the id 'settings_wifi_off' is used twice"),
        (json.dumps(["a task"]), "a task is a JSON object, not str"),
    ],
)
def test_a_broken_suite_file_is_named_with_the_task_and_field(tmp_path, content, says):
    suite = tmp_path / "suite.json"
    suite.write_text(content)
    code, _, err = eval_args(tmp_path, "--suite", str(suite))
    assert code == 2 and says in err, err
    assert "suite.json" in err and "Traceback" not in err


def test_a_missing_suite_file_is_named(tmp_path):
    code, _, err = eval_args(tmp_path, "--suite", str(tmp_path / "gone.json"))
    assert code == 2 and "gone.json does not exist" in err


def test_merge_and_compare_refuse_what_is_not_a_report(tmp_path):
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "report.json").write_text('{"schema": "other"}')
    code, _, err = mika("eval", "compare", str(tmp_path / "junk"), str(tmp_path / "none"))
    assert code == 2 and "is not a `mika eval` report" in err
    code, _, err = mika("eval", "merge", str(tmp_path / "none"), "--report", str(tmp_path / "o"))
    assert code == 2 and "no eval report at" in err
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "report.json").write_text('{"schema": "mika-eval-report", "version": 99, "rows": []}')
    code, _, err = mika("eval", "compare", str(tmp_path / "old"), str(tmp_path / "old"))
    assert code == 2 and "version 99" in err


def test_shard_parse_rejects_nonsense():
    assert Shard.parse("2/5") == Shard(2, 5)
    for bad in ("1/0", "/3", "1-3", "a/b"):
        with pytest.raises(SuiteError):
            Shard.parse(bad)


# -- scoring: check AND expected outcome ---------------------------------------------------


def test_each_expected_outcome_accepts_exactly_its_endings():
    assert outcome_matches("done", "answered", "", False)
    assert not outcome_matches("done", "not_done", "blocked", False)
    # A run that answered "done" after a refused payment step did not do it.
    assert not outcome_matches("done", "answered", "", True)
    assert outcome_matches("handoff", "answered", "", True)  # the payment step was held back
    assert outcome_matches("handoff", "not_done", "captcha_incomplete", False)
    assert outcome_matches("handoff", "approval_refused", "", False)
    assert not outcome_matches("handoff", "answered", "", False)  # claimed, nothing handed over
    assert not outcome_matches("handoff", "not_done", "route_failed", False)
    assert outcome_matches("not_done", "not_done", "blocked", False)
    assert not outcome_matches("not_done", "answered", "", False)


def test_failure_categories_come_in_order():
    task = parse_task(GOOD)
    off, on = {"settings": {"wifi": False}}, {"settings": {"wifi": True}}
    kinds = frozenset({"auth", "network"})
    assert score(task, {"outcome": "answered"}, off, kinds).passed
    assert score(task, {"outcome": "answered"}, on, kinds).category == "check_failed"
    assert score(task, {"outcome": "not_done", "subtype": "blocked"}, off, kinds).category == "wrong_outcome"
    assert score(task, {"outcome": "failed", "subtype": "script_mismatch"}, off, kinds).category == "script_mismatch"
    assert score(task, {"outcome": "failed", "subtype": "auth"}, off, kinds).category == "model_error"
    assert score(task, {"outcome": "failed", "subtype": "guard_loop"}, off, kinds).category == "run_failed"
    assert score(task, {"outcome": "budget_exhausted"}, off, kinds).category == "budget"
    assert score(task, {"outcome": "device_unavailable"}, off, kinds).category == "device_error"
    assert score(task, {"outcome": "answered"}, None, kinds).category == "device_error"  # state unreadable


def test_an_answer_task_is_scored_on_the_answer_not_on_a_claim_in_the_state():
    task = parse_task(
        {"id": "q", "goal": "price?", "expect": "answer", "check": {"path": "answer", "contains": "137.5"}}
    )
    assert score(task, {"outcome": "answered", "answer": "It costs ¥137.50."}, {}, frozenset()).passed
    assert (
        score(task, {"outcome": "answered", "answer": "Done."}, {"answer": "137.5"}, frozenset()).category
        == "check_failed"
    )


def test_the_summary_speaks_chinese(tmp_path, monkeypatch):
    monkeypatch.setenv("MIKA_LANGUAGE", "zh")
    suite = tmp_path / "unsolved.json"
    suite.write_text(json.dumps([{**GOOD, "solution": []}]))
    code, out, err = eval_args(tmp_path, "--suite", str(suite))
    assert code == 0, err
    assert out.startswith("通过率 –：0 次中通过 0 次；1 个未计分（1 个没有参考解，0 个需要有人在场") and "报告：" in out
    assert "未计分，no_solution：" in out
    assert "个任务" in err


def test_a_reference_written_for_a_person_present_is_reported_needs_person_not_run(tmp_path):
    hand = {"tool_calls": [{"name": "hand_to_user", "arguments": {"reason": "captcha", "message": "solve it"}}]}
    suite = tmp_path / "attended.json"
    suite.write_text(json.dumps([{**GOOD, "id": "needs_you", "solution": [hand, "done"]}]))
    code, out, err = eval_args(tmp_path, "--suite", str(suite), "--json")
    assert code == 0, err
    report = json.loads(out)
    row = report["rows"][0]
    assert row["category"] == "needs_person" and "hand_to_user" in row["detail"] and row["steps"] == 0
    assert report["summary"]["needs_person"] == 1 and report["summary"]["scored"] == 0
    assert report["summary"]["not_scored"] == {"needs_person": ["needs_you"]}
    assert report["summary"]["categories"] == {}  # not run is no failure
    assert not (tmp_path / "r" / "runs" / "needs_you" / "state").exists()  # no phone, no run


def test_the_summary_says_how_many_were_not_scored_and_why(tmp_path):
    hand = {"tool_calls": [{"name": "hand_to_user", "arguments": {"reason": "captcha", "message": "solve it"}}]}
    suite = tmp_path / "mixed.json"
    suite.write_text(
        json.dumps(
            [{**GOOD, "id": "needs_you", "solution": [hand, "done"]}, {**GOOD, "id": "unsolved", "solution": []}]
        )
    )
    code, out, err = eval_args(tmp_path, "--suite", str(suite))
    assert code == 0, err
    assert out.startswith(
        "pass rate –: 0/0 passed; 2 not scored (1 without a solution, 1 needing a person present, "
        "which unattended runs have not)"
    ), out
    assert "  not scored, needs_person: needs_you\n" in out and "  not scored, no_solution: unsolved\n" in out
    assert "needs_person: 1" not in out  # not listed among the failures
    md = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert "2 not scored" in md and "Not scored (needs_person): needs_you" in md
