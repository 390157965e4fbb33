"""report.html: a static page a person opens from the report folder — no scripts, no
external assets. A summary, an inline SVG chart (pass rate and tokens per task) and one
table row per task run, linking to the run's record and files. Every text from a run
(goals, answers, error details) is escaped: a task file or a model's answer is untrusted."""

from __future__ import annotations

from html import escape
from typing import Any

from mika.eval.scoring import NOT_RUN

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}
table{border-collapse:collapse;margin-top:12px}th,td{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f3f3f3}tr.pass td.result{color:#176c2b;font-weight:600}tr.fail td.result{color:#a31515;font-weight:600}
tr.skip td.result{color:#777}td.num{text-align:right}.detail{color:#555;max-width:420px;white-space:pre-wrap}
"""


def _pct(rate: float | None) -> str:
    return "–" if rate is None else f"{rate * 100:.0f}%"


def chart_svg(per_task: dict[str, dict[str, Any]]) -> str:
    """Per task: a bar of its pass rate (left, 0–100%) and of its mean tokens (right,
    scaled to the largest)."""
    names = sorted(per_task)
    row_h, label_w, bar_w, gap = 18, 260, 200, 30
    height = row_h * len(names) + 30
    width = label_w + 2 * bar_w + gap + 80
    most = max((per_task[n]["mean_tokens"] for n in names), default=0) or 1
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" height="{height}" '
        f'aria-label="pass rate and tokens per task">',
        f'<text x="{label_w}" y="12" font-size="12">pass rate</text>',
        f'<text x="{label_w + bar_w + gap}" y="12" font-size="12">mean tokens (max {most})</text>',
    ]
    for i, name in enumerate(names):
        t = per_task[name]
        y = 20 + i * row_h
        rate = t["pass_rate"]
        parts.append(f'<text x="0" y="{y + 12}" font-size="11">{escape(name)}</text>')
        parts.append(f'<rect x="{label_w}" y="{y}" width="{bar_w}" height="{row_h - 4}" fill="#eee"/>')
        if rate is not None:
            parts.append(
                f'<rect class="pass-bar" data-task="{escape(name)}" x="{label_w}" y="{y}" '
                f'width="{round(bar_w * rate)}" height="{row_h - 4}" fill="#2e8b57"/>'
            )
        tokens_w = round(bar_w * t["mean_tokens"] / most)
        parts.append(
            f'<rect class="token-bar" x="{label_w + bar_w + gap}" y="{y}" width="{tokens_w}" '
            f'height="{row_h - 4}" fill="#4a78c2"/>'
        )
        parts.append(
            f'<text x="{label_w + 2 * bar_w + gap + 6}" y="{y + 12}" font-size="11">'
            f"{_pct(rate)} · {t['mean_tokens']}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def render_html(report: dict[str, Any]) -> str:
    s = report["summary"]
    title = f"mika eval: {report.get('suite')} with {report.get('model')}"
    rows = []
    for r in report["rows"]:
        kind = "pass" if r["passed"] else ("skip" if r["category"] in NOT_RUN else "fail")
        result = {"pass": "pass", "fail": "FAIL", "skip": "not run"}[kind]
        t = r["tokens"]
        links = []
        if r.get("record"):
            links.append(f'<a class="record" href="{escape(r["record"])}/">record</a>')
        if r.get("run_dir"):
            links.append(f'<a href="{escape(r["run_dir"])}/run.log">log</a>')
        ff = "" if r.get("first_feedback_s") is None else f"{r['first_feedback_s']} s"
        rows.append(
            f'<tr class="{kind}" data-task="{escape(r["task"])}">'
            f"<td>{escape(r['task'])}</td><td class=num>{r['repeat']}</td><td>{escape(r['expect'])}</td>"
            f'<td class="result">{result}</td><td class="category">{escape(r["category"])}</td>'
            f"<td>{escape(r['outcome'])}</td><td class=num>{r['steps']}</td>"
            f"<td class=num>{t['input']}</td><td class=num>{t['output']}</td><td class=num>{t['cached']}</td>"
            f"<td class=num>{r['wall_s']}</td><td>{escape(ff)}</td><td>{' '.join(links)}</td>"
            f'<td class="detail">{escape(str(r.get("detail") or ""))[:600]}</td></tr>'
        )
    failures = ", ".join(f"{escape(k)} {v}" for k, v in s["categories"].items()) or "none"
    return (
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>"
        f"<h1>{escape(title)}</h1>"
        f'<p id="summary">Pass rate <b id="pass-rate">{_pct(s["pass_rate"])}</b>: {s["passed"]} of '
        f"{s['scored']} scored runs passed; {s['not_run']} not scored: {s['no_solution']} without a solution, "
        f"{s['needs_person']} needing a person present, which unattended runs have not"
        + "".join(f" ({escape(kind)}: {escape(', '.join(ids))})" for kind, ids in s.get("not_scored", {}).items())
        + f". Failures: {failures}. "
        f"Tokens {s['tokens']['input']} in / {s['tokens']['output']} out / {s['tokens']['cached']} cached; "
        f"{s['steps']} steps; wall time {escape(str(report.get('wall_s', '')))} s"
        + (f"; shard {escape(str(report['shard']))}" if report.get("shard") else "")
        + ".</p>"
        + chart_svg(s["per_task"])
        + '<table id="runs"><thead><tr><th>task</th><th>run</th><th>expect</th><th>result</th>'
        "<th>category</th><th>outcome</th><th>steps</th><th>tokens in</th><th>out</th><th>cached</th>"
        "<th>wall s</th><th>first feedback</th><th>files</th><th>detail</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table></body></html>\n"
    )
