// Mika's read-only script world (seed §6 只读脚本, core/cap/web/ReadScript.kt).
//
// Evaluated once into Mika's isolated world ("mika") of a page's main frame; it defines
// `__mikaRO` there and returns. An isolated world shares the DOM with the page but has its
// own JavaScript objects, so everything below changes only Mika's view: the page's scripts
// never see it. Three layers, each enough for the common routes, together for the odd ones:
//
// 1. The world is locked: in this world the DOM's setters, mutating methods, event
//    dispatch, clicks, focus, storage and cookie writes, history and window.open throw
//    `blocked`; fetch, XMLHttpRequest, sendBeacon, WebSocket, EventSource, workers and
//    setting src/href-like properties throw `blocked_network`; password inputs read as
//    "***" (value, defaultValue, the value attribute, serialised HTML, FormData); the
//    Function constructors and eval compile into the sandbox below; the language's own
//    objects are frozen so a script cannot rewrite what this code relies on.
// 2. A script sees the page only through a membrane: every page object reaches it as a
//    proxy whose writes throw, whose mutating methods throw, and whose results are proxies
//    again. Location (its members cannot be redefined), other frames (window[0], frames,
//    an iframe's contentWindow) and named storage writes are stopped here.
// 3. Scripts are compiled in a `with` scope that answers every global name, so no name
//    reaches the real global object; `this` is undefined; `import()` is refused before
//    the script runs. (The Python side also watches the Network domain while it runs.)
//
// A blocked attempt throws inside the script and is also recorded: a script that catches
// the error still fails with that code.
(function installMikaReadOnly() {
  // Sloppy on purpose: the evaluator needs `with` and a direct eval.
  const G = globalThis;
  if (Object.prototype.hasOwnProperty.call(G, "__mikaRO")) return "present";

  // ------------------------------------------------------------ primordials
  const R = Reflect;
  const ObjectCtor = Object;
  const apply = R.apply;
  const construct = R.construct;
  const ObjectCreate = Object.create;
  const defineProperty = Object.defineProperty;
  const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const getOwnPropertyNames = Object.getOwnPropertyNames;
  const getPrototypeOf = Object.getPrototypeOf;
  const freeze = Object.freeze;
  const ObjectToString = Object.prototype.toString;
  const hasOwn = Object.prototype.hasOwnProperty;
  const realEval = G.eval;
  const RealFunction = G.Function;
  const RealProxy = G.Proxy;
  const RealWeakMap = G.WeakMap;
  const RealSet = G.Set;
  const RealError = G.Error;
  const realSetTimeout = G.setTimeout;
  const realClearTimeout = G.clearTimeout;
  const realSetInterval = G.setInterval;
  const realClearInterval = G.clearInterval;
  const realRaf = G.requestAnimationFrame;
  const realCancelRaf = G.cancelAnimationFrame;
  const realRic = G.requestIdleCallback;
  const realCancelRic = G.cancelIdleCallback;
  const JSONstringify = JSON.stringify;
  const realDocument = G.document;
  const realLocation = G.location;
  const tagOf = (v) => apply(ObjectToString, v, []);

  // ------------------------------------------------------------ violations
  let current = null; // the running call: {violation: {code, what} | null, timers: Set}

  class Blocked extends RealError {}
  const blockedMark = new RealWeakMap();

  function refuse(code, what) {
    if (current && !current.violation) current.violation = { code, what };
    const e = new Blocked(`${code}: ${what}`);
    blockedMark.set(e, true);
    throw e;
  }
  const blocked = (what) => refuse("blocked", what);
  const blockedNet = (what) => refuse("blocked_network", what);

  // Property names that load something when set (an image, a frame, a script, a form's
  // target): setting them is a network attempt, not just a write.
  const URL_PROPS = new RealSet([
    "src", "srcset", "href", "action", "formAction", "data", "poster", "background", "ping",
    "codebase", "archive", "lowsrc", "longDesc", "imageSrcset", "srcdoc",
  ]);
  const URL_ATTRS = new RealSet([
    "src", "srcset", "href", "action", "formaction", "data", "poster", "background", "ping",
    "xlink:href", "imagesrcset", "srcdoc", "codebase", "archive", "lowsrc", "longdesc",
  ]);
  // Methods of page objects that change the page, its state or the user's session.
  const MUTATORS = new RealSet([
    "click", "submit", "requestSubmit", "reset", "focus", "blur", "dispatchEvent",
    "addEventListener", "removeEventListener", "appendChild", "insertBefore", "removeChild",
    "replaceChild", "normalize", "cloneNode", "importNode", "adoptNode", "after", "before",
    "append", "prepend", "remove", "replaceWith", "replaceChildren", "moveBefore",
    "insertAdjacentElement", "insertAdjacentHTML", "insertAdjacentText", "setHTMLUnsafe",
    "setHTML", "setAttribute", "setAttributeNS", "setAttributeNode", "setAttributeNodeNS",
    "removeAttribute", "removeAttributeNS", "removeAttributeNode", "toggleAttribute",
    "attachShadow", "attachInternals", "animate", "scrollIntoView", "scrollIntoViewIfNeeded",
    "scroll", "scrollTo", "scrollBy", "requestFullscreen", "exitFullscreen", "requestPointerLock",
    "setPointerCapture", "releasePointerCapture", "showPopover", "hidePopover", "togglePopover",
    "show", "showModal", "close", "play", "pause", "load", "fastSeek", "addTextTrack",
    "select", "setRangeText", "setSelectionRange", "setCustomValidity", "stepUp", "stepDown",
    "showPicker", "checkValidity", "reportValidity", "appendData", "deleteData", "insertData",
    "replaceData", "splitText", "add", "toggle", "replace", "setNamedItem", "setNamedItemNS",
    "removeNamedItem", "removeNamedItemNS", "setProperty", "removeProperty", "insertRule",
    "deleteRule", "addRule", "removeRule", "replaceSync", "deleteContents", "extractContents",
    "insertNode", "surroundContents", "createContextualFragment", "addRange", "removeAllRanges",
    "removeRange", "collapse", "collapseToStart", "collapseToEnd", "extend", "selectAllChildren",
    "setBaseAndExtent", "deleteFromDocument", "modify", "empty", "setPosition", "pushState",
    "replaceState", "back", "forward", "go", "navigate", "reload", "assign", "setItem",
    "removeItem", "clear", "open", "write", "writeln", "execCommand", "define", "writeText",
    "set", "delete", "put", "postMessage", "share", "vibrate", "print", "alert", "confirm",
    "prompt", "stop", "moveTo", "moveBy", "resizeTo", "resizeBy", "startViewTransition",
    "requestStorageAccess", "registerProtocolHandler", "setCapture", "transferControlToOffscreen",
    "requestPermission", "deleteDatabase", "setSinkId", "setMediaKeys", "captureStream",
    "find", "cloneContents", "traverseTo", "updateCurrentEntry", "speak",
    // the user's devices and clipboard: not the page's to read for a script
    "readText", "getCurrentPosition", "watchPosition", "getUserMedia", "getDisplayMedia",
    "requestDevice", "requestPort", "showOpenFilePicker", "showSaveFilePicker", "showDirectoryPicker",
  ]);
  const NET_METHODS = new RealSet([
    "fetch", "fetchLater", "sendBeacon", "send", "register", "addModule", "addAll",
  ]);
  const NET_CONSTRUCTORS = [
    "XMLHttpRequest", "WebSocket", "WebSocketStream", "EventSource", "Worker", "SharedWorker",
    "RTCPeerConnection", "webkitRTCPeerConnection", "WebTransport",
  ];
  const BLOCKED_CONSTRUCTORS = ["Notification", "PaymentRequest", "PresentationRequest", "BroadcastChannel"];

  // ------------------------------------------------------------ passwords
  const inputType = getOwnPropertyDescriptor(HTMLInputElement.prototype, "type").get;
  const isPassword = (el) => {
    try {
      return el instanceof HTMLInputElement && apply(inputType, el, []) === "password";
    } catch (_) {
      return false;
    }
  };
  const realQueryAll = Element.prototype.querySelectorAll;
  const docQueryAll = Document.prototype.querySelectorAll;
  const fragQueryAll = DocumentFragment.prototype.querySelectorAll;
  const realGetAttribute = Element.prototype.getAttribute;
  const realHasAttribute = Element.prototype.hasAttribute;
  const realMatches = Element.prototype.matches;
  const attrOwner = getOwnPropertyDescriptor(Attr.prototype, "ownerElement").get;
  const attrName = getOwnPropertyDescriptor(Attr.prototype, "localName").get;
  const MASK = "***";

  // Password values that stand in the HTML (a value attribute) are masked in serialised HTML.
  function maskHtml(root, html) {
    if (typeof html !== "string" || !html) return html;
    let fields;
    try {
      const qsa = root instanceof Document ? docQueryAll : root instanceof DocumentFragment ? fragQueryAll : realQueryAll;
      fields = apply(qsa, root, ['input[type="password" i][value]']);
    } catch (_) {
      return html;
    }
    let out = html;
    const all = [];
    if (root instanceof Element && isPassword(root)) all.push(root);
    for (let i = 0; i < fields.length; i++) all.push(fields[i]);
    for (const f of all) {
      const v = apply(realGetAttribute, f, ["value"]);
      if (v) {
        for (const form of [v, v.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;")]) {
          out = out.split(form).join(MASK);
        }
      }
    }
    return out;
  }

  // ------------------------------------------------------------ 1. lock the world
  // `open`: the password patches stay configurable so the lock can still replace setters.
  function patchValue(obj, key, fn, open) {
    const d = getOwnPropertyDescriptor(obj, key);
    if (!d || !d.configurable) return;
    defineProperty(obj, key, { value: fn, writable: false, enumerable: d.enumerable, configurable: !!open });
  }
  function patchAccessor(obj, key, getter, setter, open) {
    const d = getOwnPropertyDescriptor(obj, key);
    if (!d || !d.configurable) return;
    defineProperty(obj, key, {
      get: getter === undefined ? d.get : getter,
      set: setter === undefined ? d.set : setter,
      enumerable: d.enumerable,
      configurable: !!open,
    });
  }
  // A plain `function` so that `new` on a blocked constructor reaches the refusal too.
  function blocker(name, net) {
    const fn = function () {
      return net ? blockedNet(`${name}()`) : blocked(`${name}()`);
    };
    defineProperty(fn, "name", { value: name });
    return fn;
  }

  const DOM_INTERFACE =
    /^(HTML.*|SVG.*|MathML.*|Node|Element|Document|XMLDocument|DocumentFragment|ShadowRoot|CharacterData|Text|Comment|ProcessingInstruction|CDATASection|Attr|NamedNodeMap|DOMTokenList|DOMStringMap|CSSStyleDeclaration|CSS.*Rule|CSSRuleList|CSSStyleSheet|StyleSheet|MediaList|Range|AbstractRange|StaticRange|Selection|History|Navigation|Storage|EventTarget|Navigator|Screen|XMLHttpRequest|XMLHttpRequestEventTarget|FontFace|FontFaceSet|Cache|CacheStorage|IDB.*|Clipboard|CustomElementRegistry|Worklet|AudioWorklet|MessagePort|BroadcastChannel|ServiceWorkerContainer|CookieStore|VisualViewport|Notification|MediaSession|ElementInternals|TextTrack|MediaSource|SourceBuffer|RemotePlayback|PresentationRequest|Permissions|WakeLock|LockManager|StorageManager|FileSystem.*Handle|ViewTransition|CloseWatcher|EditContext)$/;

  function lockPrototype(proto) {
    for (const key of getOwnPropertyNames(proto)) {
      if (key === "constructor") continue;
      const d = getOwnPropertyDescriptor(proto, key);
      if (!d || !d.configurable) continue;
      if (typeof d.value === "function") {
        if (NET_METHODS.has(key)) patchValue(proto, key, blocker(key, true));
        else if (MUTATORS.has(key)) patchValue(proto, key, blocker(key, false));
      } else if (d.set) {
        const net = URL_PROPS.has(key);
        patchAccessor(proto, key, undefined, function () {
          return net ? blockedNet(`setting ${key}`) : blocked(`setting ${key}`);
        });
      }
    }
  }


  // Passwords: the getters answer "***" (before the lock, which then closes them).
  {
    const P = HTMLInputElement.prototype;
    const value = getOwnPropertyDescriptor(P, "value").get;
    const defaultValue = getOwnPropertyDescriptor(P, "defaultValue").get;
    patchAccessor(P, "value", function () {
      return isPassword(this) ? MASK : apply(value, this, []);
    }, undefined, true);
    patchAccessor(P, "defaultValue", function () {
      return isPassword(this) ? MASK : apply(defaultValue, this, []);
    }, undefined, true);
    // The caret and the selection would tell the password's length.
    for (const key of ["selectionStart", "selectionEnd"]) {
      const get = getOwnPropertyDescriptor(P, key).get;
      patchAccessor(P, key, function () {
        return isPassword(this) ? 0 : apply(get, this, []);
      }, undefined, true);
    }
    const E = Element.prototype;
    const getAttr = E.getAttribute;
    const getAttrNS = E.getAttributeNS;
    patchValue(E, "getAttribute", function getAttribute(name) {
      const v = apply(getAttr, this, arguments);
      return v !== null && isPassword(this) && String(name).toLowerCase() === "value" ? MASK : v;
    }, true);
    patchValue(E, "getAttributeNS", function getAttributeNS(ns, name) {
      const v = apply(getAttrNS, this, arguments);
      return v !== null && isPassword(this) && String(name).toLowerCase() === "value" ? MASK : v;
    }, true);
    const A = Attr.prototype;
    for (const key of ["value", "nodeValue", "textContent"]) {
      const owner = getOwnPropertyDescriptor(A, key) ? A : Node.prototype;
      const d = getOwnPropertyDescriptor(owner, key);
      if (!d || !d.get) continue;
      const get = d.get;
      const masked = function () {
        if (this instanceof Attr) {
          const el = apply(attrOwner, this, []);
          if (el && isPassword(el) && apply(attrName, this, []) === "value") return MASK;
        }
        return apply(get, this, []);
      };
      if (owner === A) patchAccessor(A, key, masked, undefined, true);
      else defineProperty(A, key, { get: masked, set: d.set, enumerable: d.enumerable, configurable: true });
    }
    for (const [proto, key] of [
      [Element.prototype, "outerHTML"],
      [Element.prototype, "innerHTML"],
      [ShadowRoot.prototype, "innerHTML"],
    ]) {
      const d = getOwnPropertyDescriptor(proto, key);
      if (!d || !d.get) continue;
      const get = d.get;
      patchAccessor(proto, key, function () {
        return maskHtml(this, apply(get, this, []));
      }, undefined, true);
    }
    for (const proto of [Element.prototype, ShadowRoot.prototype]) {
      const getHTML = proto.getHTML;
      if (typeof getHTML === "function") {
        patchValue(proto, "getHTML", function getHTML_() {
          return maskHtml(this, apply(getHTML, this, arguments));
        });
      }
    }
    if (G.XMLSerializer) {
      const serialize = XMLSerializer.prototype.serializeToString;
      patchValue(XMLSerializer.prototype, "serializeToString", function serializeToString(node) {
        return maskHtml(node, apply(serialize, this, arguments));
      });
    }
    const RealFormData = G.FormData;
    const fdSet = RealFormData.prototype.set;
    const formElements = getOwnPropertyDescriptor(HTMLFormElement.prototype, "elements").get;
    const inputName = getOwnPropertyDescriptor(HTMLInputElement.prototype, "name").get;
    const MaskedFormData = function FormData(form, submitter) {
      if (!new.target) throw new TypeError("Failed to construct 'FormData': Please use the 'new' operator");
      const fd = construct(RealFormData, arguments, new.target);
      if (form instanceof HTMLFormElement) {
        const els = apply(formElements, form, []);
        for (let i = 0; i < els.length; i++) {
          const el = els[i];
          if (isPassword(el)) {
            const n = apply(inputName, el, []);
            if (n) apply(fdSet, fd, [n, MASK]);
          }
        }
      }
      return fd;
    };
    MaskedFormData.prototype = RealFormData.prototype;
    defineProperty(RealFormData.prototype, "constructor", { value: MaskedFormData, configurable: false, writable: false });
    patchValue(G, "FormData", MaskedFormData);
  }

  // The lock itself, after the password getters so it keeps them (and closes them).
  for (const name of getOwnPropertyNames(G)) {
    if (!DOM_INTERFACE.test(name)) continue;
    const ctor = getOwnPropertyDescriptor(G, name);
    const value = ctor && ctor.value;
    if (typeof value !== "function" || !value.prototype) continue;
    lockPrototype(value.prototype);
  }

  if (G.Clipboard) patchValue(Clipboard.prototype, "read", blocker("read", false));

  // A selector or XPath that tests a value attribute is an oracle for a password standing in
  // one (`input[value^="a"]`, one letter at a time; React keeps the attribute in step with
  // what was typed): refused while the page has such a field.
  const VALUE_SELECTOR = /\[\s*value\s*[~|^$*]?=|@value/i;
  const pagePasswordAttr = () => {
    try {
      const found = apply(docQueryAll, realDocument, ['input[type="password" i][value]']);
      for (let i = 0; i < found.length; i++) if (apply(realGetAttribute, found[i], ["value"])) return true;
    } catch (_) {}
    return false;
  };
  for (const [proto, names] of [
    [Element.prototype, ["querySelector", "querySelectorAll", "matches", "closest", "webkitMatchesSelector"]],
    [Document.prototype, ["querySelector", "querySelectorAll", "evaluate", "createExpression"]],
    [DocumentFragment.prototype, ["querySelector", "querySelectorAll"]],
    [G.XPathEvaluator ? XPathEvaluator.prototype : null, ["evaluate", "createExpression"]],
  ]) {
    if (!proto) continue;
    for (const name of names) {
      const original = proto[name];
      if (typeof original !== "function") continue;
      const guarded = function (query) {
        if (VALUE_SELECTOR.test(String(query)) && pagePasswordAttr()) {
          return blocked("selecting by value attributes while the page has a password in one");
        }
        return apply(original, this, arguments);
      };
      defineProperty(guarded, "name", { value: name });
      patchValue(proto, name, guarded);
    }
  }

  // Other frames: their windows belong to their own worlds, which this lock does not reach.
  for (const [ctor, keys] of [
    [G.HTMLIFrameElement, ["contentWindow", "contentDocument"]],
    [G.HTMLFrameElement, ["contentWindow", "contentDocument"]],
    [G.HTMLObjectElement, ["contentWindow", "contentDocument"]],
  ]) {
    if (!ctor) continue;
    for (const key of keys) {
      patchAccessor(ctor.prototype, key, function () {
        return blocked(`reading another frame (${key})`);
      });
    }
  }
  for (const ctor of [G.HTMLIFrameElement, G.HTMLObjectElement, G.HTMLEmbedElement, G.HTMLFrameElement]) {
    if (ctor && typeof ctor.prototype.getSVGDocument === "function") patchValue(ctor.prototype, "getSVGDocument", blocker("getSVGDocument", false));
  }

  // The global object's own members (Window's operations and attributes live on it).
  for (const key of getOwnPropertyNames(G)) {
    const d = getOwnPropertyDescriptor(G, key);
    if (!d || !d.configurable) continue;
    if (typeof d.value === "function" && !/^[A-Z]/.test(key)) {
      if (NET_METHODS.has(key)) patchValue(G, key, blocker(key, true));
      else if (MUTATORS.has(key)) patchValue(G, key, blocker(key, false));
    } else if (d.set) {
      patchAccessor(G, key, undefined, function () {
        return blocked(`setting window.${key}`);
      });
    }
  }
  for (const name of NET_CONSTRUCTORS) {
    if (hasOwn.call(G, name)) patchValue(G, name, blocker(name, true));
  }
  for (const name of BLOCKED_CONSTRUCTORS) {
    if (hasOwn.call(G, name)) patchValue(G, name, blocker(name, false));
  }
  if (G.Audio) {
    const RealAudio = G.Audio;
    const Audio = function Audio(src) {
      if (arguments.length && src !== undefined) return blockedNet("new Audio(url)");
      return construct(RealAudio, [], new.target || RealAudio);
    };
    Audio.prototype = RealAudio.prototype;
    patchValue(G, "Audio", Audio);
  }

  // Code compiled at run time goes through the sandbox (defined below).
  const IMPORT_CALL = /\bimport\s*(?:\/\*[\s\S]*?\*\/\s*|\/\/[^\n]*\n\s*)*\(/;
  const refuseImport = (src) => {
    if (IMPORT_CALL.test(src)) blockedNet("import() loads code from the network");
  };
  let compileInScope = null; // set once the scope exists
  function makeSafeFunction(kind) {
    const prefix = { plain: "function", async: "async function", gen: "function*", asyncgen: "async function*" }[kind];
    const safe = {
      Function(...args) {
        const body = args.length ? String(args[args.length - 1]) : "";
        const params = args.slice(0, -1).map(String).join(",");
        const src = `(${prefix} anonymous(${params}\n) {\n${body}\n})`;
        refuseImport(src);
        return compileInScope(src);
      },
    }.Function;
    return safe;
  }
  const safeFunction = makeSafeFunction("plain");
  const safeAsyncFunction = makeSafeFunction("async");
  const safeGeneratorFunction = makeSafeFunction("gen");
  const safeAsyncGeneratorFunction = makeSafeFunction("asyncgen");
  const safeEval = {
    eval(src) {
      if (typeof src !== "string") return src;
      refuseImport(src);
      return compileInScope(src);
    },
  }.eval;
  for (const [proto, safe] of [
    [RealFunction.prototype, safeFunction],
    [getPrototypeOf(async function () {}), safeAsyncFunction],
    [getPrototypeOf(function* () {}), safeGeneratorFunction],
    [getPrototypeOf(async function* () {}), safeAsyncGeneratorFunction],
  ]) {
    safe.prototype = proto;
    defineProperty(proto, "constructor", { value: safe, writable: false, enumerable: false, configurable: false });
  }
  patchValue(G, "Function", safeFunction);
  patchValue(G, "eval", safeEval);

  // ------------------------------------------------------------ 2. the membrane
  const toReal = new RealWeakMap(); // proxy → page object
  const toProxy = new RealWeakMap(); // page object → proxy
  const reverse = new RealWeakMap(); // script function → function the page side may call

  // The language's own values are shared as they are (frozen below); page objects are wrapped.
  const SHARED = new RealSet();
  const INTRINSIC_NAMES = [
    "Object", "Array", "Number", "Boolean", "String", "Symbol", "BigInt", "Date", "RegExp", "Promise",
    "Error", "AggregateError", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError",
    "URIError", "JSON", "Math", "Intl", "Reflect", "Proxy", "Map", "Set", "WeakMap", "WeakSet", "WeakRef",
    "FinalizationRegistry", "ArrayBuffer", "SharedArrayBuffer", "DataView", "Atomics", "Int8Array",
    "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array",
    "Float16Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array", "Iterator",
    "parseInt", "parseFloat", "isNaN", "isFinite", "encodeURI", "encodeURIComponent", "decodeURI",
    "decodeURIComponent", "escape", "unescape", "NaN", "Infinity", "undefined", "console",
  ];
  for (const name of INTRINSIC_NAMES) {
    if (hasOwn.call(G, name)) {
      const v = G[name];
      if (v !== null && (typeof v === "object" || typeof v === "function")) {
        SHARED.add(v);
        if (typeof v === "function" && v.prototype) SHARED.add(v.prototype);
      }
    }
  }
  for (const v of [safeFunction, safeAsyncFunction, safeGeneratorFunction, safeAsyncGeneratorFunction, safeEval,
    RealFunction.prototype, getPrototypeOf(async function () {}), getPrototypeOf(function* () {}),
    getPrototypeOf(async function* () {}), getPrototypeOf([][Symbol.iterator]()),
    getPrototypeOf(getPrototypeOf([][Symbol.iterator]()))]) {
    SHARED.add(v);
  }

  // Any non-primitive — document.all too, whose typeof is "undefined".
  const isObj = (v) => v !== null && v !== undefined && ObjectCtor(v) === v;
  const isWindow = (v) => {
    const t = tagOf(v);
    return t === "[object Window]" || t === "[object global]";
  };
  const isLocation = (v) => tagOf(v) === "[object Location]";
  const isStorage = (v) => tagOf(v) === "[object Storage]";
  const isFrameElement = (v) =>
    (G.HTMLIFrameElement && v instanceof HTMLIFrameElement) ||
    (G.HTMLFrameElement && v instanceof HTMLFrameElement) ||
    (G.HTMLObjectElement && v instanceof HTMLObjectElement);

  function wrap(v) {
    if (!isObj(v)) return v;
    if (toReal.has(v) || SHARED.has(v) || blockedMark.has(v)) return v;
    if (isWindow(v) && v !== G) return blocked("reading another frame's window");
    const known = toProxy.get(v);
    if (known) return known;
    let target;
    if (typeof v === "function") {
      // A bound function has no own `prototype` (so no invariants to keep) and can be `new`ed.
      target = apply(RealFunction.prototype.bind, function () {}, [null]);
    } else if (Array.isArray(v)) {
      target = [];
    } else {
      target = ObjectCreate(null);
    }
    const p = new RealProxy(target, handlerFor(v));
    toReal.set(p, v);
    toProxy.set(v, p);
    return p;
  }

  function unwrap(v) {
    if (!isObj(v)) return v;
    const real = toReal.get(v);
    if (real !== undefined) return real;
    if (SHARED.has(v)) return v;
    if (typeof v === "object" && (ArrayBuffer.isView(v) || tagOf(v) === "[object ArrayBuffer]")) return v;
    if (typeof v === "object") {
      // A script's own object handed to the page side (a filter with acceptNode, options):
      // whatever the page side calls on it or reads from it must see proxies only.
      let r = reverse.get(v);
      if (!r) {
        const obj = v;
        r = new RealProxy(obj, {
          get(_t, key) {
            return unwrap(R.get(obj, key));
          },
        });
        reverse.set(v, r);
      }
      return r;
    }
    if (typeof v === "function") {
      // A script's callback handed to the page side: it must only ever see proxies.
      let r = reverse.get(v);
      if (!r) {
        const fn = v;
        r = function () {
          const args = [];
          for (let i = 0; i < arguments.length; i++) args.push(wrap(arguments[i]));
          return unwrap(apply(fn, wrap(this), args));
        };
        reverse.set(v, r);
      }
      return r;
    }
    return v;
  }

  function rethrow(e) {
    throw wrap(e);
  }

  function keyName(key) {
    return typeof key === "symbol" ? key.toString() : String(key);
  }

  function writeRefused(real, key) {
    const name = keyName(key);
    if (isLocation(real) || name === "location") return blocked(`navigating (setting location${name === "location" ? "" : "." + name})`);
    if (URL_PROPS.has(name)) return blockedNet(`setting ${name}`);
    if (isStorage(real)) return blocked("writing storage");
    if (name === "cookie") return blocked("writing cookies");
    return blocked(`setting ${name}`);
  }

  const FN_CALL = RealFunction.prototype.call;
  const FN_APPLY = RealFunction.prototype.apply;
  const FN_BIND = RealFunction.prototype.bind;

  // `f.call(x, …)`, `f.apply(x, […])`, `f.bind(x)` reached through a proxy run `f` with the
  // page's own objects: judge `f` (and follow call.call.call … to the end).
  function callRefusal(fn, realThis, args) {
    for (let hops = 0; hops < 16; hops++) {
      if ((fn === FN_CALL || fn === FN_BIND) && typeof realThis === "function") {
        fn = realThis;
        realThis = args ? unwrap(args[0]) : undefined;
        args = args ? apply(Array.prototype.slice, args, [1]) : [];
      } else if (fn === FN_APPLY && typeof realThis === "function") {
        fn = realThis;
        const list = args ? args[1] : undefined;
        realThis = args ? unwrap(args[0]) : undefined;
        args = isObj(list) ? apply(Array.prototype.slice, list, [0]) : [];
      } else {
        break;
      }
    }
    return refusalOf(fn, realThis, args);
  }

  function refusalOf(fn, realThis, args) {
    let name = "";
    try {
      name = String(fn.name || "");
    } catch (_) {}
    while (name.startsWith("bound ")) name = name.slice(6);
    if (name.startsWith("set ")) {
      const prop = name.slice(4);
      if (isLocation(realThis)) return () => blocked(`navigating (setting location.${prop})`);
      return () => (URL_PROPS.has(prop) ? blockedNet(`setting ${prop}`) : blocked(`setting ${prop}`));
    }
    if (NET_METHODS.has(name)) return () => blockedNet(`${name}()`);
    if (name === "setAttribute" || name === "setAttributeNS") {
      const attr = String(args && args[name === "setAttribute" ? 0 : 1]).toLowerCase();
      if (URL_ATTRS.has(attr)) return () => blockedNet(`setting the ${attr} attribute`);
    }
    if (MUTATORS.has(name)) return () => blocked(`${name}()`);
    if (fn === realEval) return () => blocked("eval outside the sandbox");
    if (fn === RealFunction) return () => blocked("Function outside the sandbox");
    return null;
  }

  function handlerFor(real) {
    return {
      get(_t, key) {
        if (typeof key === "string") {
          if (isWindow(real)) {
            if (/^\d+$/.test(key)) return blocked("reading another frame (window[n])");
            if (key === "window" || key === "self" || key === "globalThis" || key === "frames" || key === "top" || key === "parent") return wrap(G);
            if (key === "opener") return null;
            if (key === "eval") return safeEval;
            if (key === "Function") return safeFunction;
            if (key === "__mikaRO") return undefined;
          }
          if (isFrameElement(real) && (key === "contentWindow" || key === "contentDocument")) {
            return blocked(`reading another frame (${key})`);
          }
          if (isLocation(real) && (key === "assign" || key === "replace" || key === "reload")) {
            return blocker(key, false);
          }
          if (key === "__proto__") return wrap(getPrototypeOf(real));
        }
        let value;
        try {
          value = R.get(real, key, real);
        } catch (e) {
          rethrow(e);
        }
        return wrap(value);
      },
      set(_t, key) {
        return writeRefused(real, key);
      },
      defineProperty(_t, key) {
        return writeRefused(real, key);
      },
      deleteProperty(_t, key) {
        return writeRefused(real, key);
      },
      setPrototypeOf() {
        return blocked("changing a prototype");
      },
      preventExtensions() {
        return blocked("freezing a page object");
      },
      isExtensible() {
        return true;
      },
      has(_t, key) {
        if (isWindow(real) && (key === "__mikaRO" || (typeof key === "string" && /^\d+$/.test(key)))) return false;
        return R.has(real, key);
      },
      ownKeys(t) {
        // A window's own keys name its frames by number ("0", "1" …): left out, as the frames are.
        const hidden = (k) => isWindow(real) && (k === "__mikaRO" || (typeof k === "string" && /^\d+$/.test(k)));
        const keys = R.ownKeys(real).filter((k) => !hidden(k));
        if (Array.isArray(t) && !keys.includes("length")) keys.push("length");
        return keys;
      },
      getOwnPropertyDescriptor(t, key) {
        if (isWindow(real) && (key === "__mikaRO" || (typeof key === "string" && /^\d+$/.test(key)))) return undefined;
        let d;
        try {
          d = R.getOwnPropertyDescriptor(real, key);
        } catch (e) {
          rethrow(e);
        }
        if (Array.isArray(t) && key === "length") {
          return { value: real.length, writable: true, enumerable: false, configurable: false };
        }
        if (!d) return undefined;
        const out = { enumerable: d.enumerable, configurable: true };
        if ("value" in d) {
          out.value = wrap(d.value);
          out.writable = d.writable;
        } else {
          out.get = d.get ? wrap(d.get) : undefined;
          out.set = d.set ? blocker(`set ${keyName(key)}`, URL_PROPS.has(keyName(key))) : undefined;
        }
        return out;
      },
      getPrototypeOf() {
        return wrap(getPrototypeOf(real));
      },
      apply(_t, thisArg, args) {
        // A plain call (`getSelection()`): the page's own functions then act on the window.
        // Called by a bare name inside the `with` scope, `this` is the scope object itself.
        const realThis = thisArg === undefined || thisArg === null || thisArg === scope ? G : unwrap(thisArg);
        const refusal = callRefusal(real, realThis, args);
        if (refusal) return refusal();
        const realArgs = [];
        for (let i = 0; i < args.length; i++) realArgs.push(unwrap(args[i]));
        let out;
        try {
          out = apply(real, realThis, realArgs);
        } catch (e) {
          rethrow(e);
        }
        return wrap(out);
      },
      construct(_t, args) {
        const refusal = callRefusal(real, undefined, args);
        if (refusal) return refusal();
        const realArgs = [];
        for (let i = 0; i < args.length; i++) realArgs.push(unwrap(args[i]));
        let out;
        try {
          out = construct(real, realArgs);
        } catch (e) {
          rethrow(e);
        }
        return wrap(out);
      },
    };
  }

  // ------------------------------------------------------------ 3. the scope
  function track(kind) {
    return {
      setTimeout(fn, ms, ...rest) {
        if (typeof fn !== "function") return blocked("setTimeout with a string of code");
        const id = apply(realSetTimeout, G, [fn, ms, ...rest]);
        if (current) current.timers.add(["t", id]);
        return id;
      },
      setInterval(fn, ms, ...rest) {
        if (typeof fn !== "function") return blocked("setInterval with a string of code");
        const id = apply(realSetInterval, G, [fn, ms, ...rest]);
        if (current) current.timers.add(["i", id]);
        return id;
      },
      requestAnimationFrame(fn) {
        const id = apply(realRaf, G, [fn]);
        if (current) current.timers.add(["r", id]);
        return id;
      },
      requestIdleCallback(fn, options) {
        const id = apply(realRic, G, [fn, options]);
        if (current) current.timers.add(["c", id]);
        return id;
      },
    }[kind];
  }
  const OWN = ObjectCreate(null);
  OWN.eval = safeEval;
  OWN.Function = safeFunction;
  OWN.setTimeout = track("setTimeout");
  OWN.setInterval = track("setInterval");
  OWN.requestAnimationFrame = track("requestAnimationFrame");
  if (realRic) OWN.requestIdleCallback = track("requestIdleCallback");
  // Bound to the window: called by a bare name inside `with`, `this` would be the scope.
  const onWindow = (fn) => (typeof fn === "function" ? apply(FN_BIND, fn, [G]) : fn);
  OWN.clearTimeout = onWindow(realClearTimeout);
  OWN.clearInterval = onWindow(realClearInterval);
  OWN.cancelAnimationFrame = onWindow(realCancelRaf);
  OWN.queueMicrotask = onWindow(G.queueMicrotask);
  OWN.structuredClone = onWindow(G.structuredClone);
  OWN.atob = onWindow(G.atob);
  OWN.btoa = onWindow(G.btoa);
  OWN.URL = G.URL;
  OWN.URLSearchParams = G.URLSearchParams;
  OWN.TextEncoder = G.TextEncoder;
  OWN.TextDecoder = G.TextDecoder;
  for (const k of ["clearTimeout", "clearInterval", "cancelAnimationFrame", "queueMicrotask", "structuredClone", "atob", "btoa", "URL", "URLSearchParams", "TextEncoder", "TextDecoder"]) {
    if (OWN[k]) SHARED.add(OWN[k]);
    if (OWN[k] && OWN[k].prototype) SHARED.add(OWN[k].prototype);
  }
  for (const k of ["setTimeout", "setInterval", "requestAnimationFrame", "requestIdleCallback"]) if (OWN[k]) SHARED.add(OWN[k]);

  let evalOnce = false;
  const scope = new RealProxy(ObjectCreate(null), {
    has(_t, key) {
      if (typeof key !== "string") return false;
      if (key === "eval" && evalOnce) return true;
      return key in OWN || R.has(G, key);
    },
    get(_t, key) {
      if (key === Symbol.unscopables) return undefined;
      if (key === "eval" && evalOnce) {
        evalOnce = false;
        return realEval; // the one direct eval of `compileInScope`
      }
      if (typeof key !== "string") return undefined;
      if (key === "window" || key === "self" || key === "globalThis" || key === "frames" || key === "top" || key === "parent") return wrap(G);
      if (key === "opener") return null;
      if (key === "__mikaRO") return undefined;
      if (key in OWN) return OWN[key];
      let value;
      try {
        value = G[key];
      } catch (e) {
        rethrow(e);
      }
      return wrap(value);
    },
    set(_t, key) {
      return blocked(`setting the global ${keyName(key)}`);
    },
    defineProperty(_t, key) {
      return blocked(`defining the global ${keyName(key)}`);
    },
    deleteProperty(_t, key) {
      return blocked(`deleting the global ${keyName(key)}`);
    },
  });
  const evaluator = apply(
    RealFunction,
    null,
    ['with (this) { return function () { "use strict"; return eval(arguments[0]); }; }'],
  ).call(scope);
  compileInScope = function (src) {
    evalOnce = true;
    try {
      return apply(evaluator, undefined, [`${src}\n//# sourceURL=mika-readonly-script.js`]);
    } finally {
      evalOnce = false;
    }
  };

  // The language's own objects cannot be rewritten by a script (our code relies on them).
  for (const v of SHARED) {
    try {
      freeze(v);
    } catch (_) {}
  }
  for (const v of [Object.prototype, Array.prototype, RealFunction.prototype, Promise.prototype, RealWeakMap.prototype, RealSet.prototype, Map.prototype, String.prototype, Number.prototype, Boolean.prototype, Symbol.prototype, RegExp.prototype, RealError.prototype, Blocked.prototype, Blocked]) {
    freeze(v);
  }

  // ------------------------------------------------------------ results
  const nodeTag = getOwnPropertyDescriptor(Node.prototype, "nodeName").get;
  const nodeText = getOwnPropertyDescriptor(Node.prototype, "textContent").get;

  function describeNode(node) {
    let text = "";
    try {
      text = String(apply(nodeText, node, []) || "").replace(/\s+/g, " ").trim();
    } catch (_) {}
    return { node: String(apply(nodeTag, node, [])).toLowerCase(), text: text.length > 200 ? text.slice(0, 200) + "…" : text };
  }

  function plain(v, depth, seen) {
    if (v === undefined || v === null) return null;
    const t = typeof v;
    if (t === "string" || t === "boolean") return v;
    if (t === "number") return Number.isFinite(v) ? v : String(v);
    if (t === "bigint") return String(v);
    if (t === "symbol") return v.toString();
    if (t === "function") return `[function ${String(v.name || "")}]`;
    const real = toReal.get(v);
    const o = real !== undefined ? real : v;
    if (seen.has(o)) return "[circular]";
    if (depth > 8) return "[too deep]";
    seen.add(o);
    try {
      if (o instanceof Node) return describeNode(o);
      if (isWindow(o)) return "[window]";
      if (real !== undefined) {
        if (typeof o.length === "number" && !(o instanceof Array) && typeof o !== "string") {
          const out = [];
          for (let i = 0; i < o.length && i < 1000; i++) out.push(plain(o[i], depth + 1, seen));
          return out;
        }
        if (typeof o.toJSON === "function") return plain(o.toJSON(), depth + 1, seen);
      }
      if (Array.isArray(v)) {
        const out = [];
        for (let i = 0; i < v.length && i < 10000; i++) out.push(plain(v[i], depth + 1, seen));
        return out;
      }
      if (v instanceof RealError || (real !== undefined && o instanceof RealError)) return `${o.name}: ${o.message}`;
      const out = {};
      for (const k of Object.keys(v)) out[k] = plain(v[k], depth + 1, seen);
      return out;
    } finally {
      seen.delete(o);
    }
  }

  function describeError(e) {
    const real = isObj(e) ? toReal.get(e) || e : e;
    try {
      if (isObj(real) && "message" in real) {
        const name = String(real.name || "Error");
        return `${name}: ${String(real.message)}`;
      }
      return String(real);
    } catch (_) {
      return "an exception that could not be read";
    }
  }

  const TIMEOUT = {};
  async function run(src, timeoutMs, capChars) {
    const call = { violation: null, timers: new RealSet() };
    current = call;
    let timer = null;
    const answer = (obj) => JSONstringify(obj);
    try {
      refuseImport(String(src));
      let fn;
      const expr = String(src).replace(/[\s;]+$/, "");
      try {
        fn = compileInScope(`(async function () {\n"use strict";\nreturn (\n${expr}\n);\n})`);
      } catch (e) {
        if (call.violation || !(e instanceof SyntaxError)) throw e;
        fn = compileInScope(`(async function () {\n"use strict";\n${src}\n})`);
      }
      const timeout = new Promise((_, reject) => {
        timer = apply(realSetTimeout, G, [() => reject(TIMEOUT), timeoutMs]);
      });
      const value = await Promise.race([apply(fn, undefined, []), timeout]);
      if (call.violation) return answer({ ok: false, code: call.violation.code, message: call.violation.what });
      const json = JSONstringify(plain(value, 0, new RealSet()));
      const text = json === undefined ? "null" : json;
      if (text.length > capChars) return answer({ ok: true, cut: true, size: text.length, text: text.slice(0, capChars) });
      return answer({ ok: true, json: text });
    } catch (e) {
      if (call.violation) return answer({ ok: false, code: call.violation.code, message: call.violation.what });
      if (e === TIMEOUT) return answer({ ok: false, code: "timeout", message: `${timeoutMs} ms` });
      return answer({ ok: false, code: "script_error", message: describeError(e) });
    } finally {
      if (timer !== null) apply(realClearTimeout, G, [timer]);
      for (const [kind, id] of call.timers) {
        if (kind === "t") apply(realClearTimeout, G, [id]);
        else if (kind === "i") apply(realClearInterval, G, [id]);
        else if (kind === "c") apply(realCancelRic, G, [id]);
        else apply(realCancelRaf, G, [id]);
      }
      if (current === call) current = null;
    }
  }

  defineProperty(G, "__mikaRO", {
    value: freeze({ run, version: 1 }),
    enumerable: false,
    writable: false,
    configurable: false,
  });
  return "installed";
})();
