"""Ports for the processes benchmarks and tests start: never a fixed number, which
something else on the machine may hold."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A loopback port the OS had free just now (bound to port 0, then let go): for a
    process that only takes a port number. Where the process can take a socket, prefer
    ``bound_socket``, which holds the port until the process has it."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def bound_socket() -> socket.socket:
    """A TCP socket bound to a free loopback port (not listening yet), for a server to
    inherit (gunicorn's ``--bind fd://N``)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.set_inheritable(True)
    return s


def reserved_port() -> socket.socket:
    """A socket bound with SO_REUSEPORT to a free loopback port, never listening: it holds
    the port for as long as it is open, while servers that bind with SO_REUSEPORT too (the
    gRPC AI worker, ``president ai-worker``) come and go on it. Only listening sockets
    are given connections."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    s.bind(("127.0.0.1", 0))
    return s
