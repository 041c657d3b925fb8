"""A live ``allfives serve`` for the tests that need real sockets or a real browser."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from typing import Any


@dataclass
class Server:
    """A running ``allfives serve``: its address, port and process."""

    url: str
    port: int
    proc: subprocess.Popen[str]

    def stop(self) -> str:
        """Stop it; return what it wrote on stderr."""
        self.proc.terminate()
        _, err = self.proc.communicate(timeout=30)
        return err


def start(*args: str) -> Server:
    """``allfives serve --port 0 ARGS``, once it answers (the port read from what it prints)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "allfives_env", "serve", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith("allfives serve: http://"), (line, proc.poll())
    url = line.split()[2].rstrip("/")
    port = int(url.rsplit(":", 1)[1])
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/options", timeout=2).read()
            return Server(url, port, proc)
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"allfives serve did not start: {proc.communicate()}") from None
            time.sleep(0.2)


def call(url: str, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    """``method path`` on the server at ``url`` (as a program would: no Origin); its JSON."""
    data = None if body is None else json.dumps(body).encode()
    headers = {} if body is None else {"Content-Type": "application/json"}
    request = urllib.request.Request(url + path, data=data, headers=headers, method=method)
    with urllib.request.urlopen(request, timeout=30) as r:
        return json.loads(r.read())
