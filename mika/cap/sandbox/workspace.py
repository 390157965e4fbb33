"""A conversation's workspace, and the host-side path checks of the file tools.

The workspace is a folder in Mika's state (`workspaces/<conversation>/`), seen inside the
sandbox as /workspace; it stays across the conversation's runs. The file tools (read,
write, search, share) touch it from the host, where a path the model gives could point
anywhere: so every path is taken relative to the workspace (or as `/workspace/…`), resolved
with its `..` and symlinks, and refused unless the real file is inside the workspace. A
symlink a command made to /etc/passwd or to the state folder resolves outside and is
refused; so are NUL bytes, other absolute paths, over-long names and anything that is not
a plain file (a FIFO a command left would block a read forever).

No sandbox process is alive between two commands (each command's namespace dies with it),
so nothing can swap a link between the check and the open but another tool call of the
same run; the final open uses O_NOFOLLOW so even that finds no link to follow.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath

from mika.config.paths import workspace_dir

INSIDE = "/workspace"
PATH_MAX = 1024  # characters of a path the model may give
NAME_MAX = 255  # bytes of one name (the file systems' own limit)


class PathRefused(Exception):
    """A path the file tools will not touch; the sentence says why and what to do."""


class Workspace:
    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def for_conversation(cls, state_dir: Path, conversation_id: str) -> Workspace:
        return cls(workspace_dir(state_dir, conversation_id))

    def ensure(self) -> Path:
        """The workspace folder, made if missing (private to the user)."""
        if self.root.is_symlink():
            raise PathRefused(f"the workspace {self.root} is a symlink; remove it and try again")
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        return self.root

    def has_files(self) -> bool:
        """Whether earlier runs left anything here (the sandbox group is then preloaded)."""
        try:
            return self.root.is_dir() and not self.root.is_symlink() and any(self.root.iterdir())
        except OSError:
            return False

    def _real_root(self) -> Path:
        return Path(os.path.realpath(self.ensure()))

    def relative(self, path: str) -> PurePosixPath:
        """`path` as given by the model, checked and made relative to the workspace."""
        if not isinstance(path, str) or not path.strip():
            raise PathRefused("a path is needed: a file in the workspace, like data/out.csv")
        if "\0" in path:
            raise PathRefused("the path contains a NUL byte; give a plain file name")
        if len(path) > PATH_MAX:
            raise PathRefused(f"the path is {len(path)} characters long; keep it under {PATH_MAX}")
        pure = PurePosixPath(path.strip())
        if pure.is_absolute():
            if pure == PurePosixPath(INSIDE) or PurePosixPath(INSIDE) in pure.parents:
                pure = pure.relative_to(INSIDE)
            else:
                raise PathRefused(
                    f"{path!r} is outside the workspace: only files under /workspace can be used "
                    "(give a path like data/out.csv or /workspace/data/out.csv)"
                )
        for part in pure.parts:
            if len(part.encode("utf-8", "surrogatepass")) > NAME_MAX:
                raise PathRefused(f"a name in the path is longer than {NAME_MAX} bytes; use a shorter one")
        return pure

    def resolve(self, path: str) -> Path:
        """The real host path of `path`, after `..` and symlinks; PathRefused when it is not
        inside the workspace."""
        rel = self.relative(path)
        root = self._real_root()
        real = Path(os.path.realpath(root / rel))
        if real != root and root not in real.parents:
            raise PathRefused(
                f"{path!r} leads outside the workspace (through '..' or a symlink); "
                "only files inside /workspace can be used"
            )
        return real

    def inside(self, host: Path) -> str:
        """How the sandbox names a host path of the workspace."""
        rel = host.relative_to(self._real_root())
        return INSIDE if str(rel) == "." else f"{INSIDE}/{rel.as_posix()}"

    def open_file(self, path: str, *, write: bool = False) -> tuple[int, Path]:
        """(an fd, the real path) of a plain file in the workspace: for reading, or made or
        truncated for writing (its folders made). O_NOFOLLOW and O_NONBLOCK: no link is
        followed, no FIFO blocks; anything but a plain file is refused."""
        real = self.resolve(path)
        if write:
            real.parent.mkdir(parents=True, exist_ok=True)
            if self.resolve(self.inside(real.parent)) != real.parent:  # a link raced in: refuse
                raise PathRefused(f"{path!r} leads outside the workspace")
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
        else:
            flags = os.O_RDONLY
        try:
            fd = os.open(real, flags | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0), 0o600)
        except FileNotFoundError:
            raise PathRefused(f"there is no file {path!r} in the workspace") from None
        except IsADirectoryError:
            raise PathRefused(f"{path!r} is a folder, not a file") from None
        except OSError as exc:
            raise PathRefused(f"{path!r} cannot be opened: {exc.strerror or exc}") from None
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            os.close(fd)
            kind = "a folder" if stat.S_ISDIR(mode) else "not a plain file"
            raise PathRefused(f"{path!r} is {kind}; only plain files can be read or written")
        os.set_blocking(fd, True)
        return fd, real
