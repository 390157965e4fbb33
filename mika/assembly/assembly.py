"""`Assembly`: the one place that builds runs, for every face (TUI, headless, later MCP,
`mika eval`, `mika serve`).

    settings -> secrets registered -> UI language -> models (roles) -> the phone (picked
    once) -> capabilities -> the run factory -> a TaskCenter with titles and stop summaries

    asm = Assembly.open(settings, device=..., model=...)
    center = asm.task_center(outbox=Outbox(asm.state_dir, [channel]))
    ...
    asm.close()

Strict (the default: headless and every scripted face) raises ConfigError / ModelError /
PhoneOpenError, before anything is started for a later step. `lenient=True` (the terminal
app) keeps a missing model or phone as `model_problem` / `device_problem` and opens anyway,
so the app can say how to set them up.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mika.assembly.capabilities import capabilities_for
from mika.assembly.environment import RunEnvironment
from mika.assembly.models import SelectedModels, select_models
from mika.config.errors import ConfigError
from mika.config.settings import PACES, PHONE_DISPLAYS, Settings
from mika.runtypes.spec import RunSpec

if TYPE_CHECKING:
    from mika.assembly.device import DeviceChoice
    from mika.assembly.live_display import DisplayVideo, LiveDisplay
    from mika.assembly.live_page import LivePage, LivePages
    from mika.cap.phone.display.input import DisplayInput, TaskMover
    from mika.knowledge.catalog import KnowledgeCatalog, SkillCatalog
    from mika.run.conversations import ConversationStore
    from mika.run.outbox import Outbox
    from mika.run.task_center import RunFactory, TaskCenter
    from mika.run.task_run import RunOptions, TaskRun
    from mika.run.tool_session import ToolSession
    from mika.tool.capability import Capability


def run_options(
    settings: Settings,
    models: SelectedModels,
    state_dir: Path | None,
    *,
    knowledge: KnowledgeCatalog | None = None,
    skills: SkillCatalog | None = None,
    **extra: Any,
) -> RunOptions:
    """The options every face's runs get from one settings file (a redactor per run is
    added by the factory). The outcome judge is a side call, and a scripted model's
    replies are the run's: it is off for them whatever the config says."""
    from mika.knowledge.app_pace import AppPace
    from mika.knowledge.learning.drafts import SkillDrafts, learned_skills_dir
    from mika.knowledge.learning.learning import SkillLearning
    from mika.memory.store import MemoryStore
    from mika.run.task_run import RunOptions

    memory = MemoryStore(state_dir / "memory.jsonl") if settings.memory_use and state_dir is not None else None
    return RunOptions(
        autonomous=settings.autonomous,
        pace=run_pace(settings),
        # One catalog for the pace, the run's knowledge and the lookup tools.
        app_pace=AppPace(catalog=knowledge),
        knowledge=knowledge,
        skills=skills,
        state_dir=state_dir,
        judge_outcome=settings.judge_outcome and not models.scripted,
        review_final_answer=settings.review_final_answer,
        # Outcomes of learned skills always; drafts only when [learning] skills is on, and
        # never from a scripted model (a side call would take one of the run's replies).
        # No state folder (nothing recorded): nothing learned either.
        learning=None
        if state_dir is None
        else SkillLearning(
            SkillDrafts(state_dir / "skill_drafts", learned_skills_dir()),
            () if models.scripted else (models.light, models.main),
            draft_skills=settings.learning_skills,
        ),
        memory=memory,
        # [run] replay (seed §9, off by default): routes recorded and replayed under state_dir.
        replay=settings.replay,
        # A side call, like the judge: a scripted model's replies are the run's.
        memory_extract=memory is not None and settings.memory_auto_extract and not models.scripted,
        **extra,
    )


def run_pace(settings: Settings) -> str:
    """The pace runs act at: the setting, unless the harness overrides it for evaluations
    and the test suite (`MIKA_RUN_PACE`, seed: evals default to fast) without touching the
    user's settings."""
    override = os.environ.get("MIKA_RUN_PACE")
    if override is None:
        return settings.pace
    if override not in PACES:
        raise ConfigError(None, "MIKA_RUN_PACE", "one of " + ", ".join(PACES), override)
    return override


def run_display(settings: Settings) -> str:
    """The display runs work on: `[phone] display`, unless the harness overrides it
    (`MIKA_RUN_DISPLAY`). `mika eval` sets "main": a task's scenario is prepared on the
    main screen (the app it opened is there, and Android draws the notification shade on
    display 0 only), and the phone is the evaluation's own, so no user's screen is taken.
    The user's setting is never touched."""
    override = os.environ.get("MIKA_RUN_DISPLAY")
    if override is None:
        return settings.phone_display
    if override not in PHONE_DISPLAYS:
        raise ConfigError(None, "MIKA_RUN_DISPLAY", "one of " + ", ".join(PHONE_DISPLAYS), override)
    return override


@dataclass
class Assembly:
    settings: Settings
    state_dir: Path
    models: SelectedModels | None
    device: DeviceChoice
    model_problem: Exception | None = None
    device_problem: str = ""
    # The live phone of each run made here, by run id: the faces' way to the run's display.
    live: dict[str, LiveDisplay] = field(default_factory=dict, repr=False)
    # The live browser page of each run with the web capability (its screencast), by run id.
    pages: LivePages | None = field(default=None, repr=False)
    # App/site knowledge and skills, read once per process (user files before shipped ones).
    knowledge: KnowledgeCatalog | None = field(default=None, repr=False)
    skills: SkillCatalog | None = field(default=None, repr=False)
    # Broken knowledge/skill files are told once, with the first run (then cleared).
    catalog_problems: list[str] = field(default_factory=list, repr=False)
    # The browser runs drive ("" : no web capability) and, when none could be found, why
    # (told once, with the first run, as a notice: the web is optional unless --web-only).
    browser: str = ""
    web_problem: str = ""
    # Whether runs get the sandbox ([sandbox] enabled and bubblewrap works here, probed once).
    sandbox: bool = False
    # The main model chosen at launch (`--model`), which beats the config's roles.main for
    # the whole session: a face that selects the models again (a saved config) keeps it.
    model_choice: str | None = None

    @classmethod
    def open(
        cls,
        settings: Settings,
        *,
        device: str | None = None,
        model: str | None = None,
        state_dir: Path | None = None,
        lenient: bool = False,
        start_sim: Callable[[], Any] | None = None,
        web_only: bool = False,
        prepare_models: bool = True,
        wait_for_phone: bool = True,
    ) -> Assembly:
        """`web_only` (`--web-only`): runs without a phone (no adb server is touched), and a
        browser that cannot be found is the error (NoBrowser) instead of a notice.
        `prepare_models=False`: the models' SDKs load at their first call, not here (the MCP
        face lists its tools first). `wait_for_phone=False` (strict only): a simulated phone
        may still be attaching when this returns; the caller's `device.wait_ready()` raises
        its PhoneOpenError (the MCP face answers its first requests meanwhile)."""
        from mika.assembly.device import DeviceChoice, phone_open_error
        from mika.assembly.sandbox import SandboxProbe
        from mika.cap.web.port import NoBrowser
        from mika.config.language import set_language
        from mika.config.paths import state_dir as default_state_dir
        from mika.config.secret_discovery import register_configured_secrets
        from mika.model.errors import ModelError

        # Secrets first: any error sentence from here on is scrubbed of the keys.
        register_configured_secrets(settings)
        set_language(settings.ui_language)  # texts the core writes into runs (stop, recovery)
        sdir = state_dir or default_state_dir()
        wanted = "none" if web_only else (device or settings.device or None)
        sandbox = SandboxProbe(settings)  # answered below, once everything else is set up
        # The simulated phone attaches in the background while the models load; its
        # errors are still told after the models' (wait_ready below, or the first run).
        early: DeviceChoice | None = None
        if wanted == "sim":
            try:
                early = DeviceChoice.open(wanted, sdir, lenient=lenient, start_sim=start_sim)
            except phone_open_error():
                early = None  # raised again, in its usual place, by the open below
        models: SelectedModels | None = None
        problem: Exception | None = None
        try:
            models = select_models(settings, model, sdir)
            if prepare_models:
                models.prepare()
        except (ConfigError, ModelError) as exc:
            if not lenient:
                if early is not None:
                    early.close()
                raise
            problem = exc
        phone: DeviceChoice | None = early
        try:
            if phone is None:
                phone = DeviceChoice.open(wanted, sdir, lenient=lenient, start_sim=start_sim)
            device_problem = ""
            if not lenient and wait_for_phone:  # headless: a phone that cannot be had is its exit code, before the run
                phone.wait_ready()
        except phone_open_error() as exc:
            if phone is not None:
                phone.close()
            if not lenient:
                if models is not None:
                    models.close()
                raise
            phone, device_problem = DeviceChoice(sdir, start_sim=start_sim), str(exc)
        try:
            browser, web_problem = _browser(settings, web_only=web_only)
        except NoBrowser:
            phone.close()
            if models is not None:
                models.close()
            raise
        asm = cls(
            settings,
            sdir,
            models,
            phone,
            problem,
            device_problem,
            browser=browser,
            web_problem=web_problem,
            model_choice=model or None,
        )
        asm.load_catalogs()
        if web_problem:
            from mika.assembly.web import no_browser_notice

            asm.catalog_problems.append(no_browser_notice(web_problem))
        from mika.assembly.sandbox import no_sandbox_notice

        sandbox_why = sandbox.result()
        asm.sandbox = sandbox_why == ""
        if sandbox_why:
            asm.catalog_problems.append(no_sandbox_notice(sandbox_why))
        return asm

    def load_catalogs(self) -> None:
        """Read the knowledge and skill folders once; a broken file is skipped, named
        (file and line) in `catalog_problems` for the first run to tell the user."""
        from mika.knowledge.catalog import KnowledgeCatalog, SkillCatalog
        from mika.run.ui_text import t

        self.knowledge = KnowledgeCatalog.load()
        self.skills = SkillCatalog.load()
        self.catalog_problems = [
            t("knowledge_skipped", problem=str(p)) for p in (*self.knowledge.problems, *self.skills.problems)
        ]

    # -- runs ---------------------------------------------------------------------------------

    def run_options(self) -> RunOptions:
        assert self.models is not None, "no model: check model_problem before making runs"
        return run_options(self.settings, self.models, self.state_dir, knowledge=self.knowledge, skills=self.skills)

    def make_run(self, spec: RunSpec) -> TaskRun:
        """The run factory: one TaskRun for `spec`, on the phone chosen now."""
        from mika.run.task_run import TaskRun

        assert self.models is not None, "no model: check model_problem before making runs"
        caps, options = self._run_parts(spec)
        run = TaskRun(spec, self.models.main, caps, options, light=self.models.light)
        live = bind_phone(caps, run.emit, spec)
        if live is not None:
            self.live[spec.id] = live
        return run

    def make_tool_session(self, spec: RunSpec, *, display: str = "main") -> ToolSession:
        """A run without a model, for tool calls from outside a model turn (the MCP
        server's phone tools): the same capabilities, options and record as `make_run`'s,
        each call through the same action entry (mika.run.tool_session). It works on the
        phone's main screen by default: a client driving the phone itself sees and acts
        on what the person sees, not on a display of its own."""
        from mika.cap.phone import PhoneCapability
        from mika.run.tool_session import ToolSession

        caps, options = self._run_parts(spec, display=display)
        for cap in caps:
            if isinstance(cap, PhoneCapability):
                cap.reader.deltas = False  # the client has no observation ids to resolve a delta
        session = ToolSession(spec, caps, options)
        live = bind_phone(caps, session.emit, spec)
        if live is not None:
            self.live[spec.id] = live
        return session

    def _run_parts(self, spec: RunSpec, *, display: str | None = None) -> tuple[list[Capability], RunOptions]:
        from dataclasses import replace

        from mika.assembly.children import AssemblyChildRuns, child_parts
        from mika.record.redactor import Redactor
        from mika.runtypes.spec import RunOrigin

        assert self.models is not None, "no model: check model_problem before making runs"
        # One redactor per run: what the phone types into a password field is masked in
        # that run's record.
        redactor = Redactor()
        phone = self.device
        display = display or run_display(self.settings)
        keep = self.settings.keep_apps_after_run
        vision = self.models.vision

        def opener() -> Capability:
            return phone.capability(
                redact=redactor.add_secret,
                display=display,
                keep_apps=keep,
                vision=vision,
                pace=run_pace(self.settings),
                picture_long_side=self.settings.picture_long_side,
                picture_format=self.settings.picture_format,
            )

        told, self.catalog_problems = tuple(self.catalog_problems), []
        options = replace(self.run_options(), redactor=redactor, start_notices=told)
        web = None
        if self.browser:
            from mika.assembly.web import web_opener

            web = web_opener(
                self.settings,
                self.state_dir,
                browser=self.browser,
                pace=run_pace(self.settings),
                redact=redactor.add_secret,
                vision=vision,
                images=_sees_images(self.models.main),
            )
        mcp = None
        if any(s.enabled for s in self.settings.mcp_servers):
            from mika.assembly.mcp import mcp_opener

            mcp = mcp_opener(self.settings, redact=redactor.add_secret, images=_sees_images(self.models.main))
        sandbox = None
        if self.sandbox:
            from mika.assembly.sandbox import sandbox_opener

            sandbox = sandbox_opener(self.settings, self.state_dir, knowledge=self.knowledge, skills=self.skills)
        env = RunEnvironment(
            autonomous=self.settings.autonomous,
            state_dir=self.state_dir,
            phone=opener if phone.serial else None,
            web=web,
            sandbox=sandbox,
            mcp=mcp,
            memory=options.memory,
            knowledge=self.knowledge,
            skills=self.skills,
            children=AssemblyChildRuns(self.make_run),
        )
        if spec.provenance.origin is RunOrigin.CHILD:  # web and sandbox only, nothing kept
            env, options = child_parts(env, options)
        return capabilities_for(spec, env), options

    # -- a run's display, for the faces (preview, takeover) ------------------------------------

    def display_video(self, run_id: str) -> DisplayVideo | None:
        """The decoded video of the run's own display (one decoder per display, shared);
        None while it has none. Blocks briefly; the TUI calls it from a worker."""
        live = self.live.get(run_id)
        return live.video() if live is not None else None

    def display_input(self, run_id: str) -> DisplayInput | None:
        """The user's hands on the run's display N (control socket, else `input -d N`)."""
        live = self.live.get(run_id)
        return live.input() if live is not None else None

    def task_mover(self, run_id: str) -> TaskMover | None:
        live = self.live.get(run_id)
        return live.mover() if live is not None else None

    async def mend_display(self, run_id: str) -> bool:
        """A run's display whose preview went black is checked (and made again if the
        phone powered it off) now, while the run waits; True when it was made again."""
        live = self.live.get(run_id)
        return await live.mend() if live is not None else False

    async def display_taken(self, run_id: str) -> None:
        """The user took the run's display over (takeover card): the run's end keeps its
        app, and the app's sound is given back now."""
        live = self.live.get(run_id)
        if live is not None:
            await live.user_took_over()

    def run_ended(self, run_id: str) -> None:
        """The run is over: its decoder stops and it is forgotten here."""
        live = self.live.pop(run_id, None)
        if live is not None:
            live.close()

    def page_frames(self, run_id: str, capabilities: Any = ()) -> LivePage | None:
        """The newest screencast picture of the run's browser page (the run's web
        capability, from `capabilities`; kept by run id after the first ask), its
        screencast started; None when the run has no web capability. Called on the run's
        event loop (the port's objects live there). `page_ended` stops it."""
        from mika.assembly.live_page import LivePages

        if self.pages is None:
            self.pages = LivePages()
        return self.pages.frames(run_id, capabilities)

    def page_ended(self, run_id: str) -> None:
        """The run is over (or no preview watches its page): its screencast stops."""
        if self.pages is not None:
            self.pages.ended(run_id)

    @property
    def run_factory(self) -> RunFactory | None:
        return self.make_run if self.models is not None else None

    def task_center(
        self,
        *,
        outbox: Outbox,
        factory: RunFactory | None = None,
        conversations: ConversationStore | None = None,
        limit: int | None = None,
    ) -> TaskCenter:
        """The TaskCenter for this face: `factory` may wrap `make_run` (the TUI keeps its
        runs); titles and stop summaries come from the assembly's models."""
        from mika.assembly.aftercare import RecordStopSummary, TitleMaker
        from mika.run.task_center import TaskCenter

        assert self.models is not None, "no model: check model_problem before making runs"
        side = () if self.models.scripted else (self.models.light, self.models.main)
        return TaskCenter(
            factory or self.make_run,
            state_dir=self.state_dir,
            conversations=conversations,
            outbox=outbox,
            limit=self.settings.max_parallel if limit is None else limit,
            stop_summary=RecordStopSummary(side, self.state_dir) if side else None,
            title_maker=TitleMaker(side) if side else None,
        )

    def close(self) -> None:
        for run_id in list(self.live):
            self.run_ended(run_id)
        try:
            self.device.close()
        finally:
            if self.models is not None:
                self.models.close()


def _browser(settings: Settings, *, web_only: bool) -> tuple[str, str]:
    """(the browser runs drive, why there is none). `[web] enabled = false` leaves the web
    out quietly, unless the run asked for the web only; a missing browser is a notice,
    unless web only, where it is raised (NoBrowser: the headless exit 3)."""
    if not settings.web_enabled and not web_only:
        return "", ""
    from mika.assembly.web import find_run_browser
    from mika.cap.web.port import NoBrowser

    try:
        return find_run_browser(settings), ""
    except NoBrowser as exc:
        if web_only:
            raise
        return "", str(exc)


def _sees_images(model: Any) -> bool:
    # The page's picture (web_screenshot) only for a main model that takes images.
    return bool(getattr(model, "supports_images", False))


def bind_phone(caps: list[Any], emit: Callable[[Any], None], spec: RunSpec) -> LiveDisplay | None:
    """The phone's display notices and events go into the run's own stream; a read-only
    run works on the main screen and makes no display. Returns the run's live phone."""
    if not any(getattr(cap, "id", "") == "phone" for cap in caps):
        return None  # no phone in this run: the phone stack is not loaded for the check
    from mika.assembly.live_display import LiveDisplay
    from mika.cap.phone import PhoneCapability

    live = None
    # A read-only run with Mika's browser reads web links there instead of on the phone.
    browser = any(getattr(cap, "id", "") == "web" for cap in caps)
    for cap in caps:
        if isinstance(cap, PhoneCapability):
            cap.bind_run(emit, spec.id, spec.conversation_id, read_only=spec.read_only, links_in_browser=browser)
            live = LiveDisplay(cap)
    return live
