"""What the service keeps on a machine's own disk (``PRESIDENT_VAR_DIR``: the SQLite
databases, the embedded broker's, the machine's secret key) is for its own user only: a
database holds every hand and every running game's seed."""

from __future__ import annotations

import os
from pathlib import Path


def private_dir(path: Path) -> None:
    """``path`` made a folder only its user may enter (0700), if it is none yet; one
    there already is left as its owner set it."""
    if not path.is_dir():
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        path.chmod(0o700)  # (mkdir's mode went through the umask)


def private_file(path: Path) -> None:
    """``path`` made an empty file only its user may read (0600), in a private folder,
    if there is none yet (SQLite then keeps it, and gives its journals the same mode)."""
    private_dir(path.parent)
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
