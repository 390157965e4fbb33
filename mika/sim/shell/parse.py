"""Turns a shell line into lists of pipelines, the way mksh on a phone reads them.

Covered: single/double quotes, backslash escapes, `;` `&&` `||` `|` `&`, redirections
(`>`, `>>`, `<`, `2>`, `2>&1`, `>&2`), `NAME=value` prefixes and `$?`/`$NAME` expansion.
Expansion is deferred to run time (a marker in the word) because `$?` changes between
the commands of one line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# A variable reference inside a word: \x00NAME\x01, replaced when the command runs.
VAR_START = "\x00"
VAR_END = "\x01"


class ShellSyntaxError(Exception):
    """mksh's own wording, e.g. "syntax error: unterminated quoted string"."""


@dataclass
class Redirect:
    fd: int  # 1 = stdout, 2 = stderr, 0 = stdin
    op: str  # ">", ">>", "<", ">&"
    target: str


@dataclass
class Simple:
    words: list[str] = field(default_factory=list)
    assigns: list[tuple[str, str]] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Pipeline:
    commands: list[Simple]


@dataclass
class AndOr:
    """A pipeline chain joined by && / ||; `ops[i]` joins parts[i] and parts[i+1]."""

    parts: list[Pipeline]
    ops: list[str]
    background: bool = False


_OPERATORS = ("&&", "||", ">>", "2>&1", "1>&2", ">&2", "2>", ";", "|", "&", ">", "<")


def _tokens(line: str) -> list[tuple[str, str]]:
    """('w', word) and ('o', operator) tokens."""
    out: list[tuple[str, str]] = []
    i = 0
    n = len(line)
    buf: list[str] = []
    in_word = False

    def flush() -> None:
        nonlocal in_word
        if in_word:
            out.append(("w", "".join(buf)))
            buf.clear()
            in_word = False

    while i < n:
        c = line[i]
        if c in " \t\r\n":
            flush()
            i += 1
            continue
        if c == "#" and not in_word:
            break
        if not in_word:
            # "2>" only counts as an operator at the start of a word.
            for op in _OPERATORS:
                if line.startswith(op, i):
                    out.append(("o", op))
                    i += len(op)
                    break
            else:
                op = ""
            if op:
                continue
        elif c in ";|&><":
            flush()
            continue
        in_word = True
        if c == "'":
            j = line.find("'", i + 1)
            if j < 0:
                raise ShellSyntaxError("syntax error: unterminated quoted string")
            buf.append(line[i + 1 : j])
            i = j + 1
        elif c == '"':
            i += 1
            while True:
                if i >= n:
                    raise ShellSyntaxError("syntax error: unterminated quoted string")
                d = line[i]
                if d == '"':
                    i += 1
                    break
                if d == "\\" and i + 1 < n and line[i + 1] in '"\\$`':
                    buf.append(line[i + 1])
                    i += 2
                    continue
                if d == "$":
                    i = _var(line, i, buf)
                    continue
                buf.append(d)
                i += 1
        elif c == "\\":
            if i + 1 < n:
                buf.append(line[i + 1])
            i += 2
        elif c == "$":
            i = _var(line, i, buf)
        else:
            buf.append(c)
            i += 1
    flush()
    return out


def _var(line: str, i: int, buf: list[str]) -> int:
    """Reads $?, $NAME or ${NAME} at line[i]; returns the index after it."""
    n = len(line)
    if i + 1 < n and line[i + 1] == "?":
        buf.append(f"{VAR_START}?{VAR_END}")
        return i + 2
    if i + 1 < n and line[i + 1] == "{":
        j = line.find("}", i + 2)
        if j < 0:
            raise ShellSyntaxError("syntax error: missing }")
        buf.append(f"{VAR_START}{line[i + 2 : j]}{VAR_END}")
        return j + 1
    j = i + 1
    while j < n and (line[j].isalnum() or line[j] == "_"):
        j += 1
    if j == i + 1:
        buf.append("$")
        return j
    buf.append(f"{VAR_START}{line[i + 1 : j]}{VAR_END}")
    return j


def expand(word: str, env: dict[str, str]) -> str:
    if VAR_START not in word:
        return word
    out: list[str] = []
    i = 0
    while i < len(word):
        c = word[i]
        if c == VAR_START:
            j = word.index(VAR_END, i)
            out.append(env.get(word[i + 1 : j], ""))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _is_assign(word: str) -> bool:
    name, sep, _ = word.partition("=")
    return bool(sep) and name.isidentifier() and VAR_START not in name


def parse(line: str) -> list[AndOr]:
    tokens = _tokens(line)
    lists: list[AndOr] = []
    parts: list[Pipeline] = []
    ops: list[str] = []
    cmds: list[Simple] = []
    cur = Simple()
    i = 0

    def end_simple() -> None:
        nonlocal cur
        if cur.words or cur.assigns or cur.redirects:
            cmds.append(cur)
        cur = Simple()

    def end_pipeline(required: bool) -> None:
        nonlocal cmds
        end_simple()
        if cmds:
            parts.append(Pipeline(cmds))
        elif required:
            raise ShellSyntaxError("syntax error: unexpected operator")
        cmds = []

    def end_list(background: bool = False) -> None:
        nonlocal parts, ops
        end_pipeline(required=bool(ops))
        if parts:
            lists.append(AndOr(parts, ops, background))
        parts, ops = [], []

    while i < len(tokens):
        kind, val = tokens[i]
        if kind == "w":
            if not cur.words and _is_assign(val):
                name, _, value = val.partition("=")
                cur.assigns.append((name, value))
            else:
                cur.words.append(val)
        elif val in (">", ">>", "<", "2>"):
            if i + 1 >= len(tokens) or tokens[i + 1][0] != "w":
                raise ShellSyntaxError("syntax error: unexpected newline")
            target = tokens[i + 1][1]
            fd = 0 if val == "<" else 2 if val == "2>" else 1
            op = ">" if val == "2>" else val
            if target.startswith("&") and op == ">":
                op, target = ">&", target[1:]
            cur.redirects.append(Redirect(fd, op, target))
            i += 1
        elif val == "2>&1":
            cur.redirects.append(Redirect(2, ">&", "1"))
        elif val in (">&2", "1>&2"):
            cur.redirects.append(Redirect(1, ">&", "2"))
        elif val == "|":
            end_simple()
            if not cmds:
                raise ShellSyntaxError("syntax error: '|' unexpected")
        elif val in ("&&", "||"):
            end_pipeline(required=True)
            ops.append(val)
        elif val in (";", "&"):
            end_list(background=val == "&")
        i += 1
    end_list()
    return lists
