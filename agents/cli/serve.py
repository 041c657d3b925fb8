"""``allfives serve``: the web app on this machine (see :mod:`allfives_web.app`)."""

from __future__ import annotations

import argparse
import importlib.util
import socket
from typing import Any

from agents.cli.options import fail, positive_int

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
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
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


def run_serve(args: argparse.Namespace) -> int:
    """Run ``allfives serve`` until Ctrl-C; return the exit status.

    A missing extra, a bad port, a port in use or an agent that cannot be made is one line on
    stderr and status 2, before anything listens.
    """
    missing = [m for m in WEB_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        return fail(
            f"serve needs the [web] extra (missing: {', '.join(missing)}): pip install -e '.[web]'"
        )
    if not 0 <= args.port < 65536:
        return fail(f"--port must be from 0 to 65535, not {args.port}")
    try:
        with socket.create_server((args.host, args.port)):
            pass
    except OSError as e:
        return fail(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}")
    import uvicorn

    from allfives_web.app import Settings, create_app
    from allfives_web.catalogue import CatalogueError

    settings = Settings(
        agents=tuple(args.agent),
        max_games=args.max_games,
        idle_seconds=60.0 * args.idle_minutes,
    )
    try:
        app = create_app(settings)
    except CatalogueError as e:
        return fail(str(e))
    names = ", ".join(app.state.catalogue.entries)
    print(f"allfives serve: http://{args.host}:{args.port}/  (agents: {names}; Ctrl-C stops)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
