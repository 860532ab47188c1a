"""The HTTP sender on a loopback socket: a receiver that drips its answer, body or
status line, byte by byte is cut off once the attempt's time is out; a request names its
URL's host and port, in ASCII; no connection serves two attempts."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from receiver import Receiver
from workers.webhooks.http import HttpSender

BODY = 1000  # bytes the receiver would drip, one every DRIP_S
DRIP_S = 0.05


def test_a_receiver_dripping_its_answer_is_cut_off_at_the_attempt_s_time() -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    sent = [0]

    def drip() -> None:
        connection, _ = listener.accept()
        with connection:
            connection.recv(65536)  # the request
            connection.sendall(f"HTTP/1.1 200 OK\r\nContent-Length: {BODY}\r\n\r\n".encode())
            try:
                for _ in range(BODY):
                    connection.sendall(b"x")
                    sent[0] += 1
                    time.sleep(DRIP_S)
            except OSError:  # the sender closed the connection: what the test waits for
                return

    server = threading.Thread(target=drip, daemon=True)
    server.start()
    sender = HttpSender(0.5, "loopback")
    answer = sender.send(f"http://127.0.0.1:{listener.getsockname()[1]}/hook", "msg_1",
                         "{}", "whsec_" + "A" * 44)
    sender.close()
    server.join(timeout=BODY * DRIP_S)
    listener.close()
    assert answer.status_code == 200  # (the status came before the drip)
    assert not server.is_alive()  # the receiver found the connection closed
    assert sent[0] < BODY // 4  # half a second of dripping, not the whole body


def test_an_attempt_names_the_url_s_host_and_port_to_the_receiver_as_registered() -> None:
    """The request goes to the address checked, and its ``Host`` is the URL's host and
    port, nothing more of the URL (``localhost`` stays a name; a user name, which
    registration refuses, would not reach it either)."""
    receiver = Receiver()
    try:
        port = receiver.url.split(":")[2].split("/")[0]
        sender = HttpSender(2.0, "loopback")
        for host in ("127.0.0.1", "localhost", ":@127.0.0.1"):
            answer = sender.send(f"http://{host}:{port}/hook?x=1", "msg_1", "{}",
                                 "whsec_" + "A" * 44)
            assert answer.status_code == 200, answer
        sender.close()
        assert [r.headers["Host"] for r in receiver.received] == [
            f"127.0.0.1:{port}", f"localhost:{port}", f"127.0.0.1:{port}"]
        assert [r.path for r in receiver.received] == ["/hook?x=1"] * 3
    finally:
        receiver.close()


def test_a_receiver_dripping_its_status_line_is_cut_off_at_the_attempt_s_whole_time(
        ) -> None:
    """httpx times each read, and each byte resets it: only the attempt's own deadline
    (``STEPS`` times the timeout) ends it, and its worker with it."""
    listener = socket.create_server(("127.0.0.1", 0))

    def drip() -> None:
        connection, _ = listener.accept()
        with connection:
            connection.recv(65536)
            try:
                for byte in b"HTTP/1.1 200 OK\r\n" * 50:
                    connection.sendall(bytes([byte]))
                    time.sleep(DRIP_S)
            except OSError:
                return

    server = threading.Thread(target=drip, daemon=True)
    server.start()
    sender = HttpSender(0.2, "loopback")
    started = time.monotonic()
    answer = sender.send(f"http://127.0.0.1:{listener.getsockname()[1]}/hook", "msg_1",
                         "{}", "whsec_" + "A" * 44)
    took = time.monotonic() - started
    sender.close()
    listener.close()
    assert answer.status_code is None and "time ran out" in (answer.error or ""), answer
    assert sender.attempt_s <= took < sender.attempt_s + 2  # (not the drip's 40 s)


def test_each_attempt_has_a_connection_of_its_own() -> None:
    """No connection is kept for the next attempt: at the same address, it could be
    another endpoint's name, whose certificate the kept one was never checked against."""
    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[int] = []

    def serve() -> None:  # (every request a connection brings is answered)
        for _ in range(2):
            connection, _ = listener.accept()
            accepted.append(1)
            with connection:
                while connection.recv(65536):
                    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    sender = HttpSender(2.0, "loopback")
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/hook"
    answers = [sender.send(url, f"msg_{n}", "{}", "whsec_" + "A" * 44) for n in range(2)]
    sender.close()
    listener.close()
    assert [a.status_code for a in answers] == [200, 200] and len(accepted) == 2


def test_a_host_named_in_unicode_is_sent_as_its_ascii_name(
        monkeypatch: pytest.MonkeyPatch) -> None:
    receiver = Receiver()
    try:
        port = int(receiver.url.split(":")[2].split("/")[0])
        real = socket.getaddrinfo
        monkeypatch.setattr(socket, "getaddrinfo", lambda host, *rest, **kw: real(
            "127.0.0.1" if host == "bücher.example" else host, *rest, **kw))
        sender = HttpSender(2.0, "loopback")
        answer = sender.send(f"http://bücher.example:{port}/hook", "msg_1", "{}",
                             "whsec_" + "A" * 44)
        sender.close()
        assert answer.status_code == 200, answer
        assert receiver.received[0].headers["Host"] == f"xn--bcher-kva.example:{port}"
    finally:
        receiver.close()
