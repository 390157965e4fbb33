"""An evaluation's report: report.json (versioned schema), report.md, report.html.

report.json is the source of the other two and of `mika eval merge` / `compare`:

    {"schema": "mika-eval-report", "version": 1, "suite", "model", "shard", "repeat",
     "parallel", "started_at", "wall_s", "rows": [one per task run], "summary": {...}}

A row's `record` and `run_dir` are relative to the report's folder, so a report folder
can be moved or copied as a whole and its links still work.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from mika.atomic_write import ensure_dir, write_json, write_text
from mika.eval.report_html import render_html
from mika.eval.scoring import NOT_RUN

SCHEMA = "mika-eval-report"
VERSION = 1


class ReportError(ValueError):
    """A report folder or file that cannot be read or joined; the message says why."""


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    scored = [r for r in rows if r["category"] not in NOT_RUN]
    passed = sum(1 for r in scored if r["passed"])
    # Failures of scored runs only: a task that was not run is no failure of the model.
    categories: dict[str, int] = {}
    for r in scored:
        if not r["passed"]:
            categories[r["category"]] = categories.get(r["category"], 0) + 1
    not_scored = {kind: sorted({r["task"] for r in rows if r["category"] == kind}) for kind in sorted(NOT_RUN)}
    tokens = {k: sum(r["tokens"][k] for r in rows) for k in ("input", "output", "cached")}
    return {
        "tasks": len({r["task"] for r in rows}),
        "runs": len(rows),
        "scored": len(scored),
        "passed": passed,
        "failed": len(scored) - passed,
        "not_run": len(rows) - len(scored),
        "no_solution": sum(1 for r in rows if r["category"] == "no_solution"),
        "needs_person": sum(1 for r in rows if r["category"] == "needs_person"),
        "pass_rate": round(passed / len(scored), 4) if scored else None,
        "categories": dict(sorted(categories.items())),
        # Which tasks were not scored, by why: no_solution, needs_person.
        "not_scored": {kind: ids for kind, ids in not_scored.items() if ids},
        "tokens": tokens,
        "steps": sum(r["steps"] for r in rows),
        "per_task": per_task(rows),
    }


def per_task(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per task id: runs, passes, pass rate and mean tokens (input + output) and steps."""
    out: dict[str, dict[str, Any]] = {}
    for r in rows:
        t = out.setdefault(r["task"], {"runs": 0, "passed": 0, "scored": 0, "tokens": 0, "steps": 0})
        t["runs"] += 1
        t["tokens"] += r["tokens"]["input"] + r["tokens"]["output"]
        t["steps"] += r["steps"]
        if r["category"] not in NOT_RUN:
            t["scored"] += 1
            t["passed"] += int(r["passed"])
    for t in out.values():
        t["pass_rate"] = round(t["passed"] / t["scored"], 4) if t["scored"] else None
        t["mean_tokens"] = round(t.pop("tokens") / t["runs"])
        t["mean_steps"] = round(t.pop("steps") / t["runs"], 2)
    return out


def build_report(rows: list[dict[str, Any]], **meta: Any) -> dict[str, Any]:
    return {"schema": SCHEMA, "version": VERSION, **meta, "rows": rows, "summary": summarize(rows)}


def write_report(report: dict[str, Any], folder: Path) -> None:
    ensure_dir(folder)
    write_json(folder / "report.json", report)
    write_text(folder / "report.md", render_markdown(report))
    write_text(folder / "report.html", render_html(report))


def load_report(where: Path) -> dict[str, Any]:
    """A report from its folder (or its report.json), checked against the schema."""
    path = where / "report.json" if where.is_dir() else where
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReportError(f"no eval report at {path} (give the --report folder of a `mika eval` run)") from None
    except (OSError, ValueError) as exc:
        raise ReportError(f"{path} cannot be read as an eval report: {exc}") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise ReportError(f"{path} is not a `mika eval` report (no schema {SCHEMA!r})")
    if data.get("version") != VERSION:
        raise ReportError(f"{path} is a version {data.get('version')!r} eval report; this Mika reads version {VERSION}")
    if not isinstance(data.get("rows"), list):
        raise ReportError(f"{path} has no rows")
    data["_folder"] = str(path.parent)
    return data


def merge_reports(reports: list[dict[str, Any]], out: Path) -> dict[str, Any]:
    """One report of several (the shards of one suite): rows joined, links re-based on
    `out`. Reports of different models, or two runs of the same task and repeat, are
    refused: the merged numbers would mean nothing."""
    if not reports:
        raise ReportError("give at least one report folder to merge")
    models = {r.get("model") for r in reports}
    if len(models) > 1:
        raise ReportError(
            f"these reports are of different models ({', '.join(sorted(map(str, models)))}); "
            "use `mika eval compare A B` to set two models side by side"
        )
    rows: list[dict[str, Any]] = []
    seen: dict[tuple[str, int], str] = {}
    for report in reports:
        folder = Path(report["_folder"])
        for row in report["rows"]:
            key = (row["task"], row["repeat"])
            if key in seen:
                raise ReportError(
                    f"task {row['task']} run {row['repeat']} is in both {seen[key]} and {folder}: "
                    "merge the shards of one suite, each once"
                )
            seen[key] = str(folder)
            row = dict(row)
            for link in ("record", "run_dir"):
                if row.get(link):
                    row[link] = os.path.relpath(folder / row[link], out)
            rows.append(row)
    first = reports[0]
    return build_report(
        rows,
        suite=first.get("suite"),
        model=first.get("model"),
        shard=None,
        merged_from=[r["_folder"] for r in reports],
        repeat=max(int(r.get("repeat") or 1) for r in reports),
        parallel=first.get("parallel"),
        started_at=min(str(r.get("started_at", "")) for r in reports),
        wall_s=round(sum(float(r.get("wall_s") or 0) for r in reports), 3),
    )


def compare_reports(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    """Per task in either report: pass rate, mean tokens and steps in A and in B, and
    what changed ("pass→fail", "fail→pass", "only in A", …)."""
    ta, tb = summarize(a["rows"])["per_task"], summarize(b["rows"])["per_task"]
    out = []
    for task in sorted({*ta, *tb}):
        x, y = ta.get(task), tb.get(task)
        change = ""
        if x is None:
            change = "only in B"
        elif y is None:
            change = "only in A"
        elif x["pass_rate"] is not None and y["pass_rate"] is not None and x["pass_rate"] != y["pass_rate"]:
            change = (
                "fail→pass"
                if x["pass_rate"] == 0 and y["pass_rate"] == 1
                else "pass→fail"
                if x["pass_rate"] == 1 and y["pass_rate"] == 0
                else "pass rate changed"
            )
        out.append({"task": task, "change": change, "a": x, "b": y})
    return out


def _pct(rate: float | None) -> str:
    return "–" if rate is None else f"{rate * 100:.0f}%"


def render_markdown(report: dict[str, Any]) -> str:
    s = report["summary"]
    lines = [
        f"# mika eval: {report.get('suite')} with {report.get('model')}",
        "",
        f"Pass rate **{_pct(s['pass_rate'])}** ({s['passed']} of {s['scored']} scored runs; "
        f"{s['not_run']} not scored: {s['no_solution']} without a solution, {s['needs_person']} needing a person present, "
        f"which unattended runs have not). Tokens: {s['tokens']['input']} in, "
        f"{s['tokens']['output']} out, {s['tokens']['cached']} cached. Steps: {s['steps']}. "
        f"Wall time {report.get('wall_s', 0)} s" + (f", shard {report['shard']}" if report.get("shard") else "") + ".",
        "",
    ]
    if s["categories"]:
        lines += ["Failures: " + ", ".join(f"{k} {v}" for k, v in s["categories"].items()), ""]
    for kind, ids in s.get("not_scored", {}).items():
        lines += [f"Not scored ({kind}): " + ", ".join(ids), ""]
    lines += [
        "| task | run | expect | result | category | outcome | steps | tokens in/out/cached | wall s | first feedback s | record |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["rows"]:
        t = r["tokens"]
        result = "pass" if r["passed"] else ("not run" if r["category"] in NOT_RUN else "FAIL")
        record = f"[record]({r['record']})" if r.get("record") else ""
        ff = "" if r.get("first_feedback_s") is None else f"{r['first_feedback_s']}"
        lines.append(
            f"| {r['task']} | {r['repeat']} | {r['expect']} | {result} | {r['category']} | {r['outcome']} | "
            f"{r['steps']} | {t['input']}/{t['output']}/{t['cached']} | {r['wall_s']} | {ff} | {record} |"
        )
    return "\n".join(lines) + "\n"
