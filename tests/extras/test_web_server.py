"""``allfives serve`` as a real server, over real sockets: what it prints, and how it holds
when a client lies about a body's length or leaves mid-request."""

from __future__ import annotations

import json
import socket
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from live_server import Server, start

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    s = start()
    yield s
    s.stop()


def rss_kib(pid: int) -> int:
    """The resident memory of process ``pid``."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_port_0_prints_the_port_it_bound(server: Server) -> None:
    assert server.port > 0
    page = urllib.request.urlopen(f"{server.url}/", timeout=10).read().decode()
    assert "allfives" in page


def test_a_body_that_lies_about_its_length_is_cut_off_at_the_limit(server: Server) -> None:
    before = rss_kib(server.proc.pid)
    head = (
        "POST /api/replays HTTP/1.1\r\n"
        f"Host: 127.0.0.1:{server.port}\r\n"
        "Content-Type: application/json\r\n"
        "Content-Length: 2\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    ).encode()
    chunk = b"%x\r\n" % 100_000 + b" " * 100_000 + b"\r\n"
    sent = 0
    reply = b""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(head)
        try:
            for _ in range(600):  # 60 MB, were it all read
                s.sendall(chunk)
                sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server closed the connection: the rest is never read
        try:
            while data := s.recv(65536):
                reply += data
        except ConnectionResetError:
            pass
    status, _, rest = reply.partition(b"\r\n")
    assert b" 413 " in status, reply[:200]
    headers, _, body = rest.partition(b"\r\n\r\n")
    assert b"content-type: application/json" in headers.lower()
    assert "over 262144 bytes" in json.loads(body)["error"]
    assert sent < 30_000_000
    assert rss_kib(server.proc.pid) - before < 30_000
    urllib.request.urlopen(f"{server.url}/api/options", timeout=10).read()  # still serving


def test_a_client_that_leaves_mid_upload_leaves_no_traceback() -> None:
    s = start()
    try:
        for _ in range(3):
            with socket.create_connection(("127.0.0.1", s.port), timeout=10) as c:
                c.sendall(
                    (
                        "POST /api/replays HTTP/1.1\r\n"
                        f"Host: 127.0.0.1:{s.port}\r\n"
                        "Content-Type: application/json\r\n"
                        "Content-Length: 5000\r\n\r\n"
                        '{"format": "allfives-record/1", "hands": ['
                    ).encode()
                )
                time.sleep(0.3)
        time.sleep(0.5)
        urllib.request.urlopen(f"{s.url}/api/options", timeout=10).read()
    finally:
        err = s.stop()
    assert "Traceback" not in err and "Exception" not in err, err


def test_listening_beyond_this_machine_is_warned_about() -> None:
    s = start("--host", "0.0.0.0")
    err = s.stop()
    assert "warning: listening on 0.0.0.0" in err and "no login" in err
    assert s.url.startswith("http://127.0.0.1:")  # the address to open here, with its port
    quiet = start()
    assert "warning" not in quiet.stop()
