"""The ``Secrets`` port: secrets the service must read back (a webhook's signing secret)
encrypted at rest with Fernet (AES-128-CBC and HMAC-SHA256, from ``cryptography``).

Keys come from ``PRESIDENT_SECRET_KEY``, comma-separated: the first encrypts, each one
decrypts, so a new key is put first and the old one dropped once every secret has been
sealed again (a rotated webhook secret is). Without it, one machine keeps a key of its
own in a file, made on first use."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from cryptography.fernet import Fernet, MultiFernet

from config.files import private_dir

KEY_FILE = "secret.key"


class FernetVault:
    def __init__(self, keys: list[str]) -> None:
        if not keys:
            raise ValueError("PRESIDENT_SECRET_KEY holds no key")
        self._fernet = MultiFernet([Fernet(key.strip().encode()) for key in keys])

    @classmethod
    def from_setting(cls, keys: str | None, var_dir: str) -> FernetVault:
        """``keys`` as the setting has them; None: this machine's key file."""
        if keys:
            return cls(keys.split(","))
        return cls([machine_key(Path(var_dir) / KEY_FILE)])

    def seal(self, secret: str) -> str:
        return self._fernet.encrypt(secret.encode()).decode()

    def open(self, sealed: str) -> str:
        return self._fernet.decrypt(sealed.encode()).decode()


def machine_key(path: Path) -> str:
    """The key in ``path``, made first (readable by this user only) if there is none. A
    new key is written whole to a file of its own, then linked in place: of processes
    racing, one links its key and all read that one."""
    if not path.exists():
        private_dir(path.parent)
        mine = path.with_name(f"{path.name}.{os.getpid()}.{uuid.uuid4().hex}")
        descriptor = os.open(mine, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(Fernet.generate_key().decode())
        try:
            os.link(mine, path)
        except FileExistsError:
            pass
        finally:
            mine.unlink()
    return path.read_text().strip()
