"""The shipped skills name only tools that exist, so a renamed tool breaks CI, not the model.

A skill body is read by the model as a procedure; a backticked tool name it cannot call
sends the model hunting for a tool that is not there. Every backticked name in a shipped
SKILL.md (and the files beside it) that looks like a tool must be a file in
prompts/tools/ or prompts/entries/ — the same names the model is offered.

What "looks like a tool": a bare snake_case name whose first word is a tool family
(phone_…, web_…, knowledge_…, skill_…, memory_…, the first word of any tool that exists,
such as ask_… or hand_…), or the one-word tool `wait`. Arguments are written with their
value (`direction: up`, `clear_first: true`), so they are not bare names and not taken
for tools; such a `name: value` span must be an argument some tool declares, with a value
its enum allows.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

from mika.knowledge.catalog import SkillCatalog

ROOT = Path(__file__).resolve().parents[2]
SKILLS = ROOT / "skills"
PROMPTS = ROOT / "prompts"

# Families of tools that other capabilities add (web pages, knowledge and skill lookup,
# memory): a name in them must exist as well, even before any of them ships.
FUTURE_FAMILIES = {"web", "knowledge", "skill", "skills", "memory", "profile", "file", "app"}
# The longest a body may be: the model reads it whole when it loads the skill.
BODY_MAX = 3000

_BACKTICKED = re.compile(r"`([^`\n]+)`")
_SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")


def tool_names() -> set[str]:
    return {p.stem for d in ("tools", "entries") for p in (PROMPTS / d).glob("*.md")}


def tool_parameters() -> dict[str, set[str]]:
    """Each argument name any tool takes → the values its enum allows (empty: any value).

    Read from the tools' own declarations (the JSON schema the model is given), so a
    renamed argument or enum value breaks this test, not the model's call.
    """
    import mika.cap.general as general
    import mika.cap.phone.tools as phone_tools

    out: dict[str, set[str]] = {}
    free: set[str] = set()
    for pkg in (phone_tools, general):
        for info in pkgutil.iter_modules(pkg.__path__):
            module = importlib.import_module(f"{pkg.__name__}.{info.name}")
            for _, cls in inspect.getmembers(module, inspect.isclass):
                params = getattr(cls, "parameters", None)
                if not isinstance(getattr(cls, "name", None), str) or not isinstance(params, dict):
                    continue
                for arg, schema in params.get("properties", {}).items():
                    enum = schema.get("enum") or (schema.get("items") or {}).get("enum")
                    if enum:
                        out.setdefault(arg, set()).update(str(v) for v in enum)
                    else:
                        free.add(arg)
    # an argument free in one tool takes any value there
    return {arg: (set() if arg in free else out.get(arg, set())) for arg in out.keys() | free}


_ARGUMENT = re.compile(r"^([a-z][a-z0-9_]*): (.+)$")


def bad_arguments(text: str, params: dict[str, set[str]]) -> list[str]:
    """Backticked `name: value` spans whose name no tool takes, or whose value its enum lacks."""
    bad = []
    for span in _BACKTICKED.findall(text):
        m = _ARGUMENT.match(span.strip())
        if not m:
            continue
        arg, value = m.group(1), m.group(2).strip()
        if arg not in params or (params[arg] and value not in params[arg]):
            bad.append(span.strip())
    return bad


def tool_families(names: set[str]) -> set[str]:
    return {n.split("_", 1)[0] for n in names if "_" in n} | FUTURE_FAMILIES


def tool_like(span: str, families: set[str]) -> bool:
    span = span.strip()
    if span == "wait":
        return True
    return bool(_SNAKE.match(span)) and span.split("_", 1)[0] in families


def unknown_tools(text: str, names: set[str]) -> list[str]:
    """The backticked tool-looking names in text that are not tools, in order of appearance."""
    families = tool_families(names)
    spans = [s.strip() for s in _BACKTICKED.findall(text)]
    return [s for s in spans if tool_like(s, families) and s not in names]


def shipped_catalog() -> SkillCatalog:
    return SkillCatalog.load([(SKILLS, "shipped")])


def shipped_skill_files() -> list[Path]:
    return sorted(SKILLS.glob("*/SKILL.md"))


def skill_texts() -> list[tuple[Path, str]]:
    """Every Markdown file of every shipped skill: SKILL.md and the files beside it."""
    return [(p, p.read_text(encoding="utf-8")) for d in sorted(SKILLS.iterdir()) if d.is_dir() for p in d.rglob("*.md")]


def test_the_tool_names_come_from_the_prompt_files():
    names = tool_names()
    # the names the skills rely on most; if these vanish, the prompt layout changed
    assert {"phone_launch_app", "phone_collect", "ask_user", "request_confirmation", "wait"} <= names


def test_at_least_ten_skills_ship():
    assert len(shipped_skill_files()) >= 10, [p.parent.name for p in shipped_skill_files()]


@pytest.mark.parametrize("path", shipped_skill_files(), ids=lambda p: p.parent.name)
def test_every_argument_a_skill_writes_is_one_a_tool_takes(path: Path):
    params = tool_parameters()
    for file in [path, *sorted(p for p in path.parent.rglob("*.md") if p != path)]:
        bad = bad_arguments(file.read_text(encoding="utf-8"), params)
        assert not bad, f"{file.relative_to(ROOT)} writes {bad}: no tool takes that argument or value"


@pytest.mark.parametrize("path", shipped_skill_files(), ids=lambda p: p.parent.name)
def test_every_tool_a_skill_names_exists(path: Path):
    names = tool_names()
    for file in [path, *sorted(p for p in path.parent.rglob("*.md") if p != path)]:
        bad = unknown_tools(file.read_text(encoding="utf-8"), names)
        assert not bad, (
            f"{file.relative_to(ROOT)} names {bad}, which are not tools (no prompts/tools/<name>.md "
            "or prompts/entries/<name>.md). Use the real tool's name, or write an argument with its value."
        )


def test_every_shipped_skill_loads_without_problems():
    catalog = shipped_catalog()
    assert catalog.problems == []
    assert sorted(s.name for s in catalog.skills()) == sorted(p.parent.name for p in shipped_skill_files())


@pytest.mark.parametrize("name", [p.parent.name for p in shipped_skill_files()])
def test_every_skill_names_real_tools_says_when_and_stays_short(name: str):
    skill = shipped_catalog().get(name)
    assert skill is not None
    used = {s.strip() for s in _BACKTICKED.findall(skill.body)} & tool_names()
    # a procedure for Mika's model says which tools do the steps
    assert len(used) >= 3, f"{name}: names only {sorted(used)}"
    assert len(skill.body) <= BODY_MAX, f"{name}: body is {len(skill.body)} characters (at most {BODY_MAX})"
    # the index shows only the description: it must tell the model when the skill fits
    assert "Use when" in skill.description, f"{name}: the description must say when to use the skill"


# A task as a user would type it → the skill the index search must offer first.
TASKS = [
    ("reply to Alice in WeChat saying I'm late", "reply-to-chat"),
    ("帮我回复张三的微信消息", "reply-to-chat"),
    ("export the last 50 messages of my chat with Bob", "export-chat-messages"),
    ("导出和妈妈的聊天记录", "export-chat-messages"),
    ("is the iPhone 16 cheaper on JD or Taobao", "compare-product-price"),
    ("京东和淘宝哪家便宜", "compare-product-price"),
    ("set an alarm for 7:30 on weekdays", "weekday-alarms"),
    ("工作日早上七点半的闹钟", "weekday-alarms"),
    ("fill in the address form from my note", "fill-form-from-note"),
    ("list all my orders into a table", "collect-list-to-table"),
    ("send the PDF to Mum on WhatsApp", "share-file-to-contact"),
    ("把这张照片发给李四", "share-file-to-contact"),
    ("where is my parcel", "check-parcel-status"),
    ("我的快递到哪了", "check-parcel-status"),
    ("what did I miss in the family group", "summarise-group-chat"),
    ("总结一下群聊", "summarise-group-chat"),
    ("turn on dark mode", "turn-setting-on-off"),
    ("add dinner with Tom on Friday at 7pm to my calendar", "add-event-from-message"),
    ("把周五的会议加到日历", "add-event-from-message"),
    ("add butter to my groceries note", "save-to-note"),
    ("记到备忘录里", "save-to-note"),
]


@pytest.mark.parametrize(("task", "expected"), TASKS)
def test_a_typical_task_finds_its_skill_first(task: str, expected: str):
    found = [s.name for s in shipped_catalog().search(task, limit=3)]
    assert found and found[0] == expected, f"{task!r} found {found}"


_PAYING = re.compile(r"\b(?:pay|paying|payment|buy|buying|purchase|checkout)\b", re.IGNORECASE)


@pytest.mark.parametrize("name", [p.parent.name for p in shipped_skill_files()])
def test_a_skill_that_speaks_of_paying_sends_the_payment_to_the_user(name: str):
    # Spending is the user's: Mika asks (request_confirmation) and the final pay is always
    # theirs (hand_to_user). A skill that talks about buying or paying must route it so,
    # so that no procedure teaches the model a way to pay on its own.
    skill = shipped_catalog().get(name)
    assert skill is not None
    if _PAYING.search(skill.body):
        for tool in ("request_confirmation", "hand_to_user"):
            assert f"`{tool}`" in skill.body, f"{name} speaks of paying but never names {tool}"


def test_files_a_skill_points_to_are_there():
    link = re.compile(r"\]\(([^)#:\s]+)\)")
    for path, text in skill_texts():
        for target in link.findall(text):
            assert (path.parent / target).is_file(), f"{path.relative_to(ROOT)} links to missing {target}"


# --- the check itself catches what it is there for -------------------------------------------


def test_a_renamed_or_invented_tool_is_caught():
    names = tool_names()
    body = "Open it with `phone_open_app`, then `phone_collect`, then `web_fetch_page` and `ask_users`."
    assert unknown_tools(body, names) == ["phone_open_app", "web_fetch_page", "ask_users"]


def test_a_tool_renamed_in_prompts_breaks_every_skill_that_names_it():
    names = tool_names() - {"phone_collect"}
    text = (SKILLS / "export-chat-messages" / "SKILL.md").read_text(encoding="utf-8")
    assert "phone_collect" in unknown_tools(text, names)


def test_arguments_values_and_prose_are_not_taken_for_tools():
    names = tool_names()
    body = (
        "`direction: up`, `clear_first: true`, `max_items`, `wait_stable: true`, `kind: rows`, "
        "`allow_while_using`, `login_incomplete`, `until`, `[photo]`, `phone_collect` "
        "and `wait` and `do_steps`"
    )
    assert unknown_tools(body, names) == []


def test_a_renamed_argument_or_enum_value_is_caught():
    params = tool_parameters()
    assert {"direction", "kind", "key", "clear_first", "max_screens", "until"} <= params.keys()
    text = "`direction: up`, `kind: rows`, `key: MOVE_END`, `direction: backwards`, `kind: table`, `screens: 5`"
    assert bad_arguments(text, params) == ["direction: backwards", "kind: table", "screens: 5"]


def test_odd_spacing_and_case_do_not_hide_a_wrong_name():
    names = tool_names()
    # a padded name is still that name; capitals are not a tool's spelling and are ignored
    assert unknown_tools("` phone_tapp `", names) == ["phone_tapp"]
    assert unknown_tools("`Phone_Tapp`", names) == []
