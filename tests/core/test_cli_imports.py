"""`mika --help` and `mika GROUP --help` load no subcommand's heavy dependencies.

Run in a fresh interpreter through the console script's own entry (mika_tui.launcher:main),
so what is measured is what a user's `mika --help` imports.
"""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from mika import cli
from mika.pace_help import with_pace_help
from tests.core.mika_import_probe import probe

HEAVY = ["adbutils", "requests", "httpx", "PIL", "openai", "anthropic", "uiautomator2", "textual"]
# What `mika --help` and `mika --version` must not load either: every subcommand's module and
# the parts of Mika and the standard library they pull in (~100 ms on a cold start together).
START_UP_HEAVY = [
    *HEAVY,
    "mika.commands",
    "mika.model",
    "mika.run",
    "mika.usage",
    "mika.config.settings",
    "mika.config.paths",
    "mika.assembly",
    "mika.cap",
    "mika.sim",
    "asyncio",
    "tomlkit",
    "platformdirs",
    "ssl",
    "socket",
    "subprocess",
    "logging",
    "concurrent",
]


def _help(*args: str) -> tuple[str, dict]:
    r, report = probe(args, {"loaded": HEAVY, "startup": START_UP_HEAVY})
    return r.stdout, report


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["runs", "--help"],
        ["models", "--help"],
        ["devices", "--help"],
        ["sim", "--help"],
        ["inspect", "--help"],
        ["conversations", "--help"],
        ["knowledge", "--help"],
        ["skills", "--help"],
        ["login", "--help"],
        ["logout", "--help"],
    ],
)
def test_help_loads_no_heavy_dependency(args):
    out, report = _help(*args)
    assert report["code"] in (0, None), out
    assert report["loaded"] == [], f"`mika {' '.join(args)}` imported {report['loaded']}"
    assert "Usage: mika" in out


def test_top_help_lists_every_group():
    out, _ = _help("--help")
    for name in [
        "run",
        "runs",
        "conversations",
        "models",
        "usage",
        "config",
        "devices",
        "connect",
        "disconnect",
        "pair",
        "inspect",
        "sim",
        "knowledge",
        "skills",
    ]:
        assert f"  {name} " in out, f"{name} missing from mika --help:\n{out}"


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["--version"]])
def test_top_level_help_and_version_import_no_subcommand(args):
    """`mika --help` lists the commands from cli.SUBCOMMANDS: no command module is imported."""
    out, report = _help(*args)
    assert report["code"] in (0, None), out
    assert report["startup"] == [], f"`mika {' '.join(args)}` imported {report['startup']}"
    assert out.strip(), "printed nothing"


def test_version_prints_the_version():
    from mika import __version__

    out, _ = _help("--version")
    assert out.strip() == f"mika, version {__version__}"


@pytest.mark.parametrize("name", sorted(cli.SUBCOMMANDS))
def test_summary_is_the_commands_own_help(name):
    """The summary `mika --help` shows is the command's own first help paragraph, so the
    listing cannot drift from the commands: compared at every width click may cut it to."""
    real = cli.load_subcommand(name)
    assert real.name == name
    assert not real.hidden
    stand_in = click.Command(name, help=cli.SUBCOMMANDS[name][1])
    for limit in (20, 45, 60, 80, 200):
        assert stand_in.get_short_help_str(limit) == real.get_short_help_str(limit), (name, limit)


def test_lazy_help_equals_the_eager_listing():
    """The lazy group's `--help` is byte for byte the one a group with every command
    imported and registered prints (both end with the pace paragraph)."""
    lazy = CliRunner().invoke(cli.cli, ["--help"], terminal_width=100)
    eager_group = with_pace_help("mika", click.Group)(
        name=cli.cli.name,
        params=cli.cli.params,
        help=cli.cli.help,
        invoke_without_command=True,
        context_settings=cli.cli.context_settings,
        commands={name: cli.load_subcommand(name) for name in cli.SUBCOMMANDS},
    )
    eager = CliRunner().invoke(eager_group, ["--help"], terminal_width=100, prog_name="mika")
    assert lazy.exit_code == eager.exit_code == 0
    assert lazy.output.replace("Usage: cli", "Usage: mika") == eager.output


def test_every_subcommand_runs_through_the_lazy_group():
    """Each name resolves to its real command (its own --help), and an unknown name is
    still click's usage error naming it."""
    for name in cli.SUBCOMMANDS:
        r = CliRunner().invoke(cli.cli, [name, "--help"])
        assert r.exit_code == 0, (name, r.output)
        assert f"Usage: cli {name}" in r.output, r.output
    r = CliRunner().invoke(cli.cli, ["no-such-command"])
    assert r.exit_code == 2
    assert "No such command 'no-such-command'" in r.output


def test_subcommand_is_imported_once_and_only_its_own():
    """`mika runs --help` imports the runs module, not the models or sim one."""
    out, report = _help("runs", "--help")
    assert "Usage: mika runs" in out
    assert "mika.commands.runs" in report["startup"]
    assert not any(m.startswith(("mika.commands.models", "mika.commands.sim")) for m in report["startup"])
