"""What a request must be before any route sees it: addressed to this server, sent from its own
page, and carrying JSON.

:class:`RequestGuard` is ASGI middleware that refuses, with a JSON error and before the app runs:

* a ``Host`` that is neither an IP address nor a name the server answers to (400). A page on
  another site that rebinds its own name to this machine's address (DNS rebinding) sends its
  own name here, so it is refused; an address cannot be rebound.
* an API request sent from a page of another origin (403): its ``Origin`` is not this server's
  own (``Origin: null`` included), or the browser marks it ``Sec-Fetch-Site: cross-site`` or
  ``same-site``. Browsers send ``Origin`` with every cross-origin request that can change
  anything, ``no-cors`` ones included; programs that send none (curl, scripts) are let through.
* a request body that is not JSON (415): a form or ``text/plain`` is what another site can send
  without asking, so no route takes one;
* a body over ``max_body`` bytes (413): refused before it is read when its ``Content-Length``
  says so, and in any case once that many bytes have arrived (they are counted as they come,
  whatever the headers say, chunked or not).

A client that leaves before its request is read ends that request quietly.
"""

from __future__ import annotations

import contextlib
import ipaddress
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOCAL_NAMES = ("localhost",)
"""Names a server always answers to (beside every IP address)."""

_SAFE_FETCH_SITES = {"same-origin", "none"}
_BODY_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


def error_response(status: int, message: str) -> JSONResponse:
    """The app's error: ``{"error": message}`` on one line, with ``status``.

    A 413 also closes the connection, so that the rest of the body is never read."""
    headers = {"Connection": "close"} if status == 413 else None
    return JSONResponse({"error": " ".join(message.split())}, status_code=status, headers=headers)


def too_large(limit: int) -> str:
    """The message of a body over ``limit`` bytes."""
    return f"the request body is over {limit} bytes, the limit"


def host_name(host: str) -> str:
    """The name part of a ``Host`` header (no port, no IPv6 brackets), in lower case.

    >>> host_name("LocalHost:8000"), host_name("[::1]:80"), host_name("10.0.0.2")
    ('localhost', '::1', '10.0.0.2')
    """
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.rpartition(":")[0] if host.count(":") == 1 else host


def is_address(name: str) -> bool:
    """Whether ``name`` is an IP address (which no other site can rebind)."""
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class RequestGuard:
    """ASGI middleware: refuse requests for another host, from another origin, or with a body
    that is not JSON (see the module's docstring).

    Args:
        app: the app behind it.
        allowed_hosts: names (beside IP addresses and ``localhost``) the server answers to.
        max_body: the most bytes a request body may have.
    """

    def __init__(
        self, app: ASGIApp, allowed_hosts: Iterable[str] = (), max_body: int = 256 * 1024
    ) -> None:
        self.app = app
        self.allowed = {h.strip().lower() for h in (*LOCAL_NAMES, *allowed_hosts)}
        self.max_body = max_body

    def problem(self, scope: Scope) -> JSONResponse | None:
        """The error for a request that may not pass, or ``None``."""
        headers: dict[str, str] = {
            k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]
        }
        host = headers.get("host", "")
        name = host_name(host)
        if host and not (is_address(name) or name in self.allowed):
            return error_response(
                400,
                f"this server does not answer to the host {name[:100]!r}: use its address, "
                "or start it with --allow-host NAME",
            )
        if not str(scope.get("path", "")).startswith("/api/"):
            return None
        origin = headers.get("origin")
        if origin is not None and urlsplit(origin).netloc.lower() != host.lower():
            return error_response(403, "requests from other sites' pages are refused")
        site = headers.get("sec-fetch-site")
        if site is not None and site.lower() not in _SAFE_FETCH_SITES:
            return error_response(403, "requests from other sites' pages are refused")
        length = headers.get("content-length", "").strip()
        if length.isdigit() and int(length) > self.max_body:
            return error_response(413, too_large(self.max_body))
        if scope["method"] in _BODY_METHODS and _has_body(headers):
            kind = headers.get("content-type", "").partition(";")[0].strip().lower()
            if kind != "application/json":
                return error_response(
                    415, f"a request body must be JSON (Content-Type: application/json), not "
                    f"{kind[:60] or 'untyped'}"
                )  # fmt: skip
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        response = self.problem(scope)
        if response is not None:
            await response(scope, receive, send)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    raise HTTPException(413, too_large(self.max_body))  # the app answers in JSON
            return message

        with contextlib.suppress(ClientDisconnect):  # the client left: nobody to answer
            await self.app(scope, counted, send)


def _has_body(headers: dict[str, str]) -> bool:
    """Whether the request says it carries a body."""
    length = headers.get("content-length", "").strip()
    return "transfer-encoding" in headers or (length != "" and length != "0")
