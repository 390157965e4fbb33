"""run_bundled_script: a script beside a SKILL.md runs in the sandbox with its folder bound
read-only and the workspace as its folder; a script path out of the skill's folder is refused."""

from __future__ import annotations

import pytest

from mika.cap.sandbox import SandboxCapability
from mika.knowledge.catalog import SkillCatalog
from mika.tool.errors import BadArguments
from tests.sandbox.conftest import tool, tool_ctx


def _skills(root) -> SkillCatalog:
    folder = root / "sum-column"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: sum-column\ndescription: Sum a CSV column. Use when totals are asked.\n---\nRun scripts/total.py.\n"
    )
    (folder / "scripts" / "total.py").write_text(
        "import csv, sys\n"
        "rows = list(csv.DictReader(open(sys.argv[1])))\n"
        "print(sum(float(r[sys.argv[2]]) for r in rows))\n"
        "open('/opt/mika/bundle/scripts/total.py', 'a')\n"  # its own folder is read-only
    )
    (root / "secret.txt").write_text("outside the skill")
    return SkillCatalog.load([(root, "shipped")])


async def test_a_skills_script_runs_in_the_workspace_and_its_folder_is_read_only(port, workspace, tmp_path) -> None:
    cap = SandboxCapability(port, workspace, skills=_skills(tmp_path / "skills"), share_dir=tmp_path / "dl")
    (workspace.root / "r.csv").write_text("item,amount\ntea,3\ncake,4.5\n")
    run = tool(cap, "run_bundled_script")
    out = await run.run(
        {"source": "skill:sum-column", "script": "scripts/total.py", "args": ["r.csv", "amount"]}, tool_ctx(cap)
    )
    assert "7.5" in out.text
    assert "Read-only file system" in out.text and out.code == "command_failed"
    assert '<untrusted source="script"' in out.text
    # Bad arguments are raised as BadArguments (the dispatcher makes them a result the model reads).
    for bad in ("../secret.txt", "/etc/passwd", "scripts/../../secret.txt", "nope.py"):
        with pytest.raises(BadArguments) as refused:
            await run.run({"source": "skill:sum-column", "script": bad}, tool_ctx(cap))
        assert "skill:sum-column" in str(refused.value), bad
    with pytest.raises(BadArguments, match="skill:nope"):
        await run.run({"source": "skill:nope", "script": "x.py"}, tool_ctx(cap))
