"""The HTTP sender on a loopback socket: one that drips its answer's body byte by byte
is cut off once the attempt's time is out; a request names its URL's host and port."""

from __future__ import annotations

import socket
import threading
import time

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
