"""The shop's page frame: a header with navigation and a search box, a footer — what real
shop pages wrap their content in, so the main-text reader and the listing have menus and
footers to leave out."""

from __future__ import annotations

from html import escape


def page(title: str, body: str, *, lang: str = "en", head: str = "") -> str:
    return f"""<!doctype html>
<html lang="{lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<link rel="stylesheet" href="/static/shop.css">{head}</head>
<body>
<header class="site-header">
  <a class="logo" href="/">Bean &amp; Leaf 豆叶</a>
  <nav aria-label="Main">
    <a href="/search/?q=coffee">Coffee</a>
    <a href="/search/?q=tea">Tea 茶</a>
    <a href="/cart/">Cart</a>
    <a href="/account/">Account</a>
  </nav>
  <form class="search" action="/search/" method="get" role="search">
    <label for="q">Search the shop</label>
    <input id="q" name="q" type="search" placeholder="Search coffee and tea">
    <button type="submit">Search</button>
  </form>
</header>
<main id="content">
{body}
</main>
<footer class="site-footer">
  <p>© 2026 Bean &amp; Leaf Trading Co. · <a href="/help/">Help</a> · <a href="/privacy/">Privacy</a></p>
  <p>客服电话 400-000-0000 · Free shipping over $40 / ¥300</p>
</footer>
</body>
</html>
"""


def esc(text: object) -> str:
    return escape(str(text))
