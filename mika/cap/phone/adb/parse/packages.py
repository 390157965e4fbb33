"""`pm list packages` (plain, `-f` with APK paths, `-U` with uids) → package names.

Lines that are not `package:` entries (an excerpt's "..." or comments, warnings) are
ignored; a name must look like a Java package to count.
"""

from __future__ import annotations

import re

from mika.cap.phone.adb.parse.decode import shell_text

_NAME = re.compile(r"^[A-Za-z][\w]*(\.[A-Za-z0-9_]+)+$|^[A-Za-z][\w]*$")


def parse_packages(data: bytes | str) -> tuple[str, ...]:
    out: list[str] = []
    for line in shell_text(data).split("\n"):
        line = line.strip()
        if not line.startswith("package:"):
            continue
        entry = line[len("package:") :].split()[0] if line[len("package:") :].strip() else ""
        # `-f`: package:/data/app/…/base.apk=com.example — the name is after the last '='.
        if "=" in entry and entry.startswith("/"):
            entry = entry.rsplit("=", 1)[1]
        if _NAME.match(entry) and entry not in out:
            out.append(entry)
    return tuple(out)
