"""The knowledge and skill index: override order, lookups, matching a task, broken files."""

from pathlib import Path

from mika.knowledge.catalog import KnowledgeCatalog, SkillCatalog
from mika.search_terms import terms


def app(
    root: Path, folder: str, *, name: str = "App", packages: str = "", extra: str = "", body: str = "- note"
) -> Path:
    path = root / "apps" / folder / "APP.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"---\nid: {folder}\nname: {name}\npackages: [{packages or folder}]\n{extra}---\n{body}\n", encoding="utf-8"
    )
    return path


def site(root: Path, folder: str, domains: str, body: str = "- note") -> Path:
    path = root / "sites" / folder / "SITE.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nid: {folder}\nname: {folder}\ndomains: [{domains}]\n---\n{body}\n", encoding="utf-8")
    return path


def skill(root: Path, name: str, description: str = "Does a thing. Use when asked.", body: str = "# Steps") -> Path:
    path = root / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n{body}\n", encoding="utf-8")
    return path


def roots(tmp_path: Path) -> list[tuple[Path, str]]:
    return [(tmp_path / "user", "user"), (tmp_path / "shipped", "shipped")]


def test_the_users_file_wins_by_id_and_by_package(tmp_path):
    app(tmp_path / "shipped", "com.tencent.mm", name="WeChat", body="- shipped")
    app(tmp_path / "user", "com.tencent.mm", name="WeChat", body="- mine")
    app(tmp_path / "shipped", "com.example.shop", name="Shop", body="- shipped shop")
    # A user's file under another id that claims the shop's package takes the package.
    app(tmp_path / "user", "my-shop", name="My shop", packages="com.example.shop", body="- my shop")
    catalog = KnowledgeCatalog.load(roots(tmp_path))
    assert catalog.get("com.tencent.mm").body == "- mine"
    assert catalog.get("com.tencent.mm").origin == "user"
    assert "com.tencent.mm" in catalog.overridden
    assert catalog.for_package("com.example.shop").id == "my-shop"
    assert catalog.for_package("com.nobody") is None


def test_a_broken_file_is_left_out_with_its_file_and_line_and_the_rest_load(tmp_path):
    good = app(tmp_path / "shipped", "com.good.app")
    bad = app(tmp_path / "shipped", "com.bad.app", extra="pace: sometimes\n")
    wrong_id = tmp_path / "shipped" / "apps" / "com.wrong" / "APP.md"
    wrong_id.parent.mkdir(parents=True)
    wrong_id.write_text("---\nid: com.other\nname: X\npackages: [com.wrong]\n---\n- x\n", encoding="utf-8")
    binary = tmp_path / "shipped" / "apps" / "com.bin.app" / "APP.md"
    binary.parent.mkdir(parents=True)
    binary.write_bytes(b"---\nid: com.bin.app\xff\n---\n")
    catalog = KnowledgeCatalog.load(roots(tmp_path))
    assert [e.path for e in catalog.entries()] == [good]
    problems = {p.path: p for p in catalog.problems}
    assert problems[bad].line == 5 and "pace 'sometimes'" in problems[bad].message
    assert problems[wrong_id].line == 2 and "must equal its folder name" in problems[wrong_id].message
    assert "not UTF-8" in problems[binary].message


def test_fields_are_checked_at_their_line(tmp_path):
    cases = {
        "com.a.app": ("colour: red\n", 5, "unknown field 'colour'"),
        "com.b.app": ("verified: yes\n", 5, "true or false"),
        "com.c.app": ("domains: [a.com]\n", 5, "belongs in a SITE.md"),
        "com.d.app": ("skills: [Bad_Name]\n", 5, "not a skill name"),
    }
    for folder, (extra, _line, _says) in cases.items():
        app(tmp_path / "shipped", folder, extra=extra)
    app(tmp_path / "shipped", "com.e.app", packages="not a package")
    app(tmp_path / "shipped", "com.f.app", body="")
    catalog = KnowledgeCatalog.load(roots(tmp_path))
    by_folder = {p.path.parent.name: p for p in catalog.problems}
    for folder, (_extra, line, says) in cases.items():
        assert by_folder[folder].line == line, folder
        assert says in by_folder[folder].message
    assert "is not a package name" in by_folder["com.e.app"].message
    assert "body after the front matter is empty" in by_folder["com.f.app"].message
    assert catalog.entries() == []


def test_sites_are_found_by_host_or_url(tmp_path):
    site(tmp_path / "shipped", "taobao.com", "taobao.com, tmall.com")
    catalog = KnowledgeCatalog.load(roots(tmp_path))
    for where in (
        "taobao.com",
        "m.taobao.com",
        "https://s.taobao.com/search?q=1",
        "WWW.TMALL.COM.",
        "item.tmall.com/x",
    ):
        assert catalog.for_domain(where).id == "taobao.com", where
    for elsewhere in ("nottaobao.com", "taobao.com.evil.org", "https://evil.org/taobao.com", "com", ""):
        assert catalog.for_domain(elsewhere) is None, elsewhere


def test_a_task_names_apps_by_name_alias_or_package(tmp_path):
    shipped = tmp_path / "shipped"
    app(shipped, "com.tencent.mm", name="WeChat", extra="aliases: [微信, Weixin]\n")
    app(shipped, "com.tencent.mobileqq", name="QQ")
    app(shipped, "com.eg.clock", name="Clock", extra="aliases: [时钟, 闹钟]\n")
    catalog = KnowledgeCatalog.load(roots(tmp_path))

    def ids(text: str) -> list[str]:
        return [e.id for e in catalog.match_text(text)]

    assert ids("在微信里给妈妈发消息") == ["com.tencent.mm"]
    assert ids("set an alarm in Clock, then tell my QQ group") == ["com.eg.clock", "com.tencent.mobileqq"]
    assert ids("设置一个七点半的闹钟然后发微信") == ["com.eg.clock", "com.tencent.mm"]
    assert ids("open com.tencent.mm") == ["com.tencent.mm"]
    # Latin names need word edges: no QQ inside a word, no "Clock" inside "clockwork".
    assert ids("buy a clockwork toy at sqqr") == []
    assert ids("ＷＥＣＨＡＴ please") == ["com.tencent.mm"]  # full-width folds


def test_search_ranks_names_then_bodies_in_both_languages(tmp_path):
    shipped = tmp_path / "shipped"
    app(shipped, "com.eg.maps", name="Amap", extra="aliases: [高德地图]\n", body="- 搜索框在顶部; route planning")
    app(shipped, "com.eg.taxi", name="Didi", extra="aliases: [滴滴出行]\n", body="- book a ride from the map")
    catalog = KnowledgeCatalog.load(roots(tmp_path))
    assert [e.id for e in catalog.search("高德")] == ["com.eg.maps"]
    assert [e.id for e in catalog.search("ride")] == ["com.eg.taxi"]
    assert catalog.search("map")[0].id in ("com.eg.maps", "com.eg.taxi")
    assert catalog.search("") == [] and catalog.search("zzz") == []


def test_skills_user_then_learned_then_shipped_and_the_name_rules(tmp_path):
    user, learned, shipped = tmp_path / "user", tmp_path / "learned", tmp_path / "shipped"
    skill(shipped, "reply-to-chat", body="shipped")
    skill(learned, "reply-to-chat", body="learned")
    skill(user, "reply-to-chat", body="mine")
    skill(learned, "weekday-alarms", description="Alarms from a sentence. Use for alarms.")
    bad_names = ["Reply", "-x", "x-", "a--b", "a_b", "a" * 65]
    for name in bad_names:
        skill(shipped, name)
    too_long = skill(shipped, "long-one", description="x" * 1025)
    catalog = SkillCatalog.load([(user, "user"), (learned, "learned"), (shipped, "shipped")])
    assert catalog.get("reply-to-chat").body == "mine"
    assert catalog.get("weekday-alarms").origin == "learned"
    assert [s.name for s in catalog.skills()] == ["reply-to-chat", "weekday-alarms"]
    problems = {p.path.parent.name: p for p in catalog.problems}
    assert set(problems) == {*bad_names, "long-one"}
    assert all(problems[n].line == 2 for n in bad_names)
    assert "at most 1024" in problems[too_long.parent.name].message
    assert [s.name for s in catalog.search("alarm")] == ["weekday-alarms"]


def test_skill_files_beside_skill_md(tmp_path):
    path = skill(tmp_path / "shipped", "fill-form")
    (path.parent / "table.md").write_text("x", encoding="utf-8")
    (path.parent / "ref").mkdir()
    (path.parent / "ref" / "a.txt").write_text("x", encoding="utf-8")
    (path.parent / ".hidden").write_text("x", encoding="utf-8")
    catalog = SkillCatalog.load([(tmp_path / "shipped", "shipped")])
    assert catalog.get("fill-form").files() == ["ref/a.txt", "table.md"]


def test_terms_split_chinese_into_pairs_and_fold_width():
    assert terms("设置闹钟") == ["设置", "置闹", "闹钟"]
    assert terms("Ｗｉ-Ｆｉ and the 7:30 train") == ["wi-fi", "7", "30", "train"]
    assert terms("钟") == ["钟"]


def test_a_name_inside_a_longer_name_of_another_app_does_not_count(tmp_path):
    shipped = tmp_path / "shipped"
    app(shipped, "com.tencent.mm", name="WeChat", extra="aliases: [微信]\n")
    app(shipped, "com.tencent.wework", name="WeCom", extra="aliases: [企业微信]\n")
    app(shipped, "com.tencent.mobileqq", name="QQ")
    app(shipped, "com.tencent.qqmusic", name="QQ Music", extra="aliases: [QQ音乐]\n")
    catalog = KnowledgeCatalog.load(roots(tmp_path))

    def ids(text: str) -> list[str]:
        return [e.id for e in catalog.match_text(text)]

    assert ids("在企业微信里请假") == ["com.tencent.wework"]
    assert ids("用QQ音乐放歌") == ["com.tencent.qqmusic"]
    assert ids("play it on QQ Music") == ["com.tencent.qqmusic"]
    # Both named on their own: both count.
    assert ids("把企业微信的通知转到微信") == ["com.tencent.wework", "com.tencent.mm"]
    assert ids("QQ音乐和QQ") == ["com.tencent.qqmusic", "com.tencent.mobileqq"]
