"""Read-only scripts in Mika's isolated world (seed §6 只读脚本, line 166), against real Chromium.

Every attack runs on the probe page (`site/page/readonly.html`): it has a button whose
click handler fetches `/page/clicked`, a form posting to `/page/submitted`, a password field
with a value attribute and a typed value, a same-origin iframe, storage, a cookie, and
listeners that count the events and mutations the page sees. After each script the test
asserts the error code, that the page's server saw no request, and that nothing the page
can observe changed (its HTML, its counters, its address, its history, storage, cookie).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from mika.cap.web.isolated import RESULT_CAP_CHARS, _NetworkWatch, evaluate_isolated, world
from mika.cap.web.port import WebError
from tests.web.site_server import LocalSite

PAGE_STATE = """() => JSON.stringify({
  html: document.documentElement.outerHTML,
  clicks: window.pageClicks, events: window.pageEvents.join(','), mutations: window.pageMutations,
  messages: window.pageMessages, href: location.href, history: history.length,
  storage: localStorage.getItem('k'), storageKeys: localStorage.length, session: sessionStorage.length,
  cookie: document.cookie, name: window.name, title: document.title,
  user: document.getElementById('user').value, pw: document.getElementById('pw').value,
  frame: document.getElementById('frame').contentDocument.body.innerHTML,
  focused: document.activeElement && document.activeElement.id,
  selection: String(getSelection()), scroll: [scrollX, scrollY],
})"""


class Probe:
    """The probe page, its CDP session and what the page and its server looked like."""

    def __init__(self, page: Any, cdp: Any, site: LocalSite) -> None:
        self.page = page
        self.cdp = cdp
        self.site = site
        self.before: dict[str, Any] = {}
        self.seen_before = 0

    async def mark(self) -> None:
        self.before = json.loads(await self.page.evaluate(PAGE_STATE))
        self.seen_before = len(self.site.seen)

    async def run(self, script: str, timeout_s: float = 3.0) -> Any:
        return await evaluate_isolated(self.cdp, script, timeout_s=timeout_s)

    async def refused(self, script: str, codes: tuple[str, ...]) -> WebError:
        await self.mark()
        with pytest.raises(WebError) as caught:
            await self.run(script)
        assert caught.value.code in codes, f"{script!r}: {caught.value.code}: {caught.value}"
        await self.unchanged(script)
        return caught.value

    async def unchanged(self, script: str) -> None:
        # A round trip through the page's own world first: anything the script set going
        # (a navigation, a request) has been started by the time this answers.
        after = json.loads(await self.page.evaluate(PAGE_STATE))
        for key, value in self.before.items():
            assert after[key] == value, f"{script!r} changed the page's {key}: {value!r} → {after[key]!r}"
        new = [r.path for r in self.site.seen[self.seen_before :] if r.path != "/favicon.ico"]
        assert new == [], f"{script!r} reached the server: {new}"


@pytest.fixture
async def probe(raw_page: Any, site: LocalSite) -> Probe:
    await raw_page.goto(site.url("/page/readonly.html"))
    await raw_page.wait_for_function("document.getElementById('frame').contentDocument.readyState === 'complete'")
    await raw_page.fill("#pw", "typed-secret")
    cdp = await raw_page.context.new_cdp_session(raw_page)
    return Probe(raw_page, cdp, site)


# ---------------------------------------------------------------- reading works


async def test_reads_the_page_and_returns_values(probe: Probe) -> None:
    await probe.mark()
    assert await probe.run("document.title") == "Read-only probe"
    assert await probe.run("return document.querySelector('#h').textContent;") == "Order 42"
    assert await probe.run("document.title;") == "Read-only probe"  # a trailing semicolon is fine
    assert await probe.run("[...document.querySelectorAll('a')].map(a => ({text: a.textContent, href: a.href}))") == [
        {"text": "Next page", "href": probe.site.url("/page/target.html")}
    ]
    assert await probe.run("const r = document.querySelector('#h').getBoundingClientRect(); return r.width > 0") is True
    assert (
        await probe.run("await new Promise(r => setTimeout(r, 10)); return location.pathname") == "/page/readonly.html"
    )
    assert await probe.run("document.querySelector('#h')") == {"node": "h1", "text": "Order 42"}
    assert await probe.run("document.querySelectorAll('input').length") == 3
    assert await probe.run("localStorage.getItem('k') + document.cookie") == "vc=1"
    assert await probe.run("Array.from(document.forms[0].elements, e => e.name)") == ["user", "pw", ""]
    assert await probe.run("undefined") is None
    assert await probe.run("({a: 1, b: [1, 'x', null], c: {d: true}})") == {
        "a": 1,
        "b": [1, "x", None],
        "c": {"d": True},
    }
    assert await probe.run("NaN") == "NaN"
    # the language's and the window's own helpers, called by their bare names
    assert await probe.run("structuredClone({a: 1})") == {"a": 1}
    assert await probe.run("atob(btoa('ok'))") == "ok"
    assert await probe.run("queueMicrotask(() => 1); clearTimeout(0); return 'fine'") == "fine"
    assert await probe.run("getSelection().rangeCount >= 0 && getComputedStyle(document.body).display") == "block"
    assert await probe.run("Object.keys(window).includes('0')") is False  # frames by number are not listed
    assert await probe.run("Object.keys(window).length > 10") is True
    assert await probe.run("new URL(document.links[0].href).pathname") == "/page/target.html"
    assert await probe.run("Array.prototype.map.call(document.forms[0].elements, e => e.type)") == [
        "text",
        "password",
        "submit",
    ]
    await probe.unchanged("reads")


async def test_the_world_is_reused_while_the_document_lives_and_made_anew_after(probe: Probe) -> None:
    first = await world(probe.cdp)
    await probe.run("1")
    again = await world(probe.cdp)
    assert again.context_id == first.context_id
    await probe.page.goto(probe.site.url("/page/target.html"))
    assert await probe.run("document.title") == "Target"
    fresh = await world(probe.cdp)
    assert fresh.context_id != first.context_id


async def test_never_enables_the_runtime_domain(raw_page: Any, site: LocalSite) -> None:
    await raw_page.goto(site.url("/page/readonly.html"))
    session = await raw_page.context.new_cdp_session(raw_page)

    class Recording:
        """The real session, with the methods it was asked for written down."""

        def __init__(self) -> None:
            self.methods: list[str] = []

        async def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
            self.methods.append(method)
            return await session.send(method, params)

        def on(self, event: str, handler: Any) -> None:
            session.on(event, handler)

        def remove_listener(self, event: str, handler: Any) -> None:
            session.remove_listener(event, handler)

    cdp = Recording()
    assert await evaluate_isolated(cdp, "document.title", timeout_s=3) == "Read-only probe"
    with pytest.raises(WebError):
        await evaluate_isolated(cdp, "document.querySelector('#btn').click()", timeout_s=3)
    await raw_page.goto(site.url("/page/target.html"))
    assert await evaluate_isolated(cdp, "document.title", timeout_s=3) == "Target"
    assert "Runtime.enable" not in cdp.methods
    assert {m.split(".")[0] for m in cdp.methods} <= {"Page", "Runtime", "Network"}
    assert all(m in ("Runtime.evaluate",) for m in cdp.methods if m.startswith("Runtime."))
    assert "Page.createIsolatedWorld" in cdp.methods


# ---------------------------------------------------------------- writes, clicks, navigation

BLOCKED = [
    # clicks, submits, focus, events
    "document.querySelector('#btn').click()",
    "HTMLElement.prototype.click.call(document.querySelector('#btn'))",
    "Object.getPrototypeOf(Object.getPrototypeOf(document.querySelector('#btn'))).click.call(document.querySelector('#btn'))",
    "Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'click').value.call(document.querySelector('#btn'))",
    "Reflect.apply(HTMLElement.prototype.click, document.querySelector('#btn'), [])",
    "document.querySelectorAll('button').forEach(b => b.click())",
    "Array.prototype.forEach.call(document.querySelectorAll('button'), b => b.click())",
    "document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT, {acceptNode(n) { n.click(); return 1 }}).nextNode()",
    "try { document.querySelector('#btn').click() } catch (e) {} return 'swallowed'",
    "setTimeout(() => document.querySelector('#btn').click(), 0); await new Promise(r => setTimeout(r, 50)); return 1",
    "document.forms[0].submit()",
    "document.forms[0].requestSubmit()",
    "document.forms[0].reset()",
    "document.querySelector('#user').focus()",
    "document.querySelector('#user').select()",
    "document.querySelector('#btn').dispatchEvent(new MouseEvent('click', {bubbles: true}))",
    "document.dispatchEvent(new Event('custom'))",
    "EventTarget.prototype.dispatchEvent.call(document, new Event('custom'))",
    "document.addEventListener('click', () => 1)",
    # DOM writes
    "document.body.innerHTML = '<p>gone</p>'",
    "document.querySelector('#h').outerHTML = '<h2>x</h2>'",
    "document.querySelector('#user').value = 'mallory'",
    "Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(document.querySelector('#user'), 'x')",
    "document.querySelector('#h').textContent = 'changed'",
    "document.querySelector('#h').firstChild.data = 'changed'",
    "document.querySelector('#h').setAttribute('class', 'x')",
    "document.querySelector('#h').className = 'x'",
    "document.querySelector('#h').dataset.x = '1'",
    "document.querySelector('#h').mikaExpando = 1",
    "document.querySelector('#h').remove()",
    "document.body.appendChild(document.createElement('div'))",
    "document.body.append('text')",
    "document.querySelector('#h').insertAdjacentHTML('afterend', '<p>x</p>')",
    "document.querySelector('#h').classList.add('x')",
    "document.querySelector('#h').style.color = 'red'",
    "document.querySelector('#h').style.setProperty('color', 'red')",
    "document.querySelector('#h').attributes.id.value = 'y'",
    "Object.defineProperty(document.querySelector('#h'), 'x', {value: 1})",
    "delete document.querySelector('#h').id",
    "Object.setPrototypeOf(document.querySelector('#h'), null)",
    "document.title = 'x'",
    "document.designMode = 'on'",
    "document.write('<p>x</p>')",
    "document.open()",
    "document.execCommand('selectAll')",
    "getSelection().selectAllChildren(document.body)",
    "document.querySelector('#h').scrollIntoView()",
    "scrollTo(0, 500)",
    "document.adoptNode(document.querySelector('#h'))",
    "document.importNode(document.querySelector('#h'), true)",
    "document.querySelector('#h').cloneNode(true)",
    "document.createRange().selectNode(document.body) ?? document.createRange().deleteContents()",
    # navigation
    "location.href = '/page/target.html'",
    "location.assign('/page/target.html')",
    "location.replace('/page/target.html')",
    "location.reload()",
    "location.hash = 'x'",
    "location = '/page/target.html'",
    "window.location = '/page/target.html'",
    "window.location.href = '/page/target.html'",
    "document.location = '/page/target.html'",
    "document.location.href = '/page/target.html'",
    "Object.getOwnPropertyDescriptor(location, 'href').set.call(location, '/page/target.html')",
    "Object.getOwnPropertyDescriptor(location, 'assign').value.call(location, '/page/target.html')",
    "Object.getOwnPropertyDescriptor(window, 'location').get.call(undefined).assign('/page/target.html')",
    "new Text('x').ownerDocument.location.href = '/page/target.html'",
    "document.querySelector('#h').ownerDocument.defaultView.location.assign('/page/target.html')",
    "globalThis.top.location.href = '/page/target.html'",
    "top.location.assign('/page/target.html')",
    "parent.location.assign('/page/target.html')",
    "self.location.assign('/page/target.html')",
    "(0, eval)('location').href = '/page/target.html'",
    "eval('location.href = \"/page/target.html\"')",
    "[].constructor.constructor('return location')().href = '/page/target.html'",
    "(async function(){}).constructor('return location')().then(l => l.assign('/page/target.html'))",
    "history.pushState({}, '', '/page/pushed')",
    "history.replaceState({}, '', '/page/replaced')",
    "history.back()",
    "history.go(-1)",
    "open('/page/target.html')",
    "window.open('/page/target.html')",
    # other frames
    "frames[0].location.href = '/page/target.html'",
    "window[0].document.body.innerHTML = 'x'",
    "window.frames[0].innerClicks",
    "document.querySelector('#frame').contentWindow.location.href = '/page/target.html'",
    "document.querySelector('#frame').contentDocument.body.innerHTML = 'x'",
    "Object.getOwnPropertyDescriptor(HTMLIFrameElement.prototype, 'contentWindow').get.call(document.querySelector('#frame'))",
    "document.querySelector('#frame').src = '/page/target.html'",
    # document.all answers typeof "undefined": it must be wrapped all the same
    "document.all[0].ownerDocument.location.href = '/page/target.html'",
    "document.all.btn.click()",
    # messages, storage, cookies, globals
    "postMessage('hi', '*')",
    "window.postMessage('hi', '*')",
    "localStorage.setItem('k', 'changed')",
    "localStorage.k = 'changed'",
    "localStorage.removeItem('k')",
    "localStorage.clear()",
    "Storage.prototype.setItem.call(localStorage, 'k', 'changed')",
    "sessionStorage.setItem('a', 'b')",
    "document.cookie = 'c=2; path=/'",
    "Object.getOwnPropertyDescriptor(Document.prototype, 'cookie').set.call(document, 'c=3')",
    "window.name = 'x'",
    "window.leak = 1",
    "globalThis.onclick = () => 1",
]


async def test_writes_clicks_and_navigation_are_blocked(probe: Probe) -> None:
    for script in BLOCKED:
        err = await probe.refused(script, ("blocked", "blocked_network"))
        assert "web_evaluate_js" in str(err)
    # the page never saw a click, an event, a mutation, a message
    state = json.loads(await probe.page.evaluate(PAGE_STATE))
    assert state["clicks"] == 0 and state["messages"] == 0


async def test_function_return_this_gives_no_global(probe: Probe) -> None:
    await probe.mark()
    assert await probe.run("Function('return this')()") is None
    assert await probe.run("(function () { return this })()") is None
    assert await probe.run("typeof (0, eval)('this')") == "undefined"
    await probe.refused("Function('return this')().location.href = '/page/target.html'", ("script_error", "blocked"))
    await probe.refused("(() => this)().location.assign('/x')", ("script_error", "blocked"))


# ---------------------------------------------------------------- network

NETWORK = [
    "fetch('/page/leak')",
    "await fetch('/page/leak')",
    "window.fetch.call(window, '/page/leak')",
    "globalThis.fetch('/page/leak')",
    "document.defaultView.fetch('/page/leak')",
    "frames.fetch('/page/leak')",
    "Reflect.apply(fetch, undefined, ['/page/leak'])",
    "new XMLHttpRequest()",
    "navigator.sendBeacon('/page/leak', 'x')",
    "Navigator.prototype.sendBeacon.call(navigator, '/page/leak')",
    "new WebSocket('ws://127.0.0.1:9/')",
    "new EventSource('/page/leak')",
    "new Image().src = '/page/leak.png'",
    "const i = new Image(); i.src = '/page/leak.png'; return 1",
    "document.createElement('img').src = '/page/leak.png'",
    "document.createElement('img').srcset = '/page/leak.png 1x'",
    "document.createElement('img').setAttribute('src', '/page/leak.png')",
    "Object.getOwnPropertyDescriptor(HTMLImageElement.prototype, 'src').set.call(new Image(), '/page/leak.png')",
    "document.querySelector('#link').href = '/page/other'",
    "document.createElement('link').href = '/page/leak.css'",
    "document.createElement('script').src = '/page/leak.js'",
    "import('/page/leak.js')",
    "await import('/page/leak.js')",
    "await import /* hidden */ ('/page/leak.js')",
    "eval('imp' + 'ort(\"/page/leak.js\")')",
    "Function('return imp' + 'ort(\"/page/leak.js\")')()",
    "new Worker('/page/leak.js')",
    "new SharedWorker('/page/leak.js')",
    "new Audio('/page/leak.mp3')",
    "navigator.serviceWorker.register('/page/sw.js')",
]


async def test_network_is_blocked(probe: Probe) -> None:
    for script in NETWORK:
        err = await probe.refused(script, ("blocked_network",))
        assert "no network" in str(err)


async def test_the_network_watch_sees_requests_from_our_code_only(probe: Probe) -> None:
    # The watch is the last line: it recognises a request by the initiator stack of code we
    # evaluated. Evaluate a fetch straight in the page (outside the wrapper, tagged like our
    # code) and one tagged like the page's own: only the first is reported.
    async with _NetworkWatch(probe.cdp) as ours:
        await probe.cdp.send(
            "Runtime.evaluate",
            {
                "expression": "fetch('/page/watched').then(() => 1)\n//# sourceURL=mika-readonly-script.js",
                "awaitPromise": True,
            },
        )
        await probe.cdp.send(
            "Runtime.evaluate",
            {
                "expression": "fetch('/page/own').then(() => 1)\n//# sourceURL=https://shop.example/app.js",
                "awaitPromise": True,
            },
        )
    assert [u.rsplit("/", 1)[-1] for u in ours.urls] == ["watched"]


# ---------------------------------------------------------------- passwords


async def test_password_fields_read_as_stars_every_way(probe: Probe) -> None:
    await probe.mark()
    reads = {
        "document.getElementById('pw').value": "***",
        "document.getElementById('pw').getAttribute('value')": "***",
        "document.getElementById('pw').defaultValue": "***",
        "document.getElementById('pw').attributes.value.value": "***",
        "document.getElementById('pw').getAttributeNode('value').nodeValue": "***",
        "document.forms[0].elements.pw.value": "***",
        "new FormData(document.forms[0]).get('pw')": "***",
        "Object.fromEntries(new FormData(document.forms[0]))": {"user": "alice", "pw": "***"},
        "[...new FormData(document.forms[0]).values()]": ["alice", "***"],
        "Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').get.call(document.getElementById('pw'))": "***",
        "document.getElementById('user').value": "alice",
    }
    for script, want in reads.items():
        assert await probe.run(script) == want, script
    leaks = [
        "document.forms[0].outerHTML",
        "document.documentElement.outerHTML",
        "document.body.innerHTML",
        "new XMLSerializer().serializeToString(document)",
        "JSON.stringify([...document.querySelectorAll('input')].map(i => [i.value, i.defaultValue, i.getAttribute('value')]))",
        "document.body.getHTML ? document.body.getHTML() : ''",
    ]
    for script in leaks:
        text = await probe.run(script)
        assert "secret" not in text, f"{script!r} leaked a password: {text[:200]}"
    await probe.unchanged("password reads")
    # the page itself still has both (nothing was changed to hide them)
    assert await probe.page.evaluate("document.getElementById('pw').value") == "typed-secret"
    assert await probe.page.evaluate("document.getElementById('pw').getAttribute('value')") == "attr-secret"


# ---------------------------------------------------------------- the page never sees the world


async def test_the_page_never_sees_the_world(probe: Probe) -> None:
    await probe.mark()
    # The world does not see the page's variables either: two separate sets of objects.
    assert await probe.run("typeof window.pageClicks") == "undefined"
    assert await probe.run("typeof __mikaRO") == "undefined"  # the wrapper hides itself from scripts
    await probe.refused("window.mikaWasHere = 1", ("blocked",))
    assert await probe.page.evaluate("typeof window.mikaWasHere") == "undefined"
    assert await probe.page.evaluate("typeof window.__mikaRO") == "undefined"
    assert await probe.page.evaluate("Object.getOwnPropertyNames(window).filter(n => n.includes('mika'))") == []
    # The page's own prototypes are untouched by the world's lock.
    assert await probe.page.evaluate("HTMLElement.prototype.click.toString().includes('native code')")
    await probe.page.click("#btn")
    await probe.page.wait_for_function("window.pageClicks === 1")


# ---------------------------------------------------------------- errors, timeouts, size


async def test_script_errors_carry_the_js_error(probe: Probe) -> None:
    await probe.mark()
    cases = {
        "throw new Error('boom')": "boom",
        "nonexistentName.foo": "nonexistentName",
        "return (": "SyntaxError",
        "null.x": "TypeError",
        "leak = 1": "leak is not defined",  # strict code: no accidental globals
        "await Promise.reject(new RangeError('far'))": "far",
    }
    for script, word in cases.items():
        with pytest.raises(WebError) as caught:
            await probe.run(script)
        assert caught.value.code == "script_error", script
        assert word in str(caught.value), f"{script!r}: {caught.value}"
    with pytest.raises(WebError) as empty:
        await probe.run("   ")
    assert empty.value.code == "script_error"
    await probe.unchanged("errors")


async def test_a_runaway_loop_times_out_and_the_world_still_works(probe: Probe) -> None:
    for script in ("while (true) {}", "await 0; while (true) {}", "await new Promise(() => {})"):
        with pytest.raises(WebError) as caught:
            await probe.run(script, timeout_s=1.0)
        assert caught.value.code == "timeout", script
        assert "stopped" in str(caught.value)
        assert await probe.run("document.title") == "Read-only probe"


async def test_a_huge_result_is_cut_with_a_note(probe: Probe) -> None:
    out = await probe.run("'x'.repeat(200000)")
    assert isinstance(out, dict) and len(out["truncated"]) == RESULT_CAP_CHARS
    assert "200002 characters" in out["note"]
    assert await probe.run("'x'.repeat(1000)") == "x" * 1000


async def test_call_apply_bind_chains_are_judged_by_the_function_they_run(probe: Probe) -> None:
    for script in [
        "Object.getOwnPropertyDescriptor(location, 'assign').value.call(location, '/page/target.html')",
        "location.assign.call(location, '/page/target.html')",
        "location.assign.apply(location, ['/page/target.html'])",
        "location.assign.bind(location)('/page/target.html')",
        "location.replace.call.call(location.replace, location, '/page/target.html')",
        "Function.prototype.call.call(location.assign, location, '/page/target.html')",
        "Reflect.apply(location.assign, location, ['/page/target.html'])",
        "const a = location.assign; a('/page/target.html')",
        "Object.getOwnPropertyDescriptor(location, 'href').set.bind(location)('/page/target.html')",
        "fetch.call(null, '/page/leak')",
        "fetch.bind(null)('/page/leak')",
    ]:
        await probe.refused(script, ("blocked", "blocked_network"))


async def test_a_lost_context_is_made_anew(probe: Probe) -> None:
    # The world's context can vanish under a cached id (a document swapped between the
    # frame-tree check and the evaluation): "Cannot find context" → a new world, same answer.
    w = await world(probe.cdp)
    w.context_id = 987654
    assert await probe.run("document.title") == "Read-only probe"
    fresh = await world(probe.cdp)
    assert fresh.context_id != 987654
    await probe.refused("document.querySelector('#btn').click()", ("blocked",))  # the new world is locked too


async def test_value_attribute_selectors_are_no_oracle_for_a_password(probe: Probe, raw_page: Any) -> None:
    for script in [
        "document.querySelector('input[value^=\"a\"]')",
        "document.querySelectorAll('[value*=secret]').length",
        "document.forms[0].querySelector('[value$=t]')",
        "document.forms[0].matches(':has(input[value^=a])')",
        "document.getElementById('pw').closest('form:has([value^=attr])')",
        "document.evaluate(\"//input[starts-with(@value,'a')]\", document, null, 9, null).singleNodeValue",
        "new XPathEvaluator().evaluate(\"count(//input[@value='attr-secret'])\", document, null, 1, null).numberValue",
    ]:
        await probe.refused(script, ("blocked",))
    # Other selectors work, and value selectors work on a page with no password in an attribute.
    assert await probe.run("document.querySelectorAll('input[type=password]').length") == 1
    await raw_page.goto(probe.site.url("/page/article.html"))
    assert await probe.run("document.querySelectorAll('[value=\"x\"]').length") == 0


async def test_works_under_a_page_policy_that_forbids_eval(raw_page: Any, site: LocalSite) -> None:
    # The wrapper compiles scripts with eval inside Mika's world; the page's own CSP
    # (no 'unsafe-eval', no connections) governs the page's world, not ours.
    await raw_page.goto(site.url("/page/csp.html"))
    cdp = await raw_page.context.new_cdp_session(raw_page)
    assert await evaluate_isolated(cdp, "document.querySelector('h1').textContent", timeout_s=3) == (
        "A page that forbids eval"
    )
    assert await evaluate_isolated(cdp, "eval('1 + 1')", timeout_s=3) == 2
    with pytest.raises(WebError) as caught:
        await evaluate_isolated(cdp, "fetch('/page/leak')", timeout_s=3)
    assert caught.value.code == "blocked_network"


async def test_a_cross_origin_frame_is_out_of_reach(raw_page: Any, site: LocalSite) -> None:
    await raw_page.goto(site.url("/page/crossframe.html"))
    await raw_page.wait_for_function("document.querySelector('iframe') && document.querySelector('iframe').src")
    await raw_page.wait_for_load_state("load")
    frame_urls = [f.url for f in raw_page.frames[1:]]
    assert frame_urls and "localhost" in frame_urls[0]
    cdp = await raw_page.context.new_cdp_session(raw_page)
    seen = len(site.seen)
    for script in [
        "frames[0].location = '/page/target.html'",
        "window[0].location.replace('/page/target.html')",
        "window[0].postMessage('x', '*')",
        "document.querySelector('iframe').contentWindow.location.href = '/page/target.html'",
    ]:
        with pytest.raises(WebError) as caught:
            await evaluate_isolated(cdp, script, timeout_s=3)
        assert caught.value.code == "blocked", script
    # a numbered frame key is not even described
    assert await evaluate_isolated(cdp, "Object.getOwnPropertyDescriptor(window, '0')", timeout_s=3) is None
    await raw_page.evaluate("1")
    assert [f.url for f in raw_page.frames[1:]] == frame_urls
    assert [r.path for r in site.seen[seen:] if r.path != "/favicon.ico"] == []


async def test_the_caret_does_not_tell_a_passwords_length(probe: Probe) -> None:
    assert await probe.run(
        "[document.getElementById('pw').selectionStart, document.getElementById('pw').selectionEnd]"
    ) == [0, 0]
    # in the page's own world the caret sits after the 12 typed characters
    assert await probe.page.evaluate("document.getElementById('pw').selectionEnd") == len("typed-secret")
    assert isinstance(await probe.run("document.getElementById('user').selectionEnd"), int)
