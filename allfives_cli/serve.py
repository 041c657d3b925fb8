"""``allfives serve``: the web app on this machine (see :mod:`allfives_web.app`)."""

from __future__ import annotations

import argparse
import importlib.util
import ipaddress
import socket
import sys
from typing import Any

from allfives_cli.options import fail, positive_int

WEB_MODULES = ("fastapi", "uvicorn")
"""What the ``[web]`` extra installs."""


def add_serve_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the ``serve`` subcommand to ``subparsers`` (run it with :func:`run_serve`)."""
    p = subparsers.add_parser(
        "serve",
        help="play, watch and replay games in the browser",
        description="Serve the web page to play against agents, watch them play each other and "
        "replay game records. Requests choose agents by name among the built-in ones and those "
        "given with --agent; they never name a path.",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 opens it to "
        "the network, without any login)",
    )
    p.add_argument(
        "--port", type=int, default=8000, help="port (default 8000; 0: any free port, printed)"
    )
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name the page may be reached by, beside localhost and any IP address "
        "(repeatable; other names are refused, which stops DNS rebinding)",
    )
    p.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="[NAME=]SPEC",
        help="offer another agent, e.g. bot=runs/default/best.zip or search:sims=400 "
        "(repeatable; a checkpoint is named after its folder unless NAME is given)",
    )
    p.add_argument(
        "--max-games", type=positive_int, default=32, help="live games at most (default 32)"
    )
    p.add_argument(
        "--idle-minutes",
        type=positive_int,
        default=30,
        help="a game untouched this long expires (default 30)",
    )


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port`` (port 0: any free one).

    Raises:
        OSError: when the address cannot be listened on (in use, not this machine's...).
    """
    from allfives_web.guard import is_address

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    if family == socket.AF_INET and not is_address(host):
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    return socket.create_server((host, port), family=family)


def url_of(sock: socket.socket) -> str:
    """The address to open in a browser for a server listening on ``sock``."""
    host, port = sock.getsockname()[:2]
    if ipaddress.ip_address(host).is_unspecified:  # every interface: this machine is one
        host = "127.0.0.1" if sock.family == socket.AF_INET else "::1"
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/"


def run_serve(args: argparse.Namespace) -> int:
    """Run ``allfives serve`` until Ctrl-C; return the exit status.

    A missing extra, a bad port, a port in use or an agent that cannot be made is one line on
    stderr and status 2, before anything listens. The address printed is the one bound (its
    port, also when ``--port 0`` let the system choose); listening beyond this machine (an
    address that is not loopback) is warned about on stderr.
    """
    missing = [m for m in WEB_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        return fail(
            f"serve needs the [web] extra (missing: {', '.join(missing)}): pip install -e '.[web]'"
        )
    if not 0 <= args.port < 65536:
        return fail(f"--port must be from 0 to 65535, not {args.port}")
    import uvicorn

    from allfives_web.app import Settings, create_app
    from allfives_web.catalogue import CatalogueError

    settings = Settings(
        agents=tuple(args.agent),
        max_games=args.max_games,
        idle_seconds=60.0 * args.idle_minutes,
        allowed_hosts=(args.host, *args.allow_host),
    )
    try:
        app = create_app(settings)
    except CatalogueError as e:
        return fail(str(e))
    try:
        sock = listen(args.host, args.port)
    except OSError as e:
        return fail(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}")
    with sock:
        bound = sock.getsockname()[0]
        if not ipaddress.ip_address(bound).is_loopback:
            print(
                f"allfives serve: warning: listening on {bound}, open to every machine that can "
                "reach this one, with no login; --host 127.0.0.1 keeps it to this machine",
                file=sys.stderr,
            )
        names = ", ".join(app.state.catalogue.entries)
        print(f"allfives serve: {url_of(sock)}  (agents: {names}; Ctrl-C stops)", flush=True)
        config = uvicorn.Config(app, log_level="warning")
        uvicorn.Server(config).run(sockets=[sock])
    return 0
