"""`mika eval` end to end on a small mixed subset (one task of each expected outcome:
done, answer, handoff, not_done), each task on its own simulated phone process through
the real adb server: the reference solutions score 100%; the built-in lazy policy (answers
"Done." at once) scores exactly what it should, task by task; shards are disjoint and
merge back into the whole; compare names what changed."""

from __future__ import annotations

import json
import os
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


# The shipped tasks whose reference solution needs a person present (a stand-in person
# plays it in tests/sim_world/test_reference_solutions.py): mika eval's runs are
# unattended, so these are reported needs_person and not scored. lab_checkout_behind_tips
# is one since its payment step can be released: only by a person's consent.
NEEDS_PERSON = {"settings_dnd_locked", "shop_buy_green_tea", "login_until_captcha", "lab_checkout_behind_tips"}


@pytest.mark.slow
@pytest.mark.timeout(3600)  # ~130 task runs, each its own phone and run process: minutes, not the default 300 s
def test_every_shipped_task_with_a_solution_passes_with_its_reference(tmp_path):
    from mika.eval.scoring import NOT_RUN

    run = run_eval(tmp_path, "--suite", "all", "--model", "reference", "--parallel", "2")
    assert run.code == 0, run.stderr
    rows = run.rows()
    failed = {t: (r["category"], r["detail"][:300]) for t, r in rows.items() if r["category"] not in ("", *NOT_RUN)}
    assert failed == {}, failed
    summary = run.report["summary"]
    assert summary["pass_rate"] == 1.0 and summary["passed"] == summary["scored"] == len(rows) - len(NEEDS_PERSON)
    not_run = {t: r["category"] for t, r in rows.items() if r["category"] in NOT_RUN}
    assert not_run == dict.fromkeys(NEEDS_PERSON, "needs_person"), not_run  # every shipped task has a solution
    assert summary["not_scored"] == {"needs_person": sorted(NEEDS_PERSON)}
    assert f"{len(NEEDS_PERSON)} not scored (0 without a solution, {len(NEEDS_PERSON)} needing a person" in run.stdout
    assert Path(run.folder / "report.html").is_file()


@pytest.fixture(scope="module")
def chromium():
    from tests.web.conftest import find_chromium

    path = find_chromium()
    if path is None:
        if os.environ.get("MIKA_REQUIRE_BROWSER") == "1":
            pytest.fail("MIKA_REQUIRE_BROWSER=1 but no Chromium is installed (apt-get install chromium)")
        pytest.skip("no Chromium on this machine (install Debian's chromium to run this test)")
    return path


async def test_the_html_report_renders_in_chromium_with_a_row_per_task_and_working_links(reference, chromium):
    from playwright.async_api import async_playwright

    from tests.web.conftest import CHROMIUM_ARGS

    page_url = (reference.folder / "report.html").as_uri()
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=chromium, args=list(CHROMIUM_ARGS))
        try:
            page = await browser.new_page()
            requests: list[str] = []
            page.on("request", lambda r: requests.append(r.url))
            await page.goto(page_url)
            assert await page.title() == f"mika eval: {MIXED} with reference"
            assert (await page.inner_text("#pass-rate")) == "100%"
            headers = await page.eval_on_selector_all("#runs thead th", "els => els.map(e => e.textContent)")
            assert headers[:4] == ["task", "run", "expect", "result"]
            rows = await page.query_selector_all("#runs tbody tr")
            assert len(rows) == 4
            cells = await page.eval_on_selector_all(
                "#runs tbody tr", "rows => rows.map(r => [r.dataset.task, r.querySelector('.result').textContent])"
            )
            assert sorted(cells) == sorted([t, "pass"] for t in reference.rows())
            # Every record link leads to that run's record folder.
            hrefs = await page.eval_on_selector_all("a.record", "as => as.map(a => a.href)")
            assert len(hrefs) == 4
            for href in hrefs:
                assert href.startswith("file://") and Path(href[len("file://") :]).joinpath("events.jsonl").is_file()
            # The chart: one pass bar per task, full width at 100%.
            bars = await page.eval_on_selector_all("svg rect.pass-bar", "bs => bs.map(b => b.getAttribute('width'))")
            assert bars == ["200"] * 4
            assert requests == [page_url]  # no external assets, nothing fetched
        finally:
            await browser.close()


async def test_untrusted_text_in_a_report_stays_text_in_the_page(tmp_path, chromium):
    from playwright.async_api import async_playwright

    from mika.eval.report import build_report, write_report
    from tests.web.conftest import CHROMIUM_ARGS

    row = {
        "task": "evil",
        "repeat": 1,
        "goal": "<b>x</b>",
        "expect": "done",
        "passed": False,
        "category": "check_failed",
        "outcome": "answered",
        "subtype": "",
        "steps": 1,
        "tokens": {"input": 1, "output": 1, "cached": 0},
        "wall_s": 1.0,
        "first_feedback_s": None,
        "detail": '</td></tr></table><script>document.title="owned"</script><img src=x onerror="document.title=1">',
        "record": "",
        "run_dir": "",
    }
    write_report(build_report([row], suite="<i>s</i>", model="m"), tmp_path)
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=chromium, args=list(CHROMIUM_ARGS))
        try:
            page = await browser.new_page()
            await page.goto((tmp_path / "report.html").as_uri())
            assert await page.title() == "mika eval: <i>s</i> with m"
            assert await page.query_selector_all("script, img, i") == []
            assert "<script>" in await page.inner_text("#runs tbody td.detail")
        finally:
            await browser.close()


def test_repeat_runs_each_task_k_times_on_fresh_phones(tmp_path):
    run = run_eval(tmp_path, "--suite", str(MIXED), "--tasks", "eval_whatsapp_missing", "--repeat", "2", "--json")
    assert run.code == 0, run.stderr
    rows = run.report["rows"]
    assert [(r["task"], r["repeat"]) for r in rows] == [("eval_whatsapp_missing", 1), ("eval_whatsapp_missing", 2)]
    assert [r["run_dir"] for r in rows] == ["runs/eval_whatsapp_missing.r1", "runs/eval_whatsapp_missing.r2"]
    assert all(r["passed"] for r in rows)
    assert rows[0]["record"] != rows[1]["record"]
    per_task = json.loads(run.stdout)["summary"]["per_task"]["eval_whatsapp_missing"]
    assert per_task["runs"] == 2 and per_task["pass_rate"] == 1.0


def test_one_model_script_for_every_task_is_found_by_a_relative_path(tmp_path, monkeypatch):
    wifi = json.loads(MIXED.read_text())[0]
    (tmp_path / "wifi.json").write_text(json.dumps(wifi["solution"]))
    monkeypatch.chdir(tmp_path)
    run = run_eval(tmp_path, "--suite", str(MIXED), "--tasks", "settings_wifi_off", "--model", "script:wifi.json")
    assert run.code == 0, run.stderr
    row = run.rows()["settings_wifi_off"]
    assert row["passed"], row["detail"]
    assert run.report["model"] == "script:wifi.json"
