"""The ``WebhookSender`` port over HTTP (httpx), signed as the Standard Webhooks
specification says (the ``standardwebhooks`` package).

No server-side request forgery: the endpoint's host is resolved, every address it
resolves to must be public (unless ``private`` allows loopback or every address), and
the request goes to the address that was checked (a name that resolves elsewhere a
moment later changes nothing; HTTPS still checks the certificate against the name, on a
connection of the attempt's own: none is kept for the next, which could be another name
at the same address). Redirects are not followed; an attempt has ``timeout_s`` for each
step and ``STEPS`` times that in all, however slowly a receiver drips its answer; at most
``ANSWER_BYTES`` of the answer are read."""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from datetime import datetime, timezone
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
from standardwebhooks import Webhook

from services.domain import Answer
from services.errors import UrlRefused

ANSWER_BYTES = 64 * 1024
STEPS = 3  # an attempt's: connect, send and get the status, read the answer
PRIVATE = ("off", "loopback", "on")
USER_AGENT = "president-webhooks/1"

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


# IPv6 prefixes that stand for IPv4 addresses a gateway translates to, whatever they
# are: SIIT's (RFC 6145), NAT64's (RFC 6052, RFC 8215), 6to4's (RFC 3056). Which address
# is reached is the gateway's business, not what is checked here: never called.
TRANSLATED = tuple(ipaddress.IPv6Network(prefix) for prefix in (
    "::ffff:0:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48", "2002::/16"))
REFUSED = ("the webhook URL's host does not resolve to an address this service calls "
           "(one on the public internet)")  # (the same whatever it resolved to, or not)


def refused(address: Address, private: str) -> bool:
    """Whether an endpoint may not be called at ``address``. An IPv4 address mapped into
    IPv6 is judged as itself; one embedded in another of IPv6's forms, as itself too,
    and the IPv6 address as well; a translated one never."""
    if isinstance(address, ipaddress.IPv6Address):
        if any(address in prefix for prefix in TRANSLATED):
            return True
        if address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        elif (inner := _ipv4_in(address)) is not None and refused(inner, private):
            return True
    if address.is_multicast or address.is_unspecified:
        return True
    if private == "on" or (private == "loopback" and address.is_loopback):
        return False
    return not address.is_global


def _ipv4_in(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries: compatible (::a.b.c.d) or Teredo's client
    (2001::/32)."""
    if address.teredo is not None:
        return address.teredo[1]
    if 1 < int(address) < 2 ** 32:
        return ipaddress.IPv4Address(int(address))
    return None


class HttpSender:
    def __init__(self, timeout_s: float, private: str = "off") -> None:
        if private not in PRIVATE:
            raise ValueError(f"PRESIDENT_WEBHOOK_PRIVATE_URLS is one of {', '.join(PRIVATE)}, "
                             f"not {private!r}")
        self._private = private
        self._timeout_s = timeout_s
        self._client = httpx.Client(timeout=timeout_s, follow_redirects=False,
                                    headers={"User-Agent": USER_AGENT},
                                    limits=httpx.Limits(max_keepalive_connections=0))

    @property
    def attempt_s(self) -> float:
        """The longest an attempt takes (a message's lease must be longer)."""
        return STEPS * self._timeout_s

    def check(self, url: str) -> None:
        self._address(url)

    def _address(self, url: str) -> Address:
        """The first address of the URL's host, all of them checked."""
        parts = urlsplit(url)
        host = parts.hostname or ""
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
            found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (socket.gaierror, UnicodeError, ValueError):
            raise UrlRefused(REFUSED) from None
        addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in found]
        if not addresses or any(refused(a, self._private) for a in addresses):
            raise UrlRefused(REFUSED)
        return addresses[0]

    def send(self, url: str, webhook_id: str, body: str, secret: str) -> Answer:
        started = time.monotonic()
        watchdog = _Watchdog(self.attempt_s)
        try:
            address = self._address(url)
            parts = urlsplit(url)
            host = f"[{address}]" if address.version == 6 else str(address)
            pinned = urlunsplit(parts._replace(netloc=f"{host}:{parts.port or ''}".rstrip(":")))
            now = datetime.now(timezone.utc)
            name = (parts.hostname or "").encode("idna").decode()  # (a header is ASCII)
            named = f"[{name}]" if ":" in name else name
            headers = {
                "Host": f"{named}:{parts.port}" if parts.port else named,
                "Content-Type": "application/json",
                "webhook-id": webhook_id, "webhook-timestamp": str(int(now.timestamp())),
                "webhook-signature": Webhook(secret).sign(webhook_id, now, body)}
            extensions: dict[str, Any] = {"trace": watchdog.trace}
            if parts.scheme == "https":
                extensions["sni_hostname"] = parts.hostname
            with self._client.stream("POST", pinned, content=body.encode(), headers=headers,
                                     extensions=extensions) as answer:
                _read_some(answer)
                return Answer(answer.status_code, _ms_since(started))
        except UrlRefused as error:
            return Answer(None, _ms_since(started), error.message)
        except (httpx.HTTPError, UnicodeError) as error:
            late = " (the attempt's time ran out)" if watchdog.fired else ""
            return Answer(None, _ms_since(started),
                          f"{type(error).__name__}: {error}{late}"[:300])
        finally:
            watchdog.cancel()

    def close(self) -> None:
        self._client.close()


class _Watchdog:
    """Shuts an attempt's connection down once its time is out: httpx times each step
    (each read, too, so a receiver that drips its answer a byte at a time would hold the
    attempt, and its worker, without end), not the attempt. The connection is the one
    httpx reports having opened (its ``trace`` extension)."""

    def __init__(self, seconds: float) -> None:
        self.fired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def trace(self, event: str, info: dict[str, Any]) -> None:
        if event == "connection.connect_tcp.complete":
            with self._lock:
                self._sockets.append(info["return_value"].get_extra_info("socket"))
                if self.fired:
                    self._shut()

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            self._shut()

    def _shut(self) -> None:
        for sock in self._sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)  # (its reads return at once)
            except OSError:
                pass  # closed already

    def cancel(self) -> None:
        self._timer.cancel()


def _read_some(answer: httpx.Response) -> None:
    """At most ``ANSWER_BYTES`` of the answer: nothing of it is kept but its status,
    which came before it, so a body cut short (the attempt's time out) is no failure."""
    read = 0
    try:
        for chunk in answer.iter_raw():
            read += len(chunk)
            if read >= ANSWER_BYTES:
                return
    except httpx.HTTPError:
        return


def _ms_since(started: float) -> int:
    return round((time.monotonic() - started) * 1000)
