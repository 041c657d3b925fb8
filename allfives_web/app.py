"""The web app (``allfives serve``): a JSON API over live games, and the page that uses it.

Routes (every error is JSON ``{"error": "..."}`` with a 4xx status, and changes nothing):

``GET /``
    The page (static HTML, CSS and JavaScript shipped in this package).
``GET /api/options``
    The agents on offer, the presets with their player counts, and the server's limits.
``POST /api/games``
    A new match: ``{"preset", "players", "partnerships", "max_pip", "hand_size", "target",
    "seats", "seed", "pace"}`` (``max_pip``: the double-N set, 6 by default; ``hand_size`` and
    ``target``: the preset's unless given, and a smaller set needs smaller hands); ``seats``
    names each seat's agent from the catalogue, or ``"human"`` (at most one: the person at the
    page; none: the agents play and the page watches). ``pace`` is ``"auto"`` (the agents move
    by themselves, up to the person's turn) or ``"step"`` (one agent action per ``step``).
    Returns the state, with its ``id``; a seed the server drew shows only once the match is
    over.
``GET /api/games/{id}``
    The state: the table from the person's seat (watching or replaying: every hand).
``POST /api/games/{id}/move``
    The person's move ``{"action": "4-1 E"}`` (``"draw"``, ``"pass"``); the agents then move
    until it is the person's turn again or the hand is over. 409 for an illegal move, naming it.
``POST /api/games/{id}/step``
    The next agent's action (watching, at a hand's end: the next hand's deal).
``POST /api/games/{id}/next``
    Deal the next hand after one has ended.
``POST /api/games/{id}/seek``
    A replay: go to position ``{"at": k}``.
``GET /api/games/{id}/record``
    The game record (RULES.md §4) as a JSON download: with a person, of the hands that have
    ended (409 before the first has); watching, of every hand dealt.
``DELETE /api/games/{id}``
    Close a game.
``POST /api/replays``
    Open a game record (the request body is the record's JSON) for replaying.

Bounds: request bodies are JSON (415), read strictly (422 for a key given twice in an object,
``NaN`` or ``Infinity``: :mod:`allfives_web.bodies`), of at most ``max_body`` bytes, counted
as they arrive (413); requests must name this server as their host and come from its own page,
not another site's (:mod:`allfives_web.guard`: 400, 403); at most ``max_games`` games live at
once (429), and ``per_client`` of one client (its next one closes its least recently used); a
game idle for ``idle_seconds`` expires; ids are random and unguessable; nothing in a request
names a path on the server. An error of the server's own is a JSON 500, logged.

What a person is sent holds only what their seat may know (:mod:`allfives_web.sessions`).
"""

from __future__ import annotations

import json
import logging
import secrets
from dataclasses import dataclass
from importlib.resources import files
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from agents.base import Agent
from agents.errors import AgentError
from allfives_env.core.errors import AllFivesError, RecordError, shorten
from allfives_env.core.records import decode_json
from allfives_env.core.rules import PRESETS, Rules
from allfives_env.core.seeds import SEED_LIMIT
from allfives_env.envs.settings import rules_of
from allfives_web.bodies import StrictJSONRoute
from allfives_web.catalogue import HUMAN, Catalogue
from allfives_web.guard import RequestGuard, error_response
from allfives_web.sessions import (
    Pace,
    PersonSeat,
    PlaySession,
    ReplaySession,
    Session,
    WebError,
)
from allfives_web.store import SessionStore

STATIC = files("allfives_web") / "static"


@dataclass(frozen=True)
class Settings:
    """The server's bounds and agents."""

    agents: tuple[str, ...] = ()
    """``[NAME=]SPEC`` of agents offered beside the built-in ones (checkpoints, say)."""
    max_games: int = 32
    """Live games at most."""
    idle_seconds: float = 1800.0
    """A game untouched this long expires."""
    max_body: int = 256 * 1024
    """Request bodies (an uploaded record) at most this many bytes."""
    per_client: int = 8
    """Live games of one client (address) at most: its next closes its least recently used."""
    allowed_hosts: tuple[str, ...] = ()
    """Names the server answers to in the ``Host`` header, beside ``localhost`` and every IP
    address (see :mod:`allfives_web.guard`)."""


class NewGame(BaseModel):
    """The body of ``POST /api/games``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    preset: str = "pagat"
    players: int = 2
    partnerships: bool | None = None
    max_pip: int = 6
    hand_size: int | None = None
    target: int | None = None
    seats: list[str] = Field(min_length=2, max_length=4)
    seed: int | None = Field(default=None, ge=0, lt=SEED_LIMIT)  # the one seed rule
    pace: Pace = "auto"


class Move(BaseModel):
    """The body of ``POST /api/games/{id}/move``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    action: str = Field(max_length=40)


class Seek(BaseModel):
    """The body of ``POST /api/games/{id}/seek``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    at: int


def _validation_message(exc: RequestValidationError) -> str:
    """The first problem of a request body, as one line."""
    errors = exc.errors()
    if not errors:
        return "bad request"
    e = errors[0]
    if e.get("type") == "json_invalid":
        return "the body is not valid JSON"
    where = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
    if not where:
        return "the body must be a JSON object of the fields this request takes"
    return f"{where}: {e.get('msg', 'invalid')}"


def create_app(settings: Settings | None = None) -> FastAPI:
    """The app, with its own catalogue of agents and store of games.

    Raises:
        CatalogueError: for an agent of ``settings.agents`` that cannot be made.
    """
    settings = settings or Settings()
    catalogue = Catalogue(settings.agents)
    store = SessionStore(settings.max_games, settings.idle_seconds, per_client=settings.per_client)
    app = FastAPI(title="allfives", docs_url=None, redoc_url=None, openapi_url=None)
    app.router.route_class = StrictJSONRoute  # every route below reads its body strictly
    app.state.store = store
    app.state.catalogue = catalogue
    app.add_middleware(
        RequestGuard, allowed_hosts=settings.allowed_hosts, max_body=settings.max_body
    )
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")

    @app.exception_handler(WebError)
    async def web_error(request: Request, exc: WebError) -> JSONResponse:
        return error_response(exc.status, str(exc))

    @app.exception_handler(RequestValidationError)
    async def bad_body(request: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(422, _validation_message(exc))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return error_response(exc.status_code, str(exc.detail))

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> JSONResponse:
        # a fault of the server's, not the request's: logged with its traceback, answered in JSON
        logging.getLogger("allfives.web").exception("error in %s", request.url.path)
        return error_response(500, "the server failed on this request (its log says why)")

    @app.get("/", response_class=HTMLResponse)
    def index() -> HTMLResponse:
        return HTMLResponse((STATIC / "index.html").read_text(encoding="utf-8"))

    @app.get("/api/options")
    def options() -> dict[str, Any]:
        presets = {
            name: {
                "players": [2, 3, 4],
                "partnerships": Rules.preset(name, 4).partnerships,
            }
            for name in PRESETS
        }
        return {
            "agents": catalogue.to_json(),
            "presets": presets,
            "limits": {
                "max_games": settings.max_games,
                "idle_seconds": settings.idle_seconds,
                "max_body": settings.max_body,
            },
        }

    @app.post("/api/games", status_code=201)
    def new_game(body: NewGame, request: Request) -> dict[str, Any]:
        rules = _rules(body)
        agents = _seat_agents(catalogue, rules, body.seats)
        given = body.seed is not None
        # a seed the server draws is secret until the match ends, and too large to search for
        # (53 bits: a page's JavaScript reads it exactly)
        seed = body.seed if body.seed is not None else secrets.randbelow(2**53)
        session = store.add(
            lambda: PlaySession(rules, body.seats, agents, seed, given, body.pace),
            _client(request),
        )
        with session.lock:
            return session.state()

    @app.get("/api/games/{sid}")
    def get_game(sid: str) -> dict[str, Any]:
        session = store.get(sid)
        with session.lock:
            return session.state()

    @app.post("/api/games/{sid}/move")
    def move(sid: str, body: Move) -> dict[str, Any]:
        session = _play(store.get(sid))
        with session.lock:
            session.move(body.action)
            return session.state()

    @app.post("/api/games/{sid}/step")
    def step(sid: str) -> dict[str, Any]:
        session = _play(store.get(sid))
        with session.lock:
            session.step()
            return session.state()

    @app.post("/api/games/{sid}/next")
    def next_hand(sid: str) -> dict[str, Any]:
        session = _play(store.get(sid))
        with session.lock:
            session.next_hand()
            return session.state()

    @app.post("/api/games/{sid}/seek")
    def seek(sid: str, body: Seek) -> dict[str, Any]:
        session = store.get(sid)
        if not isinstance(session, ReplaySession):
            raise WebError("only a replay can be stepped back", 409)
        with session.lock:
            session.seek(body.at)
            return session.state()

    @app.get("/api/games/{sid}/record")
    def record(sid: str) -> Response:
        session = store.get(sid)
        with session.lock:
            try:
                data = session.record().to_json()
            except AllFivesError as e:
                raise WebError(str(e), 409) from None
        return Response(
            json.dumps(data, indent=1) + "\n",
            media_type="application/json",
            headers={"Content-Disposition": 'attachment; filename="allfives-game.json"'},
        )

    @app.delete("/api/games/{sid}")
    def close(sid: str) -> dict[str, Any]:
        store.remove(sid)
        return {"closed": sid}

    @app.post("/api/replays", status_code=201)
    async def open_replay(request: Request) -> dict[str, Any]:
        raw = await request.body()  # at most max_body bytes: the guard counts them
        try:  # read as allfives replay reads a file: strict JSON (no NaN, no key twice)
            data = decode_json(raw.decode("utf-8"))
        except UnicodeDecodeError:
            raise WebError("the record is malformed JSON: it is not UTF-8 text", 422) from None
        except RecordError as e:
            raise WebError(f"the record is {shorten(e.reason)}", 422) from None
        session = store.add(lambda: ReplaySession(data), _client(request))
        return session.state()

    return app


def _client(request: Request) -> str:
    """The client's address: a client's share of the live games is counted by it."""
    return request.client.host if request.client is not None else ""


def _rules(body: NewGame) -> Rules:
    """The rules ``body`` asks for (:func:`rules_of`).

    Raises:
        WebError: 422, with the engine's message, for rules it refuses.
    """
    try:
        return rules_of(
            body.preset,
            body.players,
            body.partnerships,
            max_pip=body.max_pip,
            hand_size=body.hand_size,
            target=body.target,
        )
    except AllFivesError as e:
        raise WebError(str(e), 422) from None


def _seat_agents(catalogue: Catalogue, rules: Rules, seats: list[str]) -> list[Agent]:
    """Each seat's agent from the catalogue (the person's seat: a :class:`PersonSeat`)."""
    if len(seats) != rules.num_players:
        raise WebError(f"seats: name {rules.num_players} seats, not {len(seats)}", 422)
    if seats.count(HUMAN) > 1:
        raise WebError("seats: at most one seat is 'human'", 422)
    agents: list[Agent] = []
    for s, name in enumerate(seats):
        if name == HUMAN:
            agents.append(PersonSeat())
            continue
        entry = catalogue.get(name)
        if entry is None:
            known = ", ".join([HUMAN, *catalogue.entries])
            raise WebError(f"seats[{s}]: no agent {name!r} here (choose from {known})", 422)
        check = getattr(entry.agent, "check_rules", None)
        if check is not None:
            try:
                check(rules)
            except (AgentError, ValueError) as e:
                raise WebError(f"seats[{s}]: {e}", 422) from None
        agents.append(entry.agent)
    return agents


def _play(session: Session) -> PlaySession:
    if not isinstance(session, PlaySession):
        raise WebError("a replay has no moves to make: seek instead", 409)
    return session
