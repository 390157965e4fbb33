"""What kind of control a node is, in the few words the listing uses.

Decided from the node's flags first (a clickable FrameLayout is something to press,
whatever its class) and then from its class name, matched on the last dotted part so
`androidx.…RecyclerView`, `android.widget.ListView` and vendor subclasses all count.
"""

from __future__ import annotations

from mika.uistate.tree import UiNode

_BY_CLASS: tuple[tuple[str, str], ...] = (
    ("WebView", "webview"),
    ("Switch", "switch"),
    ("SwitchCompat", "switch"),
    ("ToggleButton", "switch"),
    ("CheckBox", "checkbox"),
    ("CheckedTextView", "checkbox"),
    ("RadioButton", "radio"),
    ("SeekBar", "slider"),
    ("RatingBar", "slider"),
    ("Spinner", "dropdown"),
    ("ProgressBar", "progress"),
    ("ImageButton", "button"),
    ("Button", "button"),
    ("ImageView", "image"),
    ("TabWidget", "tabs"),
    ("TabLayout", "tabs"),
    ("TabView", "tab"),
)

_LIST_CLASSES = (
    "RecyclerView",
    "ListView",
    "GridView",
    "ScrollView",
    "ViewPager",
    "ViewPager2",
    "HorizontalScrollView",
    "NestedScrollView",
    "AbsListView",
)


# Web pages (mika.cap.web.page_tree: class_name "web.<ARIA role>") in the listing's words.
_WEB_ROLES = {
    "link": "link",
    "button": "button",
    "togglebutton": "button",
    "popupbutton": "button",
    "checkbox": "checkbox",
    "menuitemcheckbox": "checkbox",
    "radio": "radio",
    "menuitemradio": "radio",
    "switch": "switch",
    "slider": "slider",
    "tab": "tab",
    "tablist": "tabs",
    "menuitem": "menuitem",
    "option": "option",
    "heading": "heading",
    "combobox": "dropdown",
    "listbox": "list",
    "progressbar": "progress",
    "iframe": "webview",
}


def web_role(node: UiNode) -> str:
    role = node.class_name[4:]
    if node.editable:
        return "input"
    if role in ("image", "img", "figure"):
        return "image" if (node.text or node.content_desc) else "view"
    known = _WEB_ROLES.get(role)
    if known is not None:
        return known
    if node.scrollable:
        return "list"
    if node.checkable:
        return "checkbox"
    if node.clickable:
        return "button" if node.text and not node.children else "item"
    return "text" if node.text else "view"


def role_of(node: UiNode) -> str:
    if node.class_name.startswith("web."):
        return web_role(node)
    name = node.short_class
    if node.editable:
        return "input"
    if name.endswith("WebView"):
        return "webview"
    if node.scrollable or name.endswith(_LIST_CLASSES):
        return "list" if node.scrollable else "group"
    for suffix, role in _BY_CLASS:
        if name.endswith(suffix):
            if role == "image" and (node.clickable or node.long_clickable):
                return "button"
            return role
    if node.checkable:
        return "checkbox"
    if node.clickable or node.long_clickable:
        return "button" if (node.text or node.content_desc) and not node.children else "item"
    if name.endswith("TextView") or node.text:
        return "text"
    return "view"
