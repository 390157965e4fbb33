"""Reads one shell line the way the phone's `sh` would: its simple commands and words.

phone_system_command may only run lines it understands completely, so this parser errs
on the side of not knowing: whatever it can't read with confidence (a command name made
at run time, a shell reading commands from its input, syntax it doesn't model) raises
`ShellLineError` with a sentence saying why, and the caller refuses the line.

`simple_commands(line)` lists the simple commands in order of appearance: those joined by
`;` `&&` `||` `|` `&` and newlines, inside `( … )` and `{ …; }`, and inside `$(…)` and
backticks (which run even where they sit in an argument). The wrappers that run another
command (`sh -c`, `su`, `xargs` …) are looked into by mika/cap/phone/shell_wrappers.py.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

MAX_DEPTH = 12  # nested $(…), groups and sh -c levels; deeper lines are refused

# Where the phone keeps its programs: a path into these names the program it ends in.
SYSTEM_BIN_DIRS = ("/system/bin", "/system/xbin", "/vendor/bin", "/product/bin", "/system_ext/bin", "/odm/bin")
_APEX_BIN = re.compile(r"^/apex/[^/]+/bin$")

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")  # used with .match(), anchored there
_SPECIAL_PARAM = "@*#?-$!0123456789"
_META = set(" \t\n;&|()<>")
# `${…}` bodies this parser reads: a parameter, optionally `#`/`!` before it, and an
# operator with a word after. Anything else (mksh's `${ cmd;}` and `${|cmd;}` run code).
# No subscripts and no `${X:offset}`: those are arithmetic, which can run commands.
_BRACE_PARAM = re.compile(r"^[#!]?([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])(:?[-=?+]|##?|%%?|$)")
_KEYWORDS_BEFORE_COMMAND = {"!", "if", "then", "elif", "else", "while", "until", "do", "time"}
_KEYWORDS_ALONE = {"fi", "done"}
_KEYWORDS_REFUSED = {"for", "case", "select", "function", "coproc", "[[", "]]", "esac", "in"}


class ShellLineError(ValueError):
    """The line can't be read with confidence. `syntax` is True when the shell itself
    would reject it (unbalanced quotes and the like)."""

    def __init__(self, reason: str, *, syntax: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.syntax = syntax


@dataclass(frozen=True)
class Word:
    """One word after quote removal. `literal` is False when part of it is decided only
    when the line runs: `$X`, `${…}`, `$(…)`, backticks, globs, `~`, `{a,b}`, `$'…'`."""

    text: str
    literal: bool = True

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Redirect:
    fd: int | None
    op: str  # <  >  >>  >|  <>  >&  <&  &>  &>>
    target: Word

    @property
    def writes(self) -> bool:
        if self.op in ("<", "<&"):
            return False
        # fd duplication such as 2>&1 is not a file
        return not (self.op in (">&", "<&") and (self.target.text.isdigit() or self.target.text == "-"))


@dataclass(frozen=True)
class SimpleCommand:
    words: tuple[Word, ...]
    assigns: tuple[tuple[str, Word], ...] = ()
    redirects: tuple[Redirect, ...] = ()
    via: tuple[str, ...] = ()  # wrappers it runs under, outermost first
    more_args: bool = False  # xargs adds words read from input at run time

    @property
    def argv(self) -> list[str]:
        return [w.text for w in self.words]

    @property
    def name(self) -> str:
        """The program's name: the last part of a path (`/system/bin/../bin/input` → input)."""
        if not self.words:
            return ""
        return (
            posixpath.basename(posixpath.normpath(self.words[0].text))
            if "/" in self.words[0].text
            else self.words[0].text
        )

    @property
    def in_system_bin(self) -> bool:
        """A bare name (found on the phone's PATH) or a path into a system bin folder."""
        if not self.words:
            return True
        text = self.words[0].text
        if "/" not in text:
            return True
        if not text.startswith("/"):
            return False
        folder = posixpath.dirname(posixpath.normpath(text))
        return folder in SYSTEM_BIN_DIRS or bool(_APEX_BIN.match(folder))

    def show(self) -> str:
        return " ".join(self.argv)


def simple_commands(line: str, depth: int = 0) -> list[SimpleCommand]:
    """The simple commands of `line` as written, wrappers not yet looked into
    (mika/cap/phone/shell_wrappers.py does that: `commands_in`)."""
    check_characters(line)
    return _Parser(line, depth).parse_all()


def check_characters(line: str) -> None:
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        raise ShellLineError(
            "the command holds characters that are not valid text (a lone surrogate); send plain text."
        ) from None
    for ch in line:
        code = ord(ch)
        if (code < 0x20 and ch not in "\t\n") or code == 0x7F:
            raise ShellLineError(
                f"the command holds the control byte 0x{code:02x}, which the phone's shell "
                "would read differently; send plain text."
            )


# --- the parser --------------------------------------------------------------------------


@dataclass
class _Raw:
    words: list[Word] = field(default_factory=list)
    assigns: list[tuple[str, Word]] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)


class _Parser:
    """Recursive descent over one string. Commands found inside substitutions are
    collected into `self.found` as they are met (they run before the command holding them)."""

    def __init__(self, text: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise ShellLineError(f"the command nests substitutions, groups or shells more than {MAX_DEPTH} deep.")
        self.s = text
        self.i = 0
        self.depth = depth
        self.found: list[SimpleCommand] = []

    # top level / lists
    def parse_all(self) -> list[SimpleCommand]:
        end = self.parse_list(frozenset())
        if end is not None:
            raise ShellLineError(f"unexpected `{end}`.", syntax=True)
        return self.found

    def parse_list(self, closers: frozenset[str]) -> str | None:
        """Commands and the operators between them, up to a closer (`)` or the word `}`)
        or the end; returns the closer met, or None at the end."""
        expect_command = True
        last_op = ""
        while True:
            self._blanks(newlines=True)
            at_end = self.i >= len(self.s)
            if (at_end or self.s[self.i] == ")") and expect_command and last_op in ("&&", "||", "|", "|&"):
                # sh rejects a line ending in `&&` (adbutils adds `; echo …` after it, still an error).
                raise ShellLineError(f"`{last_op}` has no command after it.", syntax=True)
            if at_end:
                return None
            ch = self.s[self.i]
            if ch == ")":
                if ")" in closers:
                    self.i += 1
                    return ")"
                raise ShellLineError("unexpected `)`.", syntax=True)
            if ch in ";&|":
                op = self._operator()
                if op in (";;", ";&", ";|"):
                    raise ShellLineError(f"`{op}` belongs to `case`, which is not supported; send a plain command.")
                if expect_command and op != ";":
                    raise ShellLineError(f"`{op}` with no command before it.", syntax=True)
                expect_command = True
                last_op = op
                continue
            closer = self.parse_command(closers)
            if closer is not None:
                return closer
            expect_command = False

    def _operator(self) -> str:
        s, i = self.s, self.i
        for op in (";;", ";&", ";|", "&&", "||", "|&", ";", "&", "|"):
            if s.startswith(op, i):
                self.i = i + len(op)
                return op
        raise AssertionError(s[i])

    def _blanks(self, newlines: bool = False) -> None:
        s = self.s
        while self.i < len(s):
            ch = s[self.i]
            if ch in " \t" or (newlines and ch == "\n"):
                self.i += 1
            elif s.startswith("\\\n", self.i):
                self.i += 2
            elif ch == "#":
                while self.i < len(s) and s[self.i] != "\n":
                    self.i += 1
            else:
                return

    # one command: subshell, group or simple command
    def parse_command(self, closers: frozenset[str]) -> str | None:
        raw = _Raw()
        at_start = True
        while True:
            self._blanks()
            if self.i >= len(self.s):
                break
            ch = self.s[self.i]
            if (ch == "\n" or ch in ";&|)") and not self.s.startswith("&>", self.i):
                break
            if ch == "(":
                if not at_start:
                    raise ShellLineError(
                        "`(` in the middle of a command (a function definition or pattern) is not supported."
                    )
                self.i += 1
                if self.i < len(self.s) and self.s[self.i] == "(":
                    raise ShellLineError("arithmetic `((…))` is not supported; send a plain command.")
                self._nested(frozenset({")"}), ")")
                self._trailing_redirects(raw)
                self._emit_redirect_only(raw)
                return None
            redirect = self._maybe_redirect()
            if redirect is not None:
                raw.redirects.append(redirect)
                continue
            start = self.i
            word, plain = self._word()
            if at_start and plain and not raw.assigns:
                text = word.text
                if text == "{":
                    self._nested(frozenset({"}"}), "}")
                    self._trailing_redirects(raw)
                    self._emit_redirect_only(raw)
                    return None
                if text == "}" and "}" in closers:
                    return "}"
                if text in _KEYWORDS_BEFORE_COMMAND:
                    continue
                if text in _KEYWORDS_ALONE:
                    self._trailing_redirects(raw)
                    self._emit_redirect_only(raw)
                    return None
                if text in _KEYWORDS_REFUSED:
                    raise ShellLineError(f"the shell keyword `{text}` is not supported; send plain commands.")
            if at_start and not raw.words:
                m = ASSIGN.match(self.s, start)
                if m and plain_assignment(self.s[start : self.i]):
                    raw.assigns.append((m.group(1), _value_of(word, m.group(1))))
                    continue
            raw.words.append(word)
            at_start = False
        if raw.words or raw.assigns or raw.redirects:
            self.found.append(SimpleCommand(tuple(raw.words), tuple(raw.assigns), tuple(raw.redirects)))
        return None

    def _nested(self, closers: frozenset[str], closer: str) -> None:
        inner = _Parser(self.s, self.depth + 1)
        inner.i = self.i
        end = inner.parse_list(closers)
        if end != closer:
            raise ShellLineError(f"`{'(' if closer == ')' else '{'}` is never closed with `{closer}`.", syntax=True)
        self.i = inner.i
        self.found.extend(inner.found)

    def _trailing_redirects(self, raw: _Raw) -> None:
        while True:
            self._blanks()
            r = self._maybe_redirect()
            if r is None:
                break
            raw.redirects.append(r)
        if self.i < len(self.s) and self.s[self.i] not in "\n;&|)":
            raise ShellLineError("words after a closed group or subshell are not supported.")

    def _emit_redirect_only(self, raw: _Raw) -> None:
        # A group's redirections apply to everything inside it; kept as a command of their own.
        if raw.redirects:
            self.found.append(SimpleCommand((), (), tuple(raw.redirects)))

    def _maybe_redirect(self) -> Redirect | None:
        s, i = self.s, self.i
        j = i
        while j < len(s) and s[j].isdigit():
            j += 1
        if j >= len(s):
            return None
        fd: int | None = int(s[i:j]) if j > i else None
        if s.startswith("&>>", j) and fd is None:
            op = "&>>"
        elif s.startswith("&>", j) and fd is None:
            op = "&>"
        elif s[j] in "<>":
            if s.startswith("<<", j):
                raise ShellLineError("here-documents (`<<`) are not supported; send one line.")
            if s.startswith("<(", j) or s.startswith(">(", j):
                raise ShellLineError("process substitution `<(…)` is not supported.")
            op = next(o for o in (">>", ">|", "<>", ">&", "<&", ">", "<") if s.startswith(o, j))
        else:
            return None
        self.i = j + len(op)
        self._blanks()
        if self.i >= len(s) or s[self.i] in _META:
            raise ShellLineError(f"the redirection `{op}` has no target.", syntax=True)
        target, _ = self._word()
        return Redirect(fd, op, target)

    # words
    def _word(self) -> tuple[Word, bool]:
        """One word from self.i; (the word, True when it had no quoting or expansion at all)."""
        s = self.s
        buf: list[str] = []
        literal = True
        plain = True
        start = self.i
        while self.i < len(s):
            ch = s[self.i]
            if ch in _META:
                break
            if ch == "\\":
                if self.i + 1 >= len(s):
                    raise ShellLineError("the command ends in a lone backslash.", syntax=True)
                nxt = s[self.i + 1]
                self.i += 2
                if nxt != "\n":
                    buf.append(nxt)
                plain = False
            elif ch == "'":
                end = s.find("'", self.i + 1)
                if end < 0:
                    raise ShellLineError("a single quote is never closed.", syntax=True)
                buf.append(s[self.i + 1 : end])
                self.i = end + 1
                plain = False
            elif ch == '"':
                self.i += 1
                text, lit = self._double_quoted()
                buf.append(text)
                literal = literal and lit
                plain = False
            elif ch == "$" and s.startswith("$'", self.i):
                self._ansi_c()
                buf.append("$'…'")
                literal = plain = False
            elif ch == "$" and s.startswith('$"', self.i):
                self.i += 2
                text, lit = self._double_quoted()
                buf.append(text)
                literal = literal and lit
                plain = False
            elif ch == "$":
                text, lit = self._dollar()
                buf.append(text)
                literal = literal and lit
                plain = plain and lit
            elif ch == "`":
                self._backticks()
                buf.append("`…`")
                literal = plain = False
            else:
                if (
                    ch in "*?"
                    or (ch == "[" and "]" in s[self.i + 1 : _word_end(s, self.i)])
                    or (ch == "~" and self.i == start)
                    or (ch in "{}" and (self.i > start or _ends_word(s, self.i + 1) is False))
                ):
                    literal = False
                buf.append(ch)
                self.i += 1
        if self.i == start:
            raise ShellLineError(f"unexpected `{s[start] if start < len(s) else 'end of line'}`.", syntax=True)
        text = "".join(buf)
        if text in ("{", "}") and plain:
            literal = True
        return Word(text, literal), plain and literal

    def _double_quoted(self) -> tuple[str, bool]:
        s = self.s
        buf: list[str] = []
        literal = True
        while True:
            if self.i >= len(s):
                raise ShellLineError("a double quote is never closed.", syntax=True)
            ch = s[self.i]
            if ch == '"':
                self.i += 1
                return "".join(buf), literal
            if ch == "\\" and self.i + 1 < len(s) and s[self.i + 1] in '$`"\\\n':
                if s[self.i + 1] != "\n":
                    buf.append(s[self.i + 1])
                self.i += 2
            elif ch == "$":
                text, lit = self._dollar()
                buf.append(text)
                literal = literal and lit
            elif ch == "`":
                self._backticks()
                buf.append("`…`")
                literal = False
            else:
                buf.append(ch)
                self.i += 1

    def _dollar(self) -> tuple[str, bool]:
        """`$…` at self.i: (text standing for it, literal?). A bare `$` is literal."""
        s, i = self.s, self.i
        nxt = s[i + 1] if i + 1 < len(s) else ""
        if nxt == "(":
            if s.startswith("$((", i):
                raise ShellLineError("arithmetic `$((…))` is not supported; send a plain command.")
            self.i = i + 2
            self._nested(frozenset({")"}), ")")
            return "$(…)", False
        if nxt == "{":
            end = s.find("}", i + 2)
            if end < 0:
                raise ShellLineError("`${` is never closed.", syntax=True)
            body = s[i + 2 : end]
            if not _BRACE_PARAM.match(body) or any(c in body for c in "`'\"\\({"):
                raise ShellLineError(
                    f"the expansion `${{{body}}}` is not supported (it could run code); use a plain $NAME."
                )
            self.i = end + 1
            return "${" + body + "}", False
        m = _NAME.match(s, i + 1)
        if m:
            self.i = m.end()
            return "$" + m.group(0), False
        if nxt and nxt in _SPECIAL_PARAM:
            self.i = i + 2
            return "$" + nxt, False
        self.i = i + 1
        return "$", True

    def _ansi_c(self) -> None:
        s = self.s
        j = self.i + 2
        while j < len(s):
            if s[j] == "\\":
                j += 2
                continue
            if s[j] == "'":
                self.i = j + 1
                return
            j += 1
        raise ShellLineError("a `$'` quote is never closed.", syntax=True)

    def _backticks(self) -> None:
        s = self.s
        j = self.i + 1
        buf: list[str] = []
        while j < len(s):
            ch = s[j]
            if ch == "\\" and j + 1 < len(s) and s[j + 1] in "`\\$":
                buf.append(s[j + 1])
                j += 2
                continue
            if ch == "`":
                inner = _Parser("".join(buf), self.depth + 1)
                self.found.extend(inner.parse_all())
                self.i = j + 1
                return
            buf.append(ch)
            j += 1
        raise ShellLineError("a backtick is never closed.", syntax=True)


def _word_end(s: str, j: int) -> int:
    while j < len(s) and s[j] not in _META:
        j += 1
    return j


def _ends_word(s: str, j: int) -> bool:
    return j >= len(s) or s[j] in _META


def plain_assignment(text: str) -> bool:
    return bool(ASSIGN.match(text))


def _value_of(word: Word, name: str) -> Word:
    prefix = name + "="
    return Word(word.text[len(prefix) :] if word.text.startswith(prefix) else word.text, word.literal)
