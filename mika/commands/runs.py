"""`mika runs list|show|recover`: read the records of past runs, settle unfinished ones.

stdout carries data only; diagnostics go to stderr.
"""

from __future__ import annotations

import sys

import click

from mika.commands.state import state_dir_of
from mika.exit_codes import ExitCode
from mika.terminal_text import echo, for_terminal, json_for_terminal, one_line


@click.group("runs")
def runs_group() -> None:
    """Read the records of past runs."""


@runs_group.command("list")
@click.option("--json", "as_json", is_flag=True)
@click.option("--limit", type=int, default=30, show_default=True)
@click.pass_context
def runs_list(ctx: click.Context, as_json: bool, limit: int) -> None:
    """Past runs, newest first."""
    from pathlib import Path

    from mika.record.recorder import list_runs, read_events
    from mika.record.shown_metrics import needs_events, shown_metrics

    runs = list_runs(state_dir_of(ctx))[:limit]
    if as_json:
        echo(json_for_terminal(runs, indent=1))
        return
    if not runs:
        echo("No runs recorded yet.", err=True)
        return
    for r in runs:
        m = shown_metrics(r, read_events(Path(r["dir"])) if needs_events(r) else [])
        secs = (m.get("total_ms") or 0) / 1000
        echo(
            f"{one_line(r.get('id', '?')):12} {one_line(r.get('outcome', r.get('state', '?'))):18} "
            f"{m.get('steps', 0):>3} steps {secs:7.1f}s  {one_line(str(r.get('goal', ''))[:60])}"
        )


@runs_group.command("show")
@click.argument("run_id")
@click.option("--json", "as_json", is_flag=True, help="Print run.json and every event.")
@click.pass_context
def runs_show(ctx: click.Context, run_id: str, as_json: bool) -> None:
    """One run: its summary and timeline."""
    from mika.atomic_write import read_json
    from mika.record.recorder import find_run, read_events

    root = state_dir_of(ctx)
    run_dir = find_run(root, run_id)
    if run_dir is None:
        echo(f"mika: no run {run_id!r} in {root / 'runs'} (see `mika runs list`)", err=True)
        sys.exit(int(ExitCode.USAGE))
    summary = read_json(run_dir / "run.json", {}) or {}
    events = read_events(run_dir)
    if as_json:
        echo(json_for_terminal({"run": summary, "events": events}, indent=1))
        return
    echo(
        one_line(
            f"run {summary.get('id')} · {summary.get('outcome', summary.get('state'))} · {summary.get('goal', '')}"
        )
    )
    for line in metrics_lines(summary, events):
        echo(line)
    for line in timeline_lines(events):
        echo(line)


def timeline_lines(events: list[dict], lang: str | None = None) -> list[str]:
    """Each step said in words ("step 2: Tap 'Buy now' · screen changed", the tool's name
    after it for whoever reads the record), its result cut at line boundaries; a call the
    record has no result for (a killed run) says so instead of pretending it is running."""
    from mika.record.step_words import StepFacts, step_words, unfinished_words

    lines: list[str] = []
    # Steps by call id, in the order they were called; their lines are written once the
    # whole record is read (a result may come after other events).
    steps: dict[str, tuple[int, StepFacts]] = {}
    entries: list[tuple[str, object]] = []
    for e in events:
        t = e.get("type")
        if t == "tool_call":
            args = e.get("arguments")
            facts = StepFacts(
                name=str(e.get("name") or "?"),
                arguments=args if isinstance(args, dict) else {},
                capability=str(e.get("capability") or ""),
            )
            call_id = str(e.get("call_id") or len(entries))
            steps[call_id] = (int(e.get("step") or len(steps) + 1), facts)
            entries.append(("step", call_id))
        elif t == "tool_result":
            found = steps.get(str(e.get("call_id") or ""))
            if found is None:  # a result without its call (an old or cut record)
                facts = StepFacts(name=str(e.get("name") or "?"))
                call_id = f"result-{len(entries)}"
                steps[call_id] = (int(e.get("step") or len(steps) + 1), facts)
                entries.append(("step", call_id))
                found = steps[call_id]
            facts = found[1]
            facts.ok = bool(e.get("ok"))
            facts.code = str(e.get("code") or "")
            facts.text = str(e.get("text") or "")
            facts.effect = str(e.get("effect") or "")
            facts.capability = facts.capability or str(e.get("capability") or "")
        elif t == "outcome":
            entries.append(("outcome", e))
    for kind, value in entries:
        if kind == "outcome":
            assert isinstance(value, dict)
            answer = str(value.get("answer", ""))[:200]
            lines.append("  " + one_line(f"outcome: {value.get('status')} {value.get('subtype', '')}: {answer}"))
            continue
        number, facts = steps[str(value)]
        if facts.ok is None:
            lines.append(f"  step {number}: {one_line(unfinished_words(facts, lang))}  ({one_line(facts.name)})")
            continue
        lines.append(f"  step {number}: {one_line(step_words(facts, lang))}  ({one_line(facts.name)})")
        flag = "ok" if facts.ok else f"! {facts.code}"
        head, *rest = result_lines(facts.text) or [""]
        lines.append(f"    → {one_line(flag)} {head}".rstrip())
        lines.extend(f"      {line}" for line in rest)
    return lines


# A tool result in the text view: whole lines up to about this many characters, then a
# count of what was left out (`--json` has it all). A cut inside a line would show half a
# listing row or half a fence tag as if it were the whole.
RESULT_CHARS = 400
RESULT_LINES = 8


def result_lines(text: str, *, chars: int = RESULT_CHARS, lines: int = RESULT_LINES) -> list[str]:
    """`text`'s first lines, cut at a line boundary; a first line longer than `chars`
    alone is cut at a word, and "… N more lines" says what was left out."""
    all_lines = [one_line(x).rstrip() for x in for_terminal(text).split("\n")]
    while all_lines and not all_lines[-1]:
        all_lines.pop()
    kept: list[str] = []
    used = 0
    for line in all_lines:
        if len(kept) >= lines or (kept and used + len(line) > chars):
            break
        if not kept and len(line) > chars:
            cut = line[:chars].rsplit(" ", 1)[0] or line[:chars]
            kept.append(cut + " …")
            used = chars
            continue
        kept.append(line)
        used += len(line)
    left = len(all_lines) - len(kept)
    if left:
        kept.append(f"… {left} more line{'' if left == 1 else 's'} (--json shows all)")
    return kept


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def metrics_lines(summary: dict, events: list[dict]) -> list[str]:
    """The run's metrics as `runs list` shows them (mika.record.shown_metrics): run.json's,
    or folded from its events for a run that has not written them (still running, or
    killed and not yet recovered)."""
    from mika.record.metrics_text import secs, split_bar, split_parts
    from mika.record.shown_metrics import shown_metrics

    m = shown_metrics(summary, events)
    if not m:
        return []
    split = " · ".join(f"{name} {secs(ms)}" for name, ms in split_parts(m))
    bar = split_bar(m)
    return [
        f"  time {secs(m.get('total_ms', 0))} · first feedback {secs(m.get('first_feedback_ms'))}"
        f" · {m.get('steps', 0)} steps · {_count(m.get('model_round_trips', 0), 'model call')}",
        f"  tokens {m.get('input_tokens', 0):,} in · {m.get('output_tokens', 0):,} out"
        f" · {m.get('cached_tokens', 0):,} cached",
        f"  split  {split}",
        *([f"         {bar}  (█ thinking ▓ reading ▒ acting ░ waiting)"] if bar else []),
    ]


@runs_group.command("recover", help="Settle runs a closed or killed Mika left unfinished, once.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def runs_recover_command(ctx: click.Context, as_json: bool) -> None:
    import asyncio

    from mika.run.outbox import StreamChannel
    from mika.run.recovered_runs import recovered_runs
    from mika.run.recovery import recover_at_start, settle
    from mika.run.ui_text import t

    root = state_dir_of(ctx)
    # Texts that reach the user go to stdout (the data of this command); the summary
    # goes to stderr, or the whole report to stdout as JSON.
    channel = StreamChannel(sys.stderr if as_json else sys.stdout, name="cli")
    report = recover_at_start(root, channel)
    settled = asyncio.run(settle(root, channel))
    runs = recovered_runs(root, report, settled)
    if as_json:
        echo(
            json_for_terminal(
                {
                    # The first keys are the old report's, unchanged: "interrupted" is the runs
                    # this recovery marked, the others what settling did (a run marked by an
                    # earlier start and settled now is in "delivered" / "told" / "ended" only).
                    "interrupted": list(report.interrupted),
                    "uncertain": list(report.uncertain),
                    "delivered": list(settled.delivered),
                    "told": list(settled.told),
                    "ended": list(settled.ended),
                    "borrowed_restored": list(settled.borrowed.restored),
                    "borrowed_kept": list(settled.borrowed.kept),
                    "errors": list(settled.borrowed.errors),
                    "skipped": list(settled.skipped),
                    "settled": [r.run_id for r in runs if r.settled_now],
                    "runs": [r.as_dict() for r in runs],
                },
                indent=1,
            )
        )
        return
    now = [r for r in runs if r.settled_now]
    if not (now or settled.borrowed.restored):
        if runs:
            echo(t("recover_none_earlier"), err=True)
        else:
            echo(t("recover_none"), err=True)
    else:
        echo(
            t(
                "recover_summary",
                settled=len(now),
                marked=len(report.interrupted),
                delivered=len(settled.delivered),
                told=len(settled.told),
                ended=len(settled.ended),
                restored=len(settled.borrowed.restored),
            ),
            err=True,
        )
    for r in now + [r for r in runs if not r.settled_now]:
        echo("  " + one_line(r.line()), err=True)
    for error in settled.borrowed.errors:
        echo(for_terminal(error), err=True)
