"""`mika eval` end to end on a small mixed subset (one task of each expected outcome:
done, answer, handoff, not_done), each task on its own simulated phone process through
the real adb server: the reference solutions score 100%; the built-in lazy policy (answers
"Done." at once) scores exactly what it should, task by task; shards are disjoint and
merge back into the whole; compare names what changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mika.eval.suite import Shard, load_suite
from tests.eval.evalrun import MIXED, mika, run_eval

pytestmark = pytest.mark.usefixtures("adb_server")


@pytest.fixture(scope="module")
def reference(tmp_path_factory, adb_server):
    return run_eval(tmp_path_factory.mktemp("ref"), "--suite", str(MIXED), "--model", "reference", "--parallel", "2")


@pytest.fixture(scope="module")
def lazy_shards(tmp_path_factory, adb_server):
    base = tmp_path_factory.mktemp("lazy")
    return [
        run_eval(base / f"s{i}", "--suite", str(MIXED), "--model", "lazy", "--shard", f"{i}/2", "--parallel", "2")
        for i in (1, 2)
    ]


def test_the_reference_solutions_score_100_percent_on_every_kind_of_task(reference):
    assert reference.code == 0, reference.stderr
    report = reference.report
    assert report["schema"] == "mika-eval-report" and report["version"] == 1
    rows = reference.rows()
    assert {r["expect"] for r in rows.values()} == {"done", "answer", "handoff", "not_done"}
    for task, row in rows.items():
        assert row["passed"], (task, row["category"], row["detail"])
        assert row["category"] == "" and row["check_passed"] is True
        assert row["steps"] >= 1 and row["tokens"]["input"] > 0 and row["wall_s"] > 0
        assert row["first_feedback_s"] is not None and row["first_feedback_s"] >= 0
        record = reference.folder / row["record"]
        assert (record / "events.jsonl").is_file(), record
    assert rows["eval_whatsapp_missing"]["outcome"] == "not_done"
    assert rows["login_until_captcha"]["subtype"] == "captcha_incomplete"
    assert "out for delivery" in rows["market_order_status_pillow"]["answer"].lower()
    assert report["summary"]["pass_rate"] == 1.0
    assert "pass rate 100%: 4/4 passed" in reference.stdout
    for name in ("report.json", "report.md", "report.html"):
        assert (reference.folder / name).is_file()


def test_the_lazy_policy_scores_what_it_should_task_by_task(lazy_shards):
    rows = {t: r for shard in lazy_shards for t, r in shard.rows().items()}
    assert all(s.code == 0 for s in lazy_shards)
    # "Done." at once: the outcome is an answer, so tasks expecting one fail on their
    # check; the handoff and the impossible task fail on their outcome.
    want = {
        "settings_wifi_off": "check_failed",
        "market_order_status_pillow": "check_failed",  # "Done." is not the order's status
        "login_until_captcha": "wrong_outcome",
        "eval_whatsapp_missing": "wrong_outcome",
    }
    assert {t: r["category"] for t, r in rows.items()} == want
    assert not any(r["passed"] for r in rows.values())
    assert rows["eval_whatsapp_missing"]["check_passed"] is True  # nothing sent: only the outcome is wrong


def test_shards_split_the_suite_deterministically_into_disjoint_parts():
    tasks = load_suite(str(MIXED))
    parts = [Shard(i, 3).take(tasks) for i in (1, 2, 3)]
    ids = [t.id for part in parts for t in part]
    assert sorted(ids) == sorted(t.id for t in tasks) and len(ids) == len(set(ids))
    assert [t.id for t in Shard(1, 3).take(list(reversed(tasks)))] == list(reversed([t.id for t in parts[0]]))


def test_merge_joins_the_shards_and_compare_names_each_change(lazy_shards, reference, tmp_path):
    merged = tmp_path / "merged"
    code, out, err = mika("eval", "merge", *(str(s.folder) for s in lazy_shards), "--report", str(merged))
    assert code == 0, err
    report = json.loads((merged / "report.json").read_text())
    assert sorted(r["task"] for r in report["rows"]) == sorted(reference.rows())
    assert report["summary"]["passed"] == 0 and report["summary"]["scored"] == 4
    for row in report["rows"]:  # links re-based on the merged folder
        assert (merged / row["record"] / "events.jsonl").is_file()

    code, out, err = mika("eval", "compare", str(reference.folder), str(merged))
    assert code == 0, err
    lines = [line for line in out.splitlines() if "pass→fail" in line]
    assert sorted(line.split()[0] for line in lines) == sorted(reference.rows())
    assert "tokens" in lines[0] and "steps" in lines[0]

    code, out, _ = mika("eval", "compare", str(reference.folder), str(merged), "--json")
    diffs = json.loads(out)
    assert {d["change"] for d in diffs} == {"pass→fail"}

    # The same shard twice is refused: its numbers would count double.
    code, _, err = mika(
        "eval", "merge", str(lazy_shards[0].folder), str(lazy_shards[0].folder), "--report", str(tmp_path / "x")
    )
    assert code == 2 and "merge the shards of one suite, each once" in err
    # Two models are not one report.
    code, _, err = mika(
        "eval", "merge", str(reference.folder), str(lazy_shards[0].folder), "--report", str(tmp_path / "y")
    )
    assert code == 2 and "different models" in err


def test_a_task_without_a_reference_solution_is_reported_no_solution(tmp_path):
    task = json.loads(MIXED.read_text())[0]
    task = {**task, "id": "wifi_unsolved", "solution": []}
    suite = tmp_path / "unsolved.json"
    suite.write_text(json.dumps([task]))
    run = run_eval(tmp_path, "--suite", str(suite), "--model", "reference", "--json")
    assert run.code == 0, run.stderr
    row = run.rows()["wifi_unsolved"]
    assert row["category"] == "no_solution" and not row["passed"] and row["steps"] == 0
    summary = json.loads(run.stdout)["summary"]
    assert summary["no_solution"] == 1 and summary["scored"] == 0 and summary["pass_rate"] is None


@pytest.mark.slow
def test_every_shipped_task_with_a_solution_passes_with_its_reference(tmp_path):
    run = run_eval(tmp_path, "--suite", "all", "--model", "reference", "--parallel", "2")
    assert run.code == 0, run.stderr
    failed = {
        t: (r["category"], r["detail"][:300]) for t, r in run.rows().items() if r["category"] not in ("", "no_solution")
    }
    assert failed == {}
    assert Path(run.folder / "report.html").is_file()
