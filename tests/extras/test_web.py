"""The web app's API, through the ASGI test client: games, moves, bounds, errors, no leaks."""

from __future__ import annotations

import json
import random
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from conftest import fake_checkpoint, with_hidden_tiles_reshuffled
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from allfives_env.core.game import Game
from allfives_env.core.records import replay
from allfives_env.core.rules import Rules
from allfives_env.core.tiles import TILES
from allfives_web.app import Settings, create_app
from allfives_web.catalogue import Catalogue, CatalogueError
from allfives_web.store import SessionStore
from allfives_web.table import table_json

BASE = "http://127.0.0.1:8000"


def local(settings: Settings | None = None, address: str = "127.0.0.1") -> TestClient:
    """A client of a fresh app, reaching it as a page of its own would (``address``: the
    client's)."""
    return TestClient(create_app(settings), base_url=BASE, client=(address, 50000))


@pytest.fixture(scope="module")
def client() -> TestClient:
    return local()


def new_game(client: TestClient, seats: list[str], **kw: Any) -> dict[str, Any]:
    r = client.post("/api/games", json={"seats": seats, **kw})
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def play_out(client: TestClient, state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Random legal moves (and next hands) until the match is over."""
    gid = state["id"]
    while state["status"] != "match_over":
        if state["status"] == "hand_over":
            r = client.post(f"/api/games/{gid}/next")
        else:
            assert state["status"] == "your_turn"
            action = rng.choice(state["legal"])["text"]
            r = client.post(f"/api/games/{gid}/move", json={"action": action})
        assert r.status_code == 200, r.text
        state = r.json()
    return state


def test_a_played_match_downloads_as_a_record_that_replays_to_its_scores(
    client: TestClient, tmp_path: Path
) -> None:
    state = new_game(client, ["human", "greedy"], seed=5)
    assert state["mode"] == "play" and state["you"] == 0
    state = play_out(client, state, random.Random(5))
    r = client.get(f"/api/games/{state['id']}/record")
    assert r.status_code == 200
    assert "attachment" in r.headers["content-disposition"]
    path = tmp_path / "game.json"
    path.write_text(r.text)
    result = replay(str(path))
    assert list(result.scores) == state["scores"]
    assert result.winners is not None and list(result.winners) == state["winners"]
    assert json.loads(r.text)["players"] == ["human", "greedy"]


def test_the_same_seed_and_moves_give_the_same_game(client: TestClient) -> None:
    a = play_out(client, new_game(client, ["greedy", "human"], seed=9), random.Random(1))
    b = play_out(client, new_game(client, ["greedy", "human"], seed=9), random.Random(1))
    ra = client.get(f"/api/games/{a['id']}/record").json()
    rb = client.get(f"/api/games/{b['id']}/record").json()
    assert ra == rb


def test_an_illegal_move_is_a_409_naming_it_and_changes_nothing(client: TestClient) -> None:
    state = new_game(client, ["human", "heuristic"], seed=2)
    gid = state["id"]
    legal = {a["text"] for a in state["legal"]}
    mine = {tuple(t) for t in state["seats"][0]["tiles"]}
    bad = next(
        f"{t.low}-{t.high} {end}"
        for t in TILES
        for end in ("W", "E")
        if (t.low, t.high) in mine and f"{t.low}-{t.high} {end}" not in legal
    )
    before = client.get(f"/api/games/{gid}").json()
    r = client.post(f"/api/games/{gid}/move", json={"action": bad})
    assert r.status_code == 409
    assert bad in r.json()["error"] and "illegal move" in r.json()["error"]
    assert client.get(f"/api/games/{gid}").json() == before
    r = client.post(f"/api/games/{gid}/move", json={"action": "6-9 W"})
    assert r.status_code == 422 and "6-9 W" in r.json()["error"]
    assert client.get(f"/api/games/{gid}").json() == before


def test_moves_out_of_turn_or_in_the_wrong_mode_are_refused(client: TestClient) -> None:
    watch = new_game(client, ["greedy", "random"], seed=1)
    assert watch["mode"] == "watch"
    r = client.post(f"/api/games/{watch['id']}/move", json={"action": "draw"})
    assert r.status_code == 409 and "step it" in r.json()["error"]
    play = new_game(client, ["human", "random"], seed=1)
    assert client.post(f"/api/games/{play['id']}/step").status_code == 409
    assert client.post(f"/api/games/{play['id']}/next").status_code == 409
    assert client.post(f"/api/games/{play['id']}/seek", json={"at": 1}).status_code == 409


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("get", "/api/games/{gid}", None),
        ("post", "/api/games/{gid}/move", {"action": "draw"}),
        ("post", "/api/games/{gid}/step", None),
        ("get", "/api/games/{gid}/record", None),
        ("delete", "/api/games/{gid}", None),
    ],
)
def test_an_unknown_game_id_is_a_404(
    client: TestClient, method: str, path: str, body: dict[str, Any] | None
) -> None:
    kw = {} if body is None else {"json": body}
    r = client.request(method.upper(), path.format(gid="no-such-game"), **kw)
    assert r.status_code == 404
    assert r.json() == {"error": "no such game (it may have expired)"}


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ("{not json", 422, "not valid JSON"),
        ("[1, 2]", 422, "must be a JSON object"),
        ('{"seats": ["human", "greedy"], "players": "2"}', 422, "players"),
        ('{"seats": ["human", "greedy"], "extra": 1}', 422, "extra"),
        ('{"seats": ["human", "greedy", "greedy"]}', 422, "name 2 seats, not 3"),
        ('{"seats": ["human", "human"]}', 422, "at most one seat is 'human'"),
        ('{"seats": ["human", "runs/x/best.zip"]}', 422, "no agent 'runs/x/best.zip'"),
        ('{"seats": ["human", "greedy"], "preset": "nope"}', 422, "unknown preset 'nope'"),
        ('{"seats": ["human", "greedy"], "seed": -1}', 422, "seed"),
        ('{"seats": ["human", "greedy"], "seed": 18446744073709551616}', 422, "seed"),
    ],
)
def test_malformed_requests_are_one_line_json_errors(
    client: TestClient, body: str, status: int, message: str
) -> None:
    before = len(client.app.state.store.sessions)  # type: ignore[attr-defined]
    r = client.post("/api/games", content=body, headers={"content-type": "application/json"})
    assert r.status_code == status
    error = r.json()["error"]
    assert message in error and "\n" not in error
    assert len(client.app.state.store.sessions) == before  # type: ignore[attr-defined]


JSON = {"content-type": "application/json"}


def test_oversized_bodies_are_refused_before_they_are_read() -> None:
    client = local(Settings(max_body=1000))
    r = client.post("/api/replays", content="x" * 1001, headers=JSON)
    assert r.status_code == 413 and "over 1000 bytes" in r.json()["error"]
    assert not client.app.state.store.sessions  # type: ignore[attr-defined]


@pytest.mark.parametrize("path", ["/api/replays", "/api/games"])
def test_a_body_is_counted_as_it_arrives_whatever_its_headers_say(path: str) -> None:
    client = local(Settings(max_body=1000))

    def chunks() -> Any:  # chunked: no Content-Length to read beforehand
        for _ in range(1000):
            yield b" " * 100

    r = client.post(path, content=chunks(), headers=JSON)
    assert r.status_code == 413 and "over 1000 bytes" in r.json()["error"]
    assert not client.app.state.store.sessions  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("path", "field"),
    [("/api/replays", "format"), ("/api/games", "seed"), ("/api/games/x/seek", "at")],
)
def test_a_number_too_long_to_read_is_a_json_422(client: TestClient, path: str, field: str) -> None:
    body = f'{{"{field}": {"7" * 5000}}}'
    r = client.post(path, content=body, headers=JSON)
    assert r.status_code in (400, 404, 422), r.text
    assert r.headers["content-type"] == "application/json" and "error" in r.json()


def test_bodies_must_be_json() -> None:
    client = local()
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None):
        headers = {} if kind is None else {"content-type": kind}
        r = client.post("/api/replays", content="{}", headers=headers)
        assert r.status_code == 415 and "must be JSON" in r.json()["error"]
        r = client.post("/api/games", content='{"seats": ["human", "greedy"]}', headers=headers)
        assert r.status_code == 415
    assert not client.app.state.store.sessions  # type: ignore[attr-defined]


def test_requests_for_another_host_or_from_another_sites_page_are_refused() -> None:
    client = local()
    game = {"seats": ["human", "greedy"]}
    # DNS rebinding: a page of evil.example whose name now points at this machine
    r = client.post("/api/games", json=game, headers={"host": "evil.example:8000"})
    assert r.status_code == 400 and "evil.example" in r.json()["error"]
    assert client.get("/", headers={"host": "evil.example"}).status_code == 400
    for origin in ("http://evil.example", "null", "http://127.0.0.1:9999"):
        r = client.post("/api/games", json=game, headers={"origin": origin})
        assert r.status_code == 403 and "other sites" in r.json()["error"]
    r = client.post("/api/games", json=game, headers={"sec-fetch-site": "cross-site"})
    assert r.status_code == 403
    assert not client.app.state.store.sessions  # type: ignore[attr-defined]
    # the page itself, and programs that send no Origin
    ok = {"origin": BASE, "sec-fetch-site": "same-origin"}
    assert client.post("/api/games", json=game, headers=ok).status_code == 201
    assert client.post("/api/games", json=game).status_code == 201
    for host in ("localhost:8000", "[::1]:8000", "192.168.1.20:8000"):
        assert client.get("/api/options", headers={"host": host}).status_code == 200
    named = local(Settings(allowed_hosts=("table.lan",)))
    assert named.get("/api/options", headers={"host": "table.lan:8000"}).status_code == 200


def test_an_error_of_the_servers_own_is_a_json_500() -> None:
    app = create_app()

    @app.get("/api/broken")
    def broken() -> None:
        raise RuntimeError("a bug")

    r = TestClient(app, base_url=BASE, raise_server_exceptions=False).get("/api/broken")
    assert r.status_code == 500 and r.headers["content-type"] == "application/json"
    assert "server failed" in r.json()["error"]


def test_a_record_that_is_not_one_is_a_422(client: TestClient) -> None:
    for text, message in [
        ("not json", "malformed JSON"),
        ('{"format": "allfives-record/1", "seed": NaN}', "NaN is not JSON"),  # as the CLI
        ('{"format": "allfives-record/1"}', "not a valid game record"),
    ]:
        r = client.post("/api/replays", content=text, headers=JSON)
        assert r.status_code == 422 and message in r.json()["error"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('{"seats": ["human", "greedy"], "seed": 1, "seed": 2}', "duplicate key 'seed'"),
        ('{"seats": ["human", "greedy"], "seats": ["greedy", "greedy"]}', "duplicate key 'seats'"),
        ('{"seats": ["human", "greedy"], "pace": "step", "pace": "auto"}', "duplicate key 'pace'"),
        ('{"seats": ["human", "greedy"], "seed": NaN}', "NaN is not JSON"),
        ('{"seats": ["human", "greedy"], "seed": Infinity}', "Infinity is not JSON"),
        (
            '{"seats": ["human", "greedy"], "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
            "nested too deeply",
        ),
    ],
)
def test_a_body_read_strictly_is_a_422_naming_what_is_wrong(body: str, message: str) -> None:
    """Plain JSON keeps the last of a key given twice; every route reads its body as the
    records are read (:mod:`allfives_env.core.strict_json`), and changes nothing."""
    client = local()
    r = client.post("/api/games", content=body, headers=JSON)
    assert r.status_code == 422 and r.headers["content-type"] == "application/json"
    error = r.json()["error"]
    assert message in error and "\n" not in error
    assert not client.app.state.store.sessions  # type: ignore[attr-defined]
    bad_utf8 = b'{"seats": ["\xff", "greedy"]}'
    r = client.post("/api/games", content=bad_utf8, headers=JSON)
    assert r.status_code == 422 and "not valid JSON" in r.json()["error"]


def test_moves_and_seeks_with_a_key_given_twice_are_refused_and_change_nothing() -> None:
    client = local()
    state = new_game(client, ["human", "greedy"], seed=2)
    gid = state["id"]
    legal = [m["text"] for m in state["legal"]]
    body = json.dumps({"action": legal[0]})[:-1] + ', "action": ' + json.dumps(legal[-1]) + "}"
    r = client.post(f"/api/games/{gid}/move", content=body, headers=JSON)
    assert r.status_code == 422 and "duplicate key 'action'" in r.json()["error"]
    assert client.get(f"/api/games/{gid}").json() == state
    done = play_out(client, state, random.Random(2))
    record = client.get(f"/api/games/{done['id']}/record").text
    rep = client.post("/api/replays", content=record, headers=JSON).json()
    r = client.post(f"/api/games/{rep['id']}/seek", content='{"at": 3, "at": 5}', headers=JSON)
    assert r.status_code == 422 and "duplicate key 'at'" in r.json()["error"]
    assert client.get(f"/api/games/{rep['id']}").json()["at"] == 0
    doubled = record.replace('"format"', '"format": "allfives-record/1", "format"', 1)
    r = client.post("/api/replays", content=doubled, headers=JSON)  # read by the record reader
    assert r.status_code == 422 and "duplicate key 'format'" in r.json()["error"]


def test_a_record_whose_extra_keys_are_of_the_wrong_type_is_a_422(client: TestClient) -> None:
    done = play_out(client, new_game(client, ["human", "random"], seed=6), random.Random(6))
    record = json.loads(client.get(f"/api/games/{done['id']}/record").text)
    for key, value in [("players", ["only one"]), ("seed", "6"), ("human_seat", 7)]:
        r = client.post("/api/replays", json={**record, key: value})
        assert r.status_code == 422 and key in r.json()["error"], r.text


def test_a_replay_steps_back_and_forth_through_the_record(client: TestClient) -> None:
    done = play_out(client, new_game(client, ["human", "random"], seed=4), random.Random(4))
    record = client.get(f"/api/games/{done['id']}/record").text
    r = client.post("/api/replays", content=record, headers=JSON)
    assert r.status_code == 201
    rep = r.json()
    assert rep["mode"] == "replay" and rep["at"] == 0
    assert all(s["tiles"] is not None for s in rep["seats"])  # a record shows every hand
    end = client.post(f"/api/games/{rep['id']}/seek", json={"at": 10**6}).json()
    assert end["at"] == rep["steps"] - 1
    assert end["scores"] == done["scores"] and end["winners"] == done["winners"]
    mid = client.post(f"/api/games/{rep['id']}/seek", json={"at": 5}).json()
    again = client.post(f"/api/games/{rep['id']}/seek", json={"at": 5}).json()
    assert mid == again and mid["at"] == 5 and len(mid["moves"]) == 5
    assert client.post(f"/api/games/{rep['id']}/seek", json={"at": "x"}).status_code == 422
    assert client.get(f"/api/games/{rep['id']}/record").json() == json.loads(record)


def test_watching_steps_one_action_at_a_time_and_shows_every_hand(client: TestClient) -> None:
    state = new_game(client, ["heuristic", "greedy", "random"], seed=3, players=3)
    assert state["mode"] == "watch" and state["moves"] == []
    steps = 0
    while state["status"] != "match_over":
        assert all(s["tiles"] is not None for s in state["seats"])
        before = len(state["moves"])
        state = client.post(f"/api/games/{state['id']}/step").json()
        assert len(state["moves"]) <= before + 1
        steps += 1
    assert steps > 20 and state["winners"]
    assert client.post(f"/api/games/{state['id']}/step").status_code == 409


def test_games_are_isolated_under_concurrent_requests() -> None:
    client = local()
    games = [new_game(client, ["human", "greedy"], seed=s) for s in range(4)]
    finals: dict[str, dict[str, Any]] = {}

    def run(state: dict[str, Any]) -> None:
        finals[state["id"]] = play_out(client, state, random.Random(state["seed"]))

    threads = [threading.Thread(target=run, args=(g,)) for g in games]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    alone = local()
    for g in games:
        solo = play_out(alone, new_game(alone, ["human", "greedy"], seed=g["seed"]),
                        random.Random(g["seed"]))  # fmt: skip
        assert finals[g["id"]]["scores"] == solo["scores"]
    assert len({g["id"] for g in games}) == 4 and all(len(g["id"]) >= 24 for g in games)


def test_live_games_are_bounded_and_idle_ones_expire() -> None:
    app = create_app(Settings(max_games=2))
    a, b, c = (TestClient(app, base_url=BASE, client=(f"10.0.0.{k}", 1)) for k in (1, 2, 3))
    first = new_game(a, ["human", "greedy"])
    new_game(b, ["human", "greedy"])
    r = c.post("/api/games", json={"seats": ["human", "greedy"]})
    assert r.status_code == 429 and "limit" in r.json()["error"]
    # a client with games of its own is never locked out: its next closes its oldest
    second = new_game(a, ["human", "greedy"])
    assert a.get(f"/api/games/{first['id']}").status_code == 404
    assert a.get(f"/api/games/{second['id']}").status_code == 200
    assert a.delete(f"/api/games/{second['id']}").status_code == 200
    new_game(c, ["human", "greedy"])


def test_one_client_cannot_take_every_game() -> None:
    app = create_app(Settings(max_games=6, per_client=3))
    a, b = (TestClient(app, base_url=BASE, client=(f"10.0.0.{k}", 1)) for k in (1, 2))
    ids = [new_game(a, ["human", "greedy"])["id"] for _ in range(5)]
    live = [a.get(f"/api/games/{g}").status_code for g in ids]
    assert live == [404, 404, 200, 200, 200]  # its least recently used were closed
    for _ in range(3):
        new_game(b, ["human", "greedy"])
    # a request refused while its game is made (a bad record) closes nothing
    r = a.post("/api/replays", content='{"format": "x"}', headers=JSON)
    assert r.status_code == 422
    assert [a.get(f"/api/games/{g}").status_code for g in ids[2:]] == [200] * 3

    now = [0.0]
    store = SessionStore(max_games=2, idle_seconds=60, clock=lambda: now[0])
    from agents.greedy import GreedyAgent
    from allfives_web.sessions import NotFound, PlaySession

    rules = Rules.preset("pagat", 2)
    s = store.add(lambda: PlaySession(rules, ["greedy", "greedy"], [GreedyAgent()] * 2, 1))
    now[0] = 59
    store.get(s.id)  # touching it keeps it
    now[0] = 119
    store.get(s.id)
    now[0] = 180
    with pytest.raises(NotFound):
        store.get(s.id)


def test_the_server_binds_only_this_machine_unless_told() -> None:
    from allfives_cli import build_parser

    args = build_parser().parse_args(["serve"])
    assert args.host == "127.0.0.1"


def test_checkpoints_are_offered_by_name_and_play_only_their_rules(tmp_path: Path) -> None:
    path = tmp_path / "mine" / "best.zip"
    path.parent.mkdir()
    fake_checkpoint(path, Rules.preset("pagat", 2))
    client = local(Settings(agents=(str(path),)))
    names = [a["name"] for a in client.get("/api/options").json()["agents"]]
    assert "mine" in names and str(path) not in json.dumps(names)
    state = new_game(client, ["human", "mine"], seed=1)
    assert state["names"] == ["human", "mine"]
    r = client.post("/api/games", json={"seats": ["human", "mine"], "preset": "five_up"})
    assert r.status_code == 422 and "trained for" in r.json()["error"]
    with pytest.raises(CatalogueError):
        Catalogue((str(tmp_path / "missing.zip"),))
    with pytest.raises(CatalogueError, match="taken"):
        Catalogue(("greedy=heuristic",))


def test_a_search_guided_by_a_network_is_offered_for_that_networks_rules_only(
    tmp_path: Path,
) -> None:
    path = tmp_path / "net.zip"
    fake_checkpoint(path, Rules.preset("pagat", 2))
    client = local(Settings(agents=(f"guided=batchsearch:worlds=2,prior={path}",)))
    offered = {a["name"]: a for a in client.get("/api/options").json()["agents"]}
    assert offered["guided"]["kind"] == "added" and str(path) not in json.dumps(offered)
    assert offered["guided"]["rules"] == Rules.preset("pagat", 2).describe()
    state = new_game(client, ["human", "guided"], seed=1)
    assert state["names"] == ["human", "guided"]
    r = client.post("/api/games", json={"seats": ["human", "guided"], "preset": "five_up"})
    assert r.status_code == 422 and "trained for" in r.json()["error"]


def test_a_search_playing_for_the_match_is_refused_where_no_equity_is_fitted() -> None:
    client = local(Settings(agents=("strongest=batchsearch:worlds=2,infer=1,equity=true",)))
    state = new_game(client, ["human", "strongest"], seed=1)
    assert state["names"] == ["human", "strongest"]
    built_in = "batchsearch:worlds=896,infer=1,equity=true"  # the strongest, on every server
    assert built_in in {a["name"] for a in client.get("/api/options").json()["agents"]}
    for name in ("strongest", built_in):
        r = client.post("/api/games", json={"seats": ["human", name], "preset": "five_up"})
        assert r.status_code == 422 and "no match equity is fitted" in r.json()["error"]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), steps=st.integers(0, 80), players=st.sampled_from([2, 3, 4]))
def test_a_seats_table_holds_nothing_it_cannot_see(seed: int, steps: int, players: int) -> None:
    rng = random.Random(seed)
    game = Game(Rules.preset("pagat", players), rng)
    for _ in range(steps):
        if game.current_player is None:
            if game.is_match_over:
                break
            game.deal(rng)
            continue
        game.apply(rng.choice(game.legal_actions()))
    in_play = game.current_player is not None
    for seat in range(players):
        mine = table_json(game, seat)
        if in_play:
            twin = with_hidden_tiles_reshuffled(game, seat, rng)
            assert table_json(twin, seat) == mine
            assert all(s["tiles"] is None for s in mine["seats"] if s["seat"] != seat)
        else:  # the hand has ended: what is left in every hand is turned up to be counted
            assert [s["tiles"] for s in mine["seats"]] == [
                [[t.low, t.high] for t in game.hand(s)] for s in range(players)
            ]
    spectator = table_json(game, None)
    assert all((s["tiles"] is None) == in_play for s in spectator["seats"])
    with pytest.raises(ValueError):
        table_json(game, 0, reveal=True)


def test_serve_refuses_a_busy_port_and_a_bad_agent_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import socket

    from allfives_cli import main

    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("allfives: error: cannot listen on 127.0.0.1:") and err.count("\n") == 1
    assert main(["serve", "--port", "0", "--agent", "bot=missing.zip"]) == 2
    err = capsys.readouterr().err
    assert "--agent 'missing.zip'" in err and err.count("\n") == 1


ROUTES = [
    ("POST", "/api/games"),
    ("POST", "/api/games/{gid}/move"),
    ("POST", "/api/games/{gid}/step"),
    ("POST", "/api/games/{gid}/next"),
    ("POST", "/api/games/{gid}/seek"),
    ("POST", "/api/replays"),
    ("GET", "/api/games/{gid}"),
    ("GET", "/api/games/{gid}/record"),
    ("DELETE", "/api/games/{gid}"),
    ("GET", "/api/nowhere"),
    ("PUT", "/api/games"),
    ("GET", "/static/../../etc/passwd"),
]

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=30)
    | st.sampled_from(["human", "greedy", "pagat", "draw", "6-6 W", "allfives-record/1"]),
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(
            st.sampled_from(
                [
                    "seats",
                    "preset",
                    "players",
                    "seed",
                    "action",
                    "at",
                    "format",
                    "hands",
                    "rules",
                    "pace",
                    "partnerships",
                    "x",
                ]
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=20,
)


@pytest.fixture(scope="module")
def played() -> tuple[TestClient, str]:
    """A client and a game of its, for the fuzzing below."""
    client = local()
    return client, new_game(client, ["human", "random"], seed=1)["id"]


@settings(max_examples=150, deadline=None)
@given(
    route=st.sampled_from(ROUTES),
    body=JSON_VALUES.map(json.dumps).map(str.encode) | st.binary(max_size=300),
)
def test_no_request_gets_anything_but_a_json_answer(
    played: tuple[TestClient, str], route: tuple[str, str], body: bytes
) -> None:
    """Whatever a client sends to whichever route: a JSON answer, never a server error."""
    client, game = played
    method, path = route
    gid = "no-such-game" if method == "DELETE" else game
    r = client.request(method, path.format(gid=gid), content=body, headers=JSON)
    assert r.status_code < 500, (r.status_code, r.text)
    assert r.headers["content-type"] == "application/json", (r.status_code, r.text)
    if r.status_code >= 400:
        error = r.json()["error"]
        assert isinstance(error, str) and "\n" not in error


def test_the_largest_seed_every_front_end_takes_starts_a_match(client: TestClient) -> None:
    """The web API takes the one seed rule's seeds, 2**64 - 1 included (it stopped at 2**63)."""
    body = {"seats": ["human", "greedy"], "seed": 2**64 - 1}
    r = client.post("/api/games", json=body)
    assert r.status_code == 201 and r.json()["seed"] == 2**64 - 1, r.text


def test_a_small_set_is_played_against_its_solved_policy(tmp_path: Path) -> None:
    """A match on the double-two set against ``exact:FILE`` (the exact solver's policy, offered
    by the server): it plays out, its record names the set and replays; a set the hands do not
    fit is a one-line 422."""
    from agents.exact.policy import policy_bytes
    from agents.exact.solver import Solver
    from agents.exact.tree import build_tree

    tiny = Rules.preset("pagat", 2, max_pip=2, hand_size=2, target=20)
    solver = Solver(build_tree(tiny))
    policy, _ = solver.cfr_plus(20)
    (tmp_path / "tiny.npz").write_bytes(policy_bytes(solver.tree, policy, {}))
    client = local(Settings(agents=(f"solved=exact:{tmp_path / 'tiny.npz'}",)))
    state = new_game(client, ["human", "solved"], seed=3, max_pip=2, hand_size=2, target=20)
    assert state["rules"]["max_pip"] == 2 and state["rules"]["target"] == 20
    assert len(state["seats"][0]["tiles"]) == 2 and state["seats"][1]["tiles"] is None
    state = play_out(client, state, random.Random(3))
    record = client.get(f"/api/games/{state['id']}/record").json()
    assert record["rules"]["max_pip"] == 2
    assert list(replay(record).scores) == state["scores"]
    for body, message in (
        ({"max_pip": 2}, "hand_size"),  # the preset's 9 tiles a hand do not fit
        ({"max_pip": 9, "hand_size": 2}, "max_pip"),
    ):
        r = client.post("/api/games", json={"seats": ["human", "greedy"], **body})
        assert r.status_code == 422 and message in r.json()["error"], r.text
        assert "\n" not in r.json()["error"]
