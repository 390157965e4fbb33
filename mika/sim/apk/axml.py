"""Android binary XML (what aapt2 compiles AndroidManifest.xml into) read back as a tree.

Attributes are keyed by their plain name ("versionCode", "package"). Obfuscated or
stripped APKs leave attribute names empty and keep only the resource id (the resource
map chunk), so the android: attributes a manifest reader needs are also looked up by id.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from .chunks import (
    TYPE_INT_BOOLEAN,
    TYPE_INT_DEC,
    TYPE_INT_HEX,
    TYPE_REFERENCE,
    TYPE_STRING,
    ChunkError,
    chunks,
    string_pool,
)

XML = 0x0003
RESOURCE_MAP = 0x0180
START_ELEMENT = 0x0102
END_ELEMENT = 0x0103

# android:… attribute resource ids (frameworks/base/core/res/res/values/public.xml)
ATTR_IDS = {
    0x01010001: "label",
    0x01010003: "name",
    0x0101021B: "versionCode",
    0x0101021C: "versionName",
    0x0101020C: "minSdkVersion",
    0x01010270: "targetSdkVersion",
    0x01010202: "targetActivity",
}
_NO_INDEX = 0xFFFFFFFF


@dataclass(frozen=True)
class Reference:
    """A value that names a resource (@string/app_name is 0x7f……)."""

    id: int


Value = str | int | bool | Reference


@dataclass
class Element:
    tag: str
    attrs: dict[str, Value] = field(default_factory=dict)
    children: list[Element] = field(default_factory=list)

    def iter(self, tag: str) -> list[Element]:
        found = [self] if self.tag == tag else []
        for child in self.children:
            found += child.iter(tag)
        return found


def parse(data: bytes) -> Element:
    """The document's root element; raises ChunkError when `data` isn't binary XML."""
    if len(data) < 8 or struct.unpack_from("<H", data, 0)[0] != XML:
        raise ChunkError("not an Android binary XML document")
    (total,) = struct.unpack_from("<I", data, 4)
    strings: list[str] = []
    res_ids: tuple[int, ...] = ()
    stack: list[Element] = [Element("#document")]
    for chunk in chunks(data, 8, min(total, len(data))):
        if chunk.type == 0x0001:
            strings = string_pool(data, chunk)
        elif chunk.type == RESOURCE_MAP:
            n = (chunk.end - chunk.start - chunk.header_size) // 4
            res_ids = struct.unpack_from(f"<{n}I", data, chunk.start + chunk.header_size)
        elif chunk.type == START_ELEMENT:
            element = _element(data, chunk.start + chunk.header_size, strings, res_ids)
            stack[-1].children.append(element)
            stack.append(element)
        elif chunk.type == END_ELEMENT and len(stack) > 1:
            stack.pop()
    if not stack[0].children:
        raise ChunkError("binary XML without an element")
    return stack[0].children[0]


def _string(strings: list[str], index: int) -> str:
    return strings[index] if index != _NO_INDEX and index < len(strings) else ""


def _element(data: bytes, pos: int, strings: list[str], res_ids: tuple[int, ...]) -> Element:
    _ns, name, attr_start, attr_size, count = struct.unpack_from("<IIHHH", data, pos)
    element = Element(_string(strings, name))
    for i in range(count):
        a = pos + attr_start + i * attr_size
        _ans, aname, raw, _vsize, _res0, vtype, vdata = struct.unpack_from("<IIIHBBI", data, a)
        key = _string(strings, aname)
        if aname < len(res_ids) and res_ids[aname] in ATTR_IDS:
            key = ATTR_IDS[res_ids[aname]]
        value: Value
        if vtype == TYPE_STRING:
            value = _string(strings, vdata)
        elif vtype in (TYPE_INT_DEC, TYPE_INT_HEX):
            value = vdata - (1 << 32) if vdata & 0x80000000 else vdata
        elif vtype == TYPE_INT_BOOLEAN:
            value = vdata != 0
        elif vtype == TYPE_REFERENCE:
            value = Reference(vdata)
        else:
            value = _string(strings, raw) if raw != _NO_INDEX else vdata
        if key:
            element.attrs[key] = value
    return element
