"""`mika usage [--range 24h|7d|30d|90d|FROM..TO] [--json]`."""

from __future__ import annotations

import sys
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any

import click

from mika.config.errors import ConfigError
from mika.config.paths import state_dir
from mika.exit_codes import ExitCode
from mika.terminal_text import echo, json_for_terminal
from mika.usage.copy import t
from mika.usage.ledger import UsageLedger
from mika.usage.query import (
    UsageRangeError,
    UsageReport,
    bucket_label,
    local_zone,
    parse_range,
    summarize,
)

USAGE_FILE = "usage-v1.json"


def usage_path() -> Path:
    return state_dir() / USAGE_FILE


@click.command("usage")
@click.option(
    "--range",
    "range_",
    default="7d",
    show_default=True,
    help="24h, 7d, 30d, 90d or FROM..TO (local dates, e.g. 2026-01-01..2026-01-31).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON on stdout.")
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Config file (for [general] language; usage itself lives in the state directory).",
)
def usage_command(range_: str, as_json: bool, config_path: str | None) -> None:
    """Show how many tokens the models used, by time, provider and model."""
    from mika.commands.models import apply_language, config_path_of
    from mika.model.config_edit import read_config

    try:
        apply_language(read_config(config_path_of(config_path))[1])
    except ConfigError:
        pass  # a broken config must not hide the usage numbers
    tz = local_zone()
    try:
        rng = parse_range(range_, datetime.now(UTC), tz)
    except UsageRangeError as exc:
        echo(f"mika usage: {exc}", err=True)
        sys.exit(ExitCode.USAGE)
    try:
        ledger = UsageLedger(usage_path())
    except OSError as exc:
        echo(f"mika usage: cannot read {usage_path()}: {exc.strerror or exc}", err=True)
        sys.exit(ExitCode.USAGE)
    report = summarize(ledger.rows(), rng)
    if as_json:
        echo(json_for_terminal(report_json(report, tz), indent=1))
        return
    first = datetime.fromtimestamp(rng.start, tz)
    last = datetime.fromtimestamp(rng.end - 1, tz)
    echo(t("title", label=rng.label, first=f"{first:%Y-%m-%d %H:%M}", last=f"{last:%Y-%m-%d %H:%M}", tz=tz))
    total = report.total
    if total.calls + total.unreported == 0:
        echo(t("empty"))
        return
    echo(
        t(
            "total",
            tokens=total.tokens,
            input=total.input,
            cached=total.cached,
            output=total.output,
            calls=total.calls + total.unreported,
        )
    )
    echo("")
    echo(f"{t('when'):<24} {t('input'):>12} {t('output'):>10} {t('cached'):>10} {t('calls'):>7}")
    for bucket in report.buckets:
        b = bucket.total
        if b.calls + b.unreported == 0:
            continue
        echo(
            f"{bucket_label(bucket, rng.step, tz):<24} {b.input:>12} {b.output:>10} {b.cached:>10} "
            f"{b.calls + b.unreported:>7}"
        )
    echo("")
    echo(t("by_provider"))
    for provider, p in report.by_provider:
        share = 100.0 * p.tokens / total.tokens if total.tokens else 0.0
        echo(f"  {provider:<22} {p.tokens:>12} {share:5.1f}%")
    echo(t("by_model"))
    for provider, model, m in report.by_model:
        echo(f"  {provider + '/' + model:<40} {m.tokens:>12}")
    if total.unreported:
        echo(t("unreported", n=total.unreported))
    echo(t("footer"))


def report_json(report: UsageReport, tz: tzinfo) -> dict[str, Any]:
    rng = report.range
    return {
        "range": rng.label,
        "step": rng.step,
        "start": datetime.fromtimestamp(rng.start, tz).isoformat(),
        "end": datetime.fromtimestamp(rng.end, tz).isoformat(),
        "total": report.total.as_dict(),
        "buckets": [
            {
                "start": datetime.fromtimestamp(b.start, tz).isoformat(),
                "end": datetime.fromtimestamp(b.end, tz).isoformat(),
                "total": b.total.as_dict(),
                "providers": {p: v.as_dict() for p, v in sorted(b.by_provider.items())},
            }
            for b in report.buckets
        ],
        "providers": [{"provider": p, **v.as_dict()} for p, v in report.by_provider],
        "models": [{"provider": p, "model": m, **v.as_dict()} for p, m, v in report.by_model],
    }
