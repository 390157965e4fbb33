// The page's main text, readability-style (web_read_page; the port's main_text).
//
// Evaluated in Mika's isolated world (after read_only.js locked it: this only reads). It is
// a function expression; the Python side calls it with a character limit and cuts the
// answer to the budget on a paragraph or sentence edge.
//
// 1. The root: the page's <main> (or role=main) or its one <article> when they hold the
//    text, else the smallest element holding most of the page's paragraph text (the densest
//    block), else <body>.
// 2. Walk it in document order, leaving out navigation, page headers and footers, asides,
//    menus, dialogs and cookie banners, fixed overlays, hidden elements, scripts, styles and
//    form controls; headings become "# …", list items "- …", table rows "a | b"; links keep
//    their text; whitespace is folded. Never HTML.
(function mainText(limit) {
  const doc = document;
  const body = doc.body;
  if (!body) return JSON.stringify({ text: "", more: false });

  const SKIP_TAGS = new Set([
    "SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "SVG", "CANVAS", "IFRAME", "OBJECT", "EMBED",
    "NAV", "ASIDE", "MENU", "DIALOG", "BUTTON", "INPUT", "SELECT", "TEXTAREA", "OPTION",
    "DATALIST", "HEAD", "TITLE", "META", "LINK", "AUDIO", "VIDEO", "MAP", "FOOTER",
  ]);
  const SKIP_ROLES = new Set([
    "navigation", "banner", "contentinfo", "complementary", "menu", "menubar", "dialog",
    "alertdialog", "search", "toolbar", "tablist", "tooltip", "button",
  ]);
  const BANNER_WORDS = /cookie|consent|gdpr|onetrust|cmp-|privacy-banner|newsletter-popup/i;
  const CHROME_WORDS = /(^|[\s_-])(nav|navbar|menu|breadcrumbs?|sidebar|footer|share|social|related|advert|ads)([\s_-]|$)/i;
  const BLOCK_TAGS = new Set([
    "P", "DIV", "SECTION", "ARTICLE", "MAIN", "HEADER", "UL", "OL", "DL", "DT", "DD", "TABLE",
    "THEAD", "TBODY", "TFOOT", "BLOCKQUOTE", "PRE", "FIGURE", "FIGCAPTION", "FORM", "FIELDSET",
    "ADDRESS", "DETAILS", "SUMMARY", "HR", "CENTER", "CAPTION", "LEGEND",
  ]);
  const HEADINGS = new Set(["H1", "H2", "H3", "H4", "H5", "H6"]);

  const visible = (el) => {
    if (el.hidden || el.getAttribute("aria-hidden") === "true") return false;
    // No box of its own (a slot, display: contents): its children are judged one by one.
    if (getComputedStyle(el).display === "contents") return true;
    if (typeof el.checkVisibility === "function") {
      return el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
    }
    const cs = getComputedStyle(el);
    return cs.display !== "none" && cs.visibility !== "hidden" && cs.opacity !== "0";
  };
  const words = (el) => `${el.id || ""} ${typeof el.className === "string" ? el.className : ""} ${el.getAttribute("aria-label") || ""}`;
  const densities = new Map();
  const linkDensity = (el) => {
    if (densities.has(el)) return densities.get(el);
    const all = (el.innerText || "").length;
    let links = 0;
    if (all) for (const a of el.querySelectorAll("a")) links += (a.innerText || "").length;
    const d = all ? links / all : 0;
    densities.set(el, d);
    return d;
  };
  const insideContent = (el) => !!el.parentElement && !!el.parentElement.closest("article, main, [role=main], section");

  // Asked for every ancestor of every paragraph: answered once per element.
  const judged = new Map();
  function skipped(el, root) {
    if (el === root) return false;
    if (judged.has(el)) return judged.get(el);
    const verdict = judge(el);
    judged.set(el, verdict);
    return verdict;
  }

  function judge(el) {
    const tag = String(el.tagName).toUpperCase();
    if (SKIP_TAGS.has(tag)) return true;
    if (tag === "HEADER" && !insideContent(el)) return true; // the page's header, not an article's
    const role = el.getAttribute("role");
    if (role && SKIP_ROLES.has(role)) return true;
    if (el.getAttribute("aria-modal") === "true") return true;
    const w = words(el);
    if (BANNER_WORDS.test(w)) return true;
    if (!visible(el)) return true;
    const pos = getComputedStyle(el).position;
    if (pos === "fixed" || pos === "sticky") return true; // banners, bars, chat bubbles
    if (CHROME_WORDS.test(w) && linkDensity(el) > 0.4) return true;
    return false;
  }

  // ---------------------------------------------------------------- the root
  function blockScores() {
    // Each paragraph-like block's text, less its links, counted for every ancestor.
    const covered = new Map();
    let total = 0;
    for (const b of body.querySelectorAll("p, li, pre, blockquote, td, dd, h1, h2, h3, h4, h5, h6")) {
      let skip = false;
      for (let a = b; a && a !== body; a = a.parentElement) {
        if (skipped(a, null)) {
          skip = true;
          break;
        }
      }
      if (skip) continue;
      const len = (b.innerText || "").trim().length;
      if (len < 20) continue;
      const score = len * (1 - linkDensity(b));
      total += score;
      for (let a = b.parentElement; a; a = a.parentElement) covered.set(a, (covered.get(a) || 0) + score);
    }
    return { covered, total };
  }

  function pickRoot() {
    const text = (el) => (el.innerText || "").trim().length;
    const mains = [...doc.querySelectorAll("main, [role=main]")].filter(visible);
    if (mains.length === 1 && text(mains[0]) > 200) return mains[0];
    const articles = [...doc.querySelectorAll("article")].filter(visible);
    if (articles.length === 1 && text(articles[0]) > 200) return articles[0];
    const { covered, total } = blockScores();
    if (!total) return mains[0] || body;
    // From <body> down: into the child that still holds most of the text.
    let root = body;
    for (;;) {
      let next = null;
      for (const child of root.children) {
        if ((covered.get(child) || 0) >= 0.6 * total) next = child;
      }
      if (!next) break;
      root = next;
    }
    return root;
  }

  // ---------------------------------------------------------------- the walk
  const root = pickRoot();
  const out = [];
  let size = 0;
  let more = false;
  let buf = "";
  let prefix = "";
  const fold = (s) => s.replace(/[\s\u00a0\u3000]+/g, " ").trim();

  function flush() {
    const t = fold(buf);
    buf = "";
    if (t) {
      const line = prefix + t;
      out.push(line);
      size += line.length + 1;
      if (size > limit) more = true;
    }
    prefix = "";
  }

  function walk(node) {
    if (more) return;
    if (node.nodeType === Node.TEXT_NODE) {
      buf += node.data;
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    const el = node;
    if (skipped(el, root)) return;
    const tag = String(el.tagName).toUpperCase();
    if (tag === "BR") {
      flush();
      return;
    }
    if (HEADINGS.has(tag)) {
      flush();
      prefix = "# ";
      for (const c of el.childNodes) walk(c);
      flush();
      return;
    }
    if (tag === "LI") {
      flush();
      prefix = "- ";
      for (const c of el.childNodes) {
        if (c.nodeType === Node.ELEMENT_NODE && (c.tagName === "UL" || c.tagName === "OL")) {
          flush();
          walk(c);
        } else {
          walk(c);
        }
      }
      flush();
      return;
    }
    if (tag === "TR") {
      flush();
      const cells = [];
      for (const cell of el.children) {
        if (!skipped(cell, root)) {
          const t = fold(cell.innerText || "");
          if (t) cells.push(t);
        }
      }
      if (cells.length) {
        buf = cells.join(" | ");
        flush();
      }
      return;
    }
    if (tag === "IMG") {
      return; // pictures have no text here (their alt is in web_observe)
    }
    let block = BLOCK_TAGS.has(tag);
    if (!block) {
      const d = getComputedStyle(el).display;
      block = d === "block" || d === "flex" || d === "grid" || d === "list-item" || d === "table";
    }
    if (block) flush();
    for (const c of composedChildren(el)) walk(c);
    if (block) flush();
  }

  // What is rendered inside `el`: an open shadow root's content (with its slots filled by
  // the light children), else the children.
  function composedChildren(el) {
    if (String(el.tagName).toUpperCase() === "SLOT" && typeof el.assignedNodes === "function") {
      const assigned = el.assignedNodes({ flatten: true });
      if (assigned.length) return assigned;
    }
    return el.shadowRoot ? el.shadowRoot.childNodes : el.childNodes;
  }

  walk(root);
  flush();
  return JSON.stringify({ text: out.join("\n"), more });
})
