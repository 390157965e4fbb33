"""The shop area of the test site: search with pages, lazy-loaded search, product pages,
the cart, checkout, the final pay and order pages.

The catalogue (30 coffees and teas, `site/data/catalogue.json`) is read once. Orders live
in this process's memory: the site is one per test session, and tests read what the
shop saw from `LocalSite.seen` or from `ORDERS`.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, quote, urlencode

from tests.web.site_layout import esc, page
from tests.web.site_server import ROUTES, Request, Response, route

CATALOGUE_FILE = Path(__file__).parent / "site" / "data" / "catalogue.json"
CATALOGUE: list[dict] = json.loads(CATALOGUE_FILE.read_text(encoding="utf-8"))
BY_ID: dict[int, dict] = {p["id"]: p for p in CATALOGUE}
PER_PAGE = 5


def price_text(product: dict, quantity: int = 1) -> str:
    return f"{product['currency']}{product['price'] * quantity:,.2f}"


def search(q: str) -> list[dict]:
    """Every product whose name, kind, origin, roast or description holds each word of q."""
    words = q.lower().split()
    if not words:
        return []
    found = []
    for p in CATALOGUE:
        hay = " ".join([p["name"], p["kind"], p["origin"], p["roast"], p["description"]]).lower()
        if all(w in hay for w in words):
            found.append(p)
    return found


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


def _redirect(location: str, headers: dict[str, str] | None = None) -> Response:
    return Response("", status=303, headers={"Location": location, **(headers or {})})


def _result_item(p: dict) -> str:
    return f"""<li class="result" data-id="{p["id"]}">
  <h2><a href="/product/{p["id"]}/">{esc(p["name"])}</a></h2>
  <p><span class="price">{esc(price_text(p))}</span> · {esc(p["origin"])} · {esc(p["roast"])} roast</p>
  <p>{esc(p["description"])}</p>
</li>"""


def _pager(q: str, current: int, pages: int) -> str:
    def link(n: int, text: str, rel: str = "") -> str:
        rel_attr = f' rel="{rel}"' if rel else ""
        return f'<a href="/search/?{urlencode({"q": q, "page": n})}"{rel_attr}>{text}</a>'

    parts = []
    if current > 1:
        parts.append(link(current - 1, "Previous", "prev"))
    for n in range(1, pages + 1):
        parts.append(f'<span aria-current="page">{n}</span>' if n == current else link(n, str(n)))
    if current < pages:
        parts.append(link(current + 1, "Next", "next"))
    return f'<nav class="pager" aria-label="Pagination">{" ".join(parts)}</nav>'


@route("/search/")
def search_page(req: Request) -> Response:
    q = req.query.get("q", "").strip()
    if not q:
        return Response(
            page("Search · Bean & Leaf", "<h1>Search</h1><p>Type what you are looking for in the box above.</p>")
        )
    found = search(q)
    if not found:
        return Response(
            page(
                f"No results for {q} · Bean & Leaf",
                f"<h1>No results for “{esc(q)}”</h1><p>Try another word, like coffee or 茶.</p>",
            )
        )
    pages = (len(found) + PER_PAGE - 1) // PER_PAGE
    current = min(max(_int(req.query.get("page"), 1), 1), pages)
    start = (current - 1) * PER_PAGE
    shown = found[start : start + PER_PAGE]
    items = "\n".join(_result_item(p) for p in shown)
    body = f"""<h1>Results for “{esc(q)}”</h1>
<p class="count">Showing {start + 1}–{start + len(shown)} of {len(found)} results · page {current} of {pages}</p>
<ol class="results">
{items}
</ol>
{_pager(q, current, pages)}"""
    return Response(page(f"{q} – page {current} · Bean & Leaf", body))


@route("/search/lazy/")
def lazy_search_page(req: Request) -> Response:
    """The same search, but later results come in batches from /api/more: a "Load more"
    button, then infinite scroll once the reader scrolls near the end."""
    q = req.query.get("q", "").strip()
    found = search(q)
    first = "\n".join(_result_item(p) for p in found[:PER_PAGE])
    more = len(found) > PER_PAGE
    body = f"""<h1>Results for “{esc(q)}”</h1>
<p class="count" id="count">Showing {min(PER_PAGE, len(found))} of {len(found)} results</p>
<ol class="results" id="results">
{first}
</ol>
<p id="status" role="status" aria-live="polite"></p>
<button type="button" id="more"{"" if more else " hidden"}>Load more</button>
<script>
(() => {{
  const q = {json.dumps(q)};
  const total = {len(found)};
  let next = {2 if more else "null"};
  let busy = false;
  const list = document.getElementById("results");
  const button = document.getElementById("more");
  const status = document.getElementById("status");
  async function loadMore() {{
    if (busy || next === null) return;
    busy = true;
    status.textContent = "Loading…";
    const answer = await fetch("/api/more?" + new URLSearchParams({{q, page: next}}));
    const data = await answer.json();
    for (const item of data.items) {{
      const li = document.createElement("li");
      li.className = "result";
      li.dataset.id = item.id;
      const h2 = document.createElement("h2");
      const a = document.createElement("a");
      a.href = item.url;
      a.textContent = item.name;
      h2.append(a);
      const p = document.createElement("p");
      p.textContent = item.price + " · " + item.origin + " · " + item.roast + " roast";
      li.append(h2, p);
      list.append(li);
    }}
    next = data.next;
    document.getElementById("count").textContent = "Showing " + list.children.length + " of " + total + " results";
    status.textContent = next === null ? "All results shown" : "";
    if (next === null) button.hidden = true;
    busy = false;
  }}
  // Like many shops: the first batch by the button, then infinite scroll — a scroll
  // near the end loads the next batch (never on load, never before the first click).
  let infinite = false;
  button.addEventListener("click", () => {{ infinite = true; loadMore(); }});
  window.addEventListener("scroll", () => {{
    if (infinite && window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 200) loadMore();
  }});
}})();
</script>
<style>.results .result {{ min-height: 9rem; }}</style>"""
    return Response(page(f"{q} (lazy) · Bean & Leaf", body))


@route("/api/more")
def more_results(req: Request) -> Response:
    q = req.query.get("q", "").strip()
    found = search(q)
    n = max(_int(req.query.get("page"), 1), 1)
    shown = found[(n - 1) * PER_PAGE : n * PER_PAGE]
    items = [
        {
            "id": p["id"],
            "name": p["name"],
            "price": price_text(p),
            "origin": p["origin"],
            "roast": p["roast"],
            "url": f"/product/{p['id']}/",
        }
        for p in shown
    ]
    following = n + 1 if n * PER_PAGE < len(found) else None
    data = {"q": q, "page": n, "items": items, "next": following, "total": len(found)}
    return Response(json.dumps(data, ensure_ascii=False), content_type="application/json; charset=utf-8")


def _product_page(product: dict):
    def show(req: Request) -> Response:
        p = product
        zh = p["currency"] == "¥"
        add_label = "加入购物车 Add to cart" if zh else "Add to cart"
        buy_label = "立即购买 Buy now" if zh else "Buy now"
        added = '<p class="notice" role="status">Added to your cart.</p>' if req.query.get("added") else ""
        facts = "\n".join(f"<li>{esc(f)}</li>" for f in p["facts"])
        body = f"""<nav aria-label="Breadcrumb"><a href="/">Home</a> › <a href="/search/?q={quote(p["kind"])}">{esc(p["kind"].title())}</a> › {esc(p["name"])}</nav>
<article class="product" itemscope itemtype="https://schema.org/Product">
  <h1 itemprop="name">{esc(p["name"])}</h1>
  <p class="price" itemprop="price">{esc(price_text(p))}</p>
  <p>Origin: {esc(p["origin"])} · Roast: {esc(p["roast"])}</p>
  <p itemprop="description">{esc(p["description"])}</p>
  <h2>Facts</h2>
  <ul class="facts">
{facts}
  </ul>
  <div class="buy-box">
    <form method="post" action="/cart/add">
      <input type="hidden" name="id" value="{p["id"]}">
      <label>Quantity <input type="number" name="qty" value="1" min="1" max="9"></label>
      <button type="submit">{add_label}</button>
    </form>
    <form method="post" action="/checkout/">
      <input type="hidden" name="id" value="{p["id"]}">
      <button type="submit" class="buy-now">{buy_label}</button>
    </form>
  </div>
  {added}
</article>"""
        return Response(page(f"{p['name']} · Bean & Leaf", body, lang="zh-CN" if zh else "en"))

    return show


for _p in CATALOGUE:
    route(f"/product/{_p['id']}/")(_product_page(_p))


# --- cart, checkout, pay, orders ------------------------------------------------------


@dataclass
class Order:
    number: int
    lines: list[tuple[int, int]]  # (product id, quantity)
    name: str = ""
    address: str = ""
    paid: bool = False
    history: list[str] = field(default_factory=list)

    def totals(self) -> str:
        by_currency: dict[str, float] = {}
        for pid, qty in self.lines:
            p = BY_ID[pid]
            by_currency[p["currency"]] = by_currency.get(p["currency"], 0.0) + p["price"] * qty
        return " + ".join(f"{c}{v:,.2f}" for c, v in by_currency.items())


ORDERS: dict[int, Order] = {}
_orders_lock = threading.Lock()
_next_order = [1002]


def _cart(req: Request) -> list[tuple[int, int]]:
    lines = []
    for item in req.cookies.get("cart", "").split("."):
        if "x" in item:
            pid, qty = item.split("x", 1)
            if _int(pid, 0) in BY_ID:
                lines.append((int(pid), max(_int(qty, 1), 1)))
    return lines


def _cart_cookie(lines: list[tuple[int, int]]) -> str:
    return "cart=" + ".".join(f"{pid}x{qty}" for pid, qty in lines) + "; Path=/; SameSite=Lax"


@route("/cart/add")
def cart_add(req: Request) -> Response:
    if req.method != "POST":
        return _redirect("/cart/")
    form = req.form()
    pid = _int(form.get("id"), 0)
    if pid not in BY_ID:
        return Response(page("Not found", "<h1>No such product</h1>"), status=404)
    lines = [*_cart(req), (pid, max(_int(form.get("qty"), 1), 1))]
    return _redirect(f"/product/{pid}/?added=1", {"Set-Cookie": _cart_cookie(lines)})


@route("/cart/")
def cart_page(req: Request) -> Response:
    lines = _cart(req)
    if not lines:
        return Response(page("Cart · Bean & Leaf", "<h1>Your cart</h1><p>Your cart is empty.</p>"))
    rows = "\n".join(
        f"<tr><td><a href='/product/{pid}/'>{esc(BY_ID[pid]['name'])}</a></td><td>{qty}</td><td>{esc(price_text(BY_ID[pid], qty))}</td></tr>"
        for pid, qty in lines
    )
    total = Order(0, lines).totals()
    body = f"""<h1>Your cart</h1>
<table><thead><tr><th>Item</th><th>Qty</th><th>Price</th></tr></thead><tbody>
{rows}
</tbody></table>
<p>Total: <strong class="price">{esc(total)}</strong></p>
<p><a class="button" href="/checkout/">Go to checkout</a></p>"""
    return Response(page("Cart · Bean & Leaf", body))


def _checkout_form(lines: list[tuple[int, int]]) -> Response:
    total = Order(0, lines).totals()
    items = "".join(
        f"<li>{esc(BY_ID[pid]['name'])} × {qty} — {esc(price_text(BY_ID[pid], qty))}</li>" for pid, qty in lines
    )
    hidden = "".join(f'<input type="hidden" name="line" value="{pid}x{qty}">' for pid, qty in lines)
    body = f"""<h1>Checkout 结算</h1>
<ul class="order-lines">{items}</ul>
<form method="post" action="/checkout/place" aria-label="Shipping and order">
  {hidden}
  <fieldset><legend>Ship to 收货地址</legend>
    <p><label for="name">Full name</label> <input id="name" name="name" autocomplete="name" required></p>
    <p><label for="address">Street address</label> <input id="address" name="address" autocomplete="street-address" required></p>
    <p><label for="city">City 城市</label> <input id="city" name="city" autocomplete="address-level2"></p>
    <p><label for="phone">Phone</label> <input id="phone" name="phone" type="tel" autocomplete="tel"></p>
  </fieldset>
  <p>Order total: <strong class="price" id="amount">{esc(total)}</strong></p>
  <button type="submit">Place order</button>
</form>"""
    return Response(page("Checkout · Bean & Leaf", body))


@route("/checkout/")
def checkout(req: Request) -> Response:
    if req.method == "POST":  # "Buy now" on a product page: that product alone
        pid = _int(req.form().get("id"), 0)
        if pid not in BY_ID:
            return Response(page("Not found", "<h1>No such product</h1>"), status=404)
        return _checkout_form([(pid, 1)])
    lines = _cart(req)
    if not lines:
        return Response(page("Checkout · Bean & Leaf", "<h1>Checkout</h1><p>Your cart is empty.</p>"))
    return _checkout_form(lines)


@route("/checkout/place")
def place_order(req: Request) -> Response:
    if req.method != "POST":
        return _redirect("/checkout/")
    fields = parse_qs(req.body.decode("utf-8", "replace"))
    lines = []
    for item in fields.get("line", []):
        pid, _, qty = item.partition("x")
        if _int(pid, 0) in BY_ID:
            lines.append((int(pid), max(_int(qty, 1), 1)))
    if not lines:
        return Response(page("Checkout · Bean & Leaf", "<h1>Nothing to order</h1>"), status=400)
    with _orders_lock:
        number = _next_order[0]
        _next_order[0] += 1
        order = Order(number, lines, name=fields.get("name", [""])[-1], address=fields.get("address", [""])[-1])
        order.history.append("placed")
        ORDERS[number] = order
    route(f"/order/{number}/")(_order_page(number))
    return _redirect(f"/pay/?order={number}", {"Set-Cookie": "cart=; Path=/; Max-Age=0"})


@route("/pay/")
def pay(req: Request) -> Response:
    number = _int(req.query.get("order") or req.form().get("order"), 0)
    order = ORDERS.get(number)
    if order is None:
        return Response(page("Payment · Bean & Leaf", "<h1>No such order</h1>"), status=404)
    if req.method == "POST":
        order.paid = True
        order.history.append("paid")
        return _redirect(f"/order/{number}/")
    if order.paid:
        return _redirect(f"/order/{number}/")
    amount = order.totals()
    body = f"""<h1>Payment 支付</h1>
<p>Order <strong>#{number}</strong> · amount due 应付金额 <strong class="price" id="amount">{esc(amount)}</strong></p>
<form method="post" action="/pay/">
  <input type="hidden" name="order" value="{number}">
  <p><label><input type="radio" name="method" value="card" checked> Card ending 4242</label>
     <label><input type="radio" name="method" value="wallet"> Mobile wallet 移动支付</label></p>
  <button type="submit" class="pay">Pay {esc(amount)}</button>
</form>"""
    return Response(page("Payment · Bean & Leaf", body))


def _order_page(number: int):
    def show(req: Request) -> Response:
        order = ORDERS[number]
        rows = "".join(
            f"<tr><td>{esc(BY_ID[pid]['name'])}</td><td>{qty}</td><td>{esc(price_text(BY_ID[pid], qty))}</td></tr>"
            for pid, qty in order.lines
        )
        if "delivered" in order.history:
            state = "Delivered on 28 November 2026 已签收 · tracking SF1234567890"
        elif order.paid:
            state = "Paid — preparing to ship 已付款"
        else:
            state = "Awaiting payment 待付款"
        body = f"""<h1>Order #{number}</h1>
<p>Status: <strong id="order-status">{state}</strong></p>
<table><thead><tr><th>Item</th><th>Qty</th><th>Price</th></tr></thead><tbody>{rows}</tbody></table>
<p>Total: <strong class="price">{esc(order.totals())}</strong></p>
<p>Ship to: {esc(order.name)}, {esc(order.address)}</p>"""
        return Response(page(f"Order #{number} · Bean & Leaf", body))

    return show


# A past order to read (delivered): what "read my order page" asks about.
ORDERS[1001] = Order(
    1001,
    [(17, 1), (3, 2)],
    name="Li Wei",
    address="88 Wensan Road, Hangzhou",
    paid=True,
    history=["placed", "paid", "delivered"],
)
ROUTES["/order/1001/"] = _order_page(1001)
