"""Every face's `--help` says what the pace costs and how to change it (issue 35): the
default (standard), its wait per action, the other paces, and the flag, the environment
variable and the setting; in English and in Chinese, as the rest of the CLI's text. And
`--pace` does what its help says.

Each help is printed by a real `mika` process (the console script's entry), the way a
user or an MCP client's config reads it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from mika import pace_help

FACES = {"mika": [], "run": ["run"], "mcp": ["mcp"], "serve": ["serve"]}


def _help(args: list[str], language: str, **extra: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    env.update(MIKA_LANGUAGE=language, COLUMNS="100", **extra)
    r = subprocess.run(
        [sys.executable, "-c", "from mika_tui.launcher import main; main()", *args, "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    return " ".join(r.stdout.split())  # click wraps lines; the words are what is read


@pytest.mark.parametrize("face", sorted(FACES))
def test_each_face_says_the_default_pace_its_cost_and_how_to_change_it(face):
    text = _help(FACES[face], "en")
    assert "--pace [fast|standard|human]" in text
    assert "the default, standard, waits 0.5–2 s (at most 3.5 s) before each action on the phone" in text
    assert "about 1.2–2.1 s an action in all" in text
    assert "fast waits for nothing" in text and "human waits 0.9–5 s" in text
    assert 'Change it with --pace fast|standard|human, MIKA_PACE=fast, or pace = "fast" under [general]' in text


@pytest.mark.parametrize("face", sorted(FACES))
def test_each_face_says_it_in_chinese_too(face):
    text = _help(FACES[face], "zh")
    assert "默认的 standard 在手机上每次操作前像人一样等 0.5–2 秒" in text
    assert "每次操作合计约 1.2–2.1 秒" in text
    assert "修改：--pace fast|standard|human、环境变量 MIKA_PACE=fast" in text
    assert "Operating pace" not in text and "the default, standard" not in text


def test_each_face_names_what_it_paces():
    assert "Pace: run_task and the phone_* tools act at the pace" in _help(["mcp"], "en")
    assert "Pace: the scheduled runs act" in _help(["serve"], "en")
    assert "Pace: the TUI's and --no-ui's runs act" in _help([], "en")
    assert "操作节奏：run_task 和 phone_* 工具按" in _help(["mcp"], "zh")


def test_the_help_says_the_pace_the_environment_sets():
    assert "Now: fast (from MIKA_PACE)." in _help(["mcp"], "en", MIKA_PACE="fast")
    assert "当前：human（来自 MIKA_PACE）。" in _help(["mcp"], "zh", MIKA_PACE="human")
    assert "Now:" not in _help(["mcp"], "en")


def test_eval_says_its_tasks_run_fast():
    text = _help(["eval"], "en")
    assert "every task runs at pace fast (no waits between actions" in text
    assert "--pace" not in text  # the harness decides; there is nothing to change
    assert "每个任务都以 fast 运行" in _help(["eval"], "zh")


def test_the_figures_are_the_pacing_codes_own():
    """The help writes the figures out (so `mika --help` does not import the pacing
    code); they are the dwell profiles' and the settings' own."""
    from mika.action.pace import CAREFUL_DWELL, STANDARD_DWELL
    from mika.config.settings import PACES, Settings

    assert pace_help.PACES == PACES
    assert pace_help.DEFAULT == Settings().pace == "standard"
    assert (STANDARD_DWELL.same_s[0], STANDARD_DWELL.new_s[1]) == pace_help.STANDARD_WAIT_S
    assert STANDARD_DWELL.cap_s == pace_help.STANDARD_CAP_S
    assert (CAREFUL_DWELL.same_s[0], CAREFUL_DWELL.new_s[1]) == pace_help.HUMAN_WAIT_S
    assert CAREFUL_DWELL.cap_s == pace_help.HUMAN_CAP_S


def test_the_pace_flag_is_the_runs_pace(tmp_path):
    """`mika --no-ui --pace fast` loads settings whose pace is fast, over the file's."""
    cfg = tmp_path / "cfg" / "mika"
    cfg.mkdir(parents=True)
    (cfg / "config.toml").write_text('[general]\npace = "human"\n')
    probe = (
        "import sys\n"
        "from mika import cli\n"
        "import mika.config.settings as s\n"
        "seen = []\n"
        "real = s.load_settings\n"
        "def load(path=None):\n"
        "    got = real(path)\n"
        "    seen.append(got.pace)\n"
        "    raise SystemExit(0)\n"
        "s.load_settings = load\n"
        "import mika.headless_command as h\n"
        "h.load_settings = load\n"
        "try:\n"
        "    cli.main(sys.argv[1:])\n"
        "finally:\n"
        "    print(seen, file=sys.stderr)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "cfg"), MIKA_STATE_DIR=str(tmp_path / "state"))
    for args, want in ((["--no-ui", "--pace", "fast", "x"], "fast"), (["--no-ui", "x"], "human")):
        r = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, timeout=60, env=env)
        assert json.loads(r.stderr.strip().splitlines()[-1].replace("'", '"')) == [want], r.stderr
