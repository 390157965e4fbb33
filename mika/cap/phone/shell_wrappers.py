"""The programs that run other programs: `sh -c '…'`, `su -c`/`su 0 …`, `toybox X`,
`busybox X`, `env`, `nohup`, `timeout N`, `exec`, `nice`, `time`, `command`, `setsid`,
`xargs`, `eval`, `run-as PKG`, `find -exec`. `commands_in(line)` gives every command a
line would run as its innermost program, with the wrappers it ran under; what can't be
told before the line runs raises ShellLineError.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from mika.cap.phone.shell_line import (
    ASSIGN,
    MAX_DEPTH,
    ShellLineError,
    SimpleCommand,
    Word,
    simple_commands,
)

_SHELLS = {"sh", "bash", "mksh", "ash", "dash", "ksh", "zsh", "toysh", "hush"}


def commands_in(line: str) -> list[SimpleCommand]:
    """Every simple command `line` would run, innermost programs, wrappers unwrapped."""
    out: list[SimpleCommand] = []
    for cmd in simple_commands(line):
        out.extend(_unwrap(cmd, 0))
    return out


def _unwrap(cmd: SimpleCommand, depth: int) -> Iterator[SimpleCommand]:
    if depth > MAX_DEPTH:
        raise ShellLineError(f"the command wraps commands in one another more than {MAX_DEPTH} deep.")
    if not cmd.words:
        yield cmd
        return
    head = cmd.words[0]
    if not head.literal:
        raise ShellLineError(
            f"the program to run (`{head.text}`) is decided only when the line runs; name it literally."
        )
    name = cmd.name
    words = list(cmd.words)
    via = (*cmd.via, name)

    def inner(rest: list[Word], **kw: object) -> Iterator[SimpleCommand]:
        yield from _unwrap(replace(cmd, words=tuple(rest), via=via, **kw), depth + 1)  # type: ignore[arg-type]

    def alone() -> Iterator[SimpleCommand]:
        # A wrapper given no command runs nothing else — unless xargs hands it one from input.
        if cmd.more_args:
            raise ShellLineError(
                f"`xargs {cmd.show()}` takes the command it runs from its input, which can't be "
                "checked; send the command itself."
            )
        yield cmd

    if name in ("toybox", "busybox", "toolbox"):
        if len(words) > 1 and not words[1].text.startswith("-"):
            yield from inner(words[1:])
            return
        yield from alone()
        return
    if name in _SHELLS:
        yield from _shell(cmd, words, via, depth, name)
        return
    if name == "su":
        yield from _su(cmd, words, via, depth)
        return
    if name == "eval":
        if cmd.more_args or not all(w.literal for w in words[1:]):
            raise ShellLineError("`eval` of text decided at run time can't be read; send the command itself.")
        yield from _script(cmd, " ".join(w.text for w in words[1:]), via, depth)
        return
    if name == "xargs":
        yield from _xargs(cmd, words, via, depth)
        return
    if name == "find":
        yield from _find_exec(cmd, words, via, depth)
        yield cmd
        return
    if name == "run-as":
        rest = _literal_tail(words, 1, name)
        if not rest:
            raise ShellLineError("`run-as` needs a package name.")
        i = 1
        if len(rest) > i and rest[i].text in ("--user", "-u"):
            i += 2
        if len(rest) <= i:
            raise ShellLineError(
                "`run-as PACKAGE` with no command starts a shell that reads its input; give the command."
            )
        yield from inner(rest[i:])
        return
    skip = _wrapper_skip(name, words)
    if skip is not None:
        if skip >= len(words):
            yield from alone()  # `env` prints, `nohup` complains
            return
        assigns = cmd.assigns
        if name == "env":
            assigns = assigns + tuple(_env_assigns(words[1:skip]))
        yield from inner(words[skip:], assigns=assigns)
        return
    yield cmd


def _literal_tail(words: list[Word], start: int, name: str) -> list[Word]:
    for w in words[start:]:
        if not w.literal:
            raise ShellLineError(
                f"an argument of `{name}` (`{w.text}`) is decided only when the line runs, "
                "so what it runs can't be told; write it out."
            )
    return words[start:]


def _wrapper_skip(name: str, words: list[Word]) -> int | None:
    """For a wrapper that runs the rest of its words as a command: the index of that
    command's first word (len(words) when there is none). None for other programs."""
    opts_with_value: set[str]
    opts_flags: set[str]
    if name == "env":
        i = 1
        while i < len(words):
            t = _need_literal(words[i], name)
            if t in ("-i", "-", "--ignore-environment", "-0", "--null"):
                i += 1
            elif t in ("-u", "--unset", "-C", "--chdir"):
                i += 2
            elif t.startswith(("-S", "--split-string")):
                raise ShellLineError("`env -S` splits a string into a command at run time; give the command itself.")
            elif t.startswith(("-u", "--unset=", "--chdir=")):
                i += 1
            elif t.startswith("-"):
                raise ShellLineError(f"`env {t}` is an option this tool doesn't know; leave it out.")
            elif ASSIGN.match(t):
                i += 1
            else:
                break
        return i
    table: dict[str, tuple[set[str], set[str], int]] = {
        # name: (options taking a value, flag options, positional words before the command)
        "nohup": (set(), set(), 0),
        "exec": ({"-a"}, {"-c", "-l"}, 0),
        "time": (set(), {"-p"}, 0),
        "builtin": (set(), set(), 0),
        "setsid": (set(), {"-w", "-c", "-d", "-f", "--wait", "--ctty", "--fork"}, 0),
        "nice": ({"-n", "--adjustment"}, set(), 0),
        "timeout": (
            {"-s", "--signal", "-k", "--kill-after"},
            {"--preserve-status", "--foreground", "-v", "--verbose", "-i"},
            1,
        ),
        "ionice": ({"-c", "-n", "--class", "--classdata"}, {"-t"}, 0),
        "stdbuf": ({"-i", "-o", "-e"}, set(), 0),
        "logwrapper": (set(), {"-a", "-k", "-d"}, 0),
        "taskset": (set(), {"-a", "--all-tasks"}, 1),
        "command": (set(), {"-p"}, 0),
    }
    if name not in table:
        return None
    opts_with_value, opts_flags, positional = table[name]
    i = 1
    while i < len(words):
        t = _need_literal(words[i], name)
        if t == "--":
            i += 1
            break
        if not t.startswith("-") or t == "-":
            break
        if name == "command" and t in ("-v", "-V"):
            return len(words)  # `command -v X` only looks X up
        if name == "taskset" and t in ("-p", "--pid"):
            return len(words)  # works on a running process, runs nothing
        if name == "nice" and re.fullmatch(r"-n?-?\d+|--adjustment=-?\d+", t):
            i += 1
        elif t in opts_with_value:
            i += 2
        elif (
            ("=" in t and t.split("=", 1)[0] in opts_with_value)
            or t in opts_flags
            or (len(t) > 2 and t[:2] in opts_with_value)
        ):
            i += 1
        else:
            raise ShellLineError(f"`{name} {t}` is an option this tool doesn't know; leave it out.")
    for _ in range(positional):
        if i < len(words):
            _need_literal(words[i], name)
            i += 1
    return i


def _need_literal(word: Word, name: str) -> str:
    if not word.literal:
        raise ShellLineError(
            f"an argument of `{name}` (`{word.text}`) is decided only when the line runs, "
            "so what it runs can't be told; write it out."
        )
    return word.text


def _env_assigns(words: list[Word]) -> Iterator[tuple[str, Word]]:
    for w in words:
        m = ASSIGN.match(w.text)
        if m:
            yield m.group(1), Word(w.text[m.end() :], w.literal)


def _script(cmd: SimpleCommand, script: str, via: tuple[str, ...], depth: int) -> Iterator[SimpleCommand]:
    """The commands of a script string run by a wrapper (sh -c, su -c, eval), with the
    wrapper's own redirections and variables applying to each."""
    for inner in simple_commands(script, depth + 1):
        merged = replace(
            inner, via=via + inner.via, redirects=cmd.redirects + inner.redirects, assigns=cmd.assigns + inner.assigns
        )
        yield from _unwrap(merged, depth + 1)


def _shell(
    cmd: SimpleCommand, words: list[Word], via: tuple[str, ...], depth: int, name: str
) -> Iterator[SimpleCommand]:
    i = 1
    command_mode = False
    while i < len(words):
        t = _need_literal(words[i], name)
        if t == "--":
            i += 1
            break
        if len(t) > 1 and t[0] in "-+" and t[1:].isalpha():
            letters = t[1:]
            if "s" in letters:
                raise ShellLineError(
                    f"`{name} -s` reads commands from its input, which can't be checked; send the commands themselves."
                )
            if "o" in letters:
                i += 1  # -o OPTION
            command_mode = command_mode or "c" in letters
            i += 1
            continue
        break
    if command_mode:
        if i >= len(words):
            raise ShellLineError(f"`{name} -c` has no command string.", syntax=not cmd.more_args)
        script = words[i]
        if not script.literal:
            raise ShellLineError(
                f"the command string of `{name} -c` (`{script.text}`) is decided only when the line runs; write it out."
            )
        yield from _script(cmd, script.text, (*via[:-1], f"{name} -c"), depth)
        return
    if i < len(words):
        raise ShellLineError(
            f"`{name} {words[i].text}` runs a script file, whose commands can't be checked; "
            "send the commands themselves."
        )
    raise ShellLineError(
        f"`{name}` with no command reads commands from its input, which can't be checked; send the commands themselves."
    )


def _su(cmd: SimpleCommand, words: list[Word], via: tuple[str, ...], depth: int) -> Iterator[SimpleCommand]:
    i = 1
    script: Word | None = None
    who_seen = False
    while i < len(words):
        t = _need_literal(words[i], "su")
        if t in ("-c", "--command"):
            if i + 1 >= len(words):
                raise ShellLineError("`su -c` has no command string.", syntax=True)
            script = words[i + 1]
            i += 2
            break
        if t.startswith("--command="):
            script = Word(t.split("=", 1)[1], True)
            i += 1
            break
        if t in ("-", "-l", "--login", "-p", "-m", "--preserve-environment", "-mm", "--mount-master"):
            i += 1
        elif t in ("-t", "--target", "-Z", "--context", "-g", "--group", "-G", "--supp-group"):
            i += 2
        elif t in ("-s", "--shell") or t.startswith("--shell="):
            raise ShellLineError("`su -s` runs a shell of its own choosing; leave it out.")
        elif t.startswith("-"):
            raise ShellLineError(f"`su {t}` is an option this tool doesn't know; leave it out.")
        elif not who_seen:
            who_seen = True  # the user to run as: 0, root, shell, 2000 …
            i += 1
        else:
            break
    if script is not None:
        if not script.literal:
            raise ShellLineError(
                f"the command string of `su -c` (`{script.text}`) is decided only when the line runs; write it out."
            )
        yield from _script(cmd, script.text, via, depth)
        return
    if i < len(words):
        yield from _unwrap(replace(cmd, words=tuple(words[i:]), via=via), depth + 1)
        return
    raise ShellLineError(
        "`su` with no command starts a shell that reads its input, which can't be checked; give the command."
    )


def _xargs(cmd: SimpleCommand, words: list[Word], via: tuple[str, ...], depth: int) -> Iterator[SimpleCommand]:
    i = 1
    while i < len(words):
        t = words[i].text
        if t.startswith(("-I", "-i", "--replace")):
            raise ShellLineError(
                "`xargs -I` builds commands from its input, which can't be checked; send the commands themselves."
            )
        t = _need_literal(words[i], "xargs")
        if not t.startswith("-") or t == "-":
            break
        if t in ("-I", "-i", "--replace") or t.startswith(("-I", "--replace=", "-i")):
            raise ShellLineError(
                "`xargs -I` builds commands from its input, which can't be checked; send the commands themselves."
            )
        if t in (
            "-n",
            "-L",
            "-s",
            "-P",
            "-d",
            "-E",
            "-a",
            "--max-args",
            "--max-lines",
            "--max-procs",
            "--delimiter",
            "--arg-file",
            "--eof",
        ):
            i += 2
        elif t in (
            "-0",
            "-r",
            "-t",
            "-x",
            "-p",
            "--null",
            "--no-run-if-empty",
            "--verbose",
            "--exit",
            "--interactive",
        ) or re.fullmatch(r"-[nLsPdEa].+|--[a-z-]+=.*", t):
            i += 1
        else:
            raise ShellLineError(f"`xargs {t}` is an option this tool doesn't know; leave it out.")
    if cmd.more_args and i >= len(words):
        raise ShellLineError(
            "`xargs xargs` takes the command it runs from its input, which can't be checked; send the command itself."
        )
    rest = words[i:] or [Word("echo")]  # xargs with no command runs echo
    yield from _unwrap(replace(cmd, words=tuple(rest), via=via, more_args=True), depth + 1)


def _find_exec(cmd: SimpleCommand, words: list[Word], via: tuple[str, ...], depth: int) -> Iterator[SimpleCommand]:
    """The commands `find … -exec CMD … ;` runs, file names added where `{}` stands."""
    i = 1
    while i < len(words):
        if words[i].text in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(words) and words[j].text not in (";", "+"):
                j += 1
            if j > i + 1:
                yield from _unwrap(replace(cmd, words=tuple(words[i + 1 : j]), via=via, more_args=True), depth + 1)
            i = j
        i += 1
