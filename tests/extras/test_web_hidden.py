"""Nothing a person's seat cannot see leaves the server, whatever route they ask.

Whole matches are played through the API, for every preset and player count. At each moment
the person sees, a twin of their game is put in a second server under the same id: every tile
the seat cannot see is dealt anew among the other hands and the boneyard, the hand in play's
recorded deal is scrambled the same way, and the match's future (its deal seed, the agents'
generators and, where the server drew it, the seed) is drawn anew. Every route is then asked the
same thing of both servers: the answers must agree byte for byte.
"""

from __future__ import annotations

import copy
import random
import threading
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from conftest import with_hidden_tiles_reshuffled
from fastapi.testclient import TestClient

from allfives_env.core.deal import Deal
from allfives_env.core.events import HandLog
from allfives_env.core.rules import PRESETS
from allfives_web.app import create_app
from allfives_web.sessions import PlaySession

BASE = "http://127.0.0.1:8000"

SETTINGS = [
    (preset, players, partnerships)
    for preset in PRESETS
    for players in (2, 3, 4)
    for partnerships in ((None,) if players < 4 else (True, False))
]


def scrambled_deal(deal: Deal, seat: int, rng: random.Random) -> Deal:
    """``deal`` with every tile but ``seat``'s own dealt anew among the others and the
    boneyard (sizes kept)."""
    others = [s for s in range(len(deal.hands)) if s != seat]
    hidden = [t for s in others for t in deal.hands[s]] + list(deal.boneyard)
    rng.shuffle(hidden)
    hands = list(deal.hands)
    i = 0
    for s in others:
        k = len(deal.hands[s])
        hands[s] = tuple(hidden[i : i + k])
        i += k
    return Deal(tuple(hands), tuple(hidden[i:]), deal.leader)


def twin_of(session: PlaySession, rng: random.Random, in_play: bool) -> PlaySession:
    """``session`` as another server could hold it, alike in all the person may know."""
    assert session.person is not None
    twin = copy.copy(session)
    twin.lock = threading.Lock()
    match = copy.copy(session.match)
    game = session.game
    if in_play:
        game = with_hidden_tiles_reshuffled(game, session.person, rng)
        log = game.hand_log[-1]
        game.hand_log[-1] = HandLog(
            scrambled_deal(log.deal, session.person, rng),
            log.leader,
            log.by_lot,
            log.events,
            log.result,
        )
    else:
        game = game.clone()
    match.game = game
    match.deal_seed = rng.getrandbits(63)
    match.rngs = [random.Random(rng.getrandbits(64)) for _ in match.rngs]
    twin.match = match
    if not session.seed_shown:
        twin.seed = rng.getrandbits(63)
    return twin


def probes(state: dict[str, Any]) -> list[tuple[str, str, dict[str, Any] | None]]:
    """Requests that ask about the game and change nothing: every read, and moves refused."""
    gid = state["id"]
    base = f"/api/games/{gid}"
    legal = {a["text"] for a in state["legal"]}
    out: list[tuple[str, str, dict[str, Any] | None]] = [
        ("GET", base, None),
        ("GET", f"{base}/record", None),
        ("POST", f"{base}/seek", {"at": 1}),
    ]
    if state["status"] != "agent_turn":  # there, a step moves the agent: not a probe
        out.append(("POST", f"{base}/step", None))
    if state["status"] != "hand_over":
        out.append(("POST", f"{base}/next", None))
    kinds = {a["kind"] for a in state["legal"]}
    for text in ("draw", "pass"):
        if text not in kinds:
            out.append(("POST", f"{base}/move", {"action": text}))
    mine = {tuple(t) for t in state["seats"][state["you"]]["tiles"]}
    others = [(a, b) for a in range(7) for b in range(a, 7) if (a, b) not in mine]
    for (a, b), end in zip(others[::7], ("W", "E", "N", "@5"), strict=False):
        out += [("POST", f"{base}/move", {"action": f"{a}-{b} {end}"}),
                ("POST", f"{base}/move", {"action": f"{b}-{a}"})]  # fmt: skip
    assert not legal & {p[2]["action"] for p in out if p[2] and "action" in p[2]}
    return out


def answer(client: TestClient, method: str, path: str, body: dict[str, Any] | None) -> tuple:
    r = (
        client.request(method, path, json=body)
        if body is not None
        else client.request(method, path)
    )
    return r.status_code, r.headers.get("content-type"), r.content


@pytest.mark.parametrize(("preset", "players", "partnerships"), SETTINGS)
def test_no_answer_changes_when_what_the_seat_cannot_see_is_dealt_anew(
    preset: str, players: int, partnerships: bool | None
) -> None:
    rng = random.Random(f"{preset}/{players}/{partnerships}")
    real = TestClient(create_app(), base_url=BASE)
    other = TestClient(create_app(), base_url=BASE)
    store = other.app.state.store  # type: ignore[attr-defined]
    person = rng.randrange(players)
    seats = ["greedy"] * players
    seats[person] = "human"
    body: dict[str, Any] = {"preset": preset, "players": players, "seats": seats}
    if partnerships is not None:
        body["partnerships"] = partnerships
    if rng.random() < 0.5:
        body["seed"] = rng.randrange(2**31)  # a seed the person chose is theirs to see
    body["pace"] = rng.choice(["auto", "step"])  # "step": the person sees every agent's move
    r = real.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    state = r.json()
    gid = state["id"]
    session = real.app.state.store.sessions[gid]  # type: ignore[attr-defined]
    checked = 0
    seen = {True: 0, False: 0}  # moments seen, in play and between hands
    while state["status"] != "match_over":
        in_play = state["status"] in ("your_turn", "agent_turn")
        if in_play:
            # the hand in play is not in the record, nor are other seats' tiles in the state
            assert all(s["tiles"] is None for s in state["seats"] if s["seat"] != person)
        if "seed" not in body:
            assert state["seed"] is None
        # every 10th moment in play and every 3rd between hands, the first ones included (CI's
        # time): a match has some 25 moments or more, so a few are checked whatever the deal
        if seen[in_play] % (10 if in_play else 3) == 0:
            store.sessions[gid] = twin_of(session, rng, in_play)
            for method, path, payload in probes(state):
                assert answer(real, method, path, payload) == answer(
                    other, method, path, payload
                ), (method, path, payload, state["status"])
                checked += 1
        seen[in_play] += 1
        if state["status"] == "hand_over":
            record = real.get(f"/api/games/{gid}/record").json()
            assert len(record["hands"]) == state["hand_number"]
            r = real.post(f"/api/games/{gid}/next")
        elif state["status"] == "agent_turn":
            r = real.post(f"/api/games/{gid}/step")
        else:
            action = rng.choice(state["legal"])["text"]
            r = real.post(f"/api/games/{gid}/move", json={"action": action})
        assert r.status_code == 200, r.text
        state = r.json()
    assert checked > 20
    # once the match is over, all of it: every hand in the record, and the seed
    record = real.get(f"/api/games/{gid}/record").json()
    assert len(record["hands"]) == state["hand_number"] and record["seed"] == state["seed"]
    assert state["seed"] is not None


def test_a_record_mid_hand_holds_the_hands_that_have_ended() -> None:
    client = TestClient(create_app(), base_url=BASE)
    state = client.post("/api/games", json={"seats": ["human", "heuristic"], "seed": 7}).json()
    gid = state["id"]
    r = client.get(f"/api/games/{gid}/record")
    assert r.status_code == 409 and "no hand has ended" in r.json()["error"]
    rng = random.Random(7)
    while state["status"] == "your_turn":
        state = client.post(
            f"/api/games/{gid}/move", json={"action": rng.choice(state["legal"])["text"]}
        ).json()
    ended = client.get(f"/api/games/{gid}/record").json()
    assert len(ended["hands"]) == 1 and ended["seed"] == 7  # the person chose it
    state = client.post(f"/api/games/{gid}/next").json()
    while state["status"] != "your_turn":
        state = client.post(f"/api/games/{gid}/next").json()
    assert client.get(f"/api/games/{gid}/record").json() == ended  # hand 2 stays on the server


def test_a_seed_the_server_drew_is_kept_until_the_match_is_over() -> None:
    client = TestClient(create_app(), base_url=BASE)
    drawn = []
    for _ in range(8):
        state = client.post("/api/games", json={"seats": ["human", "random"]}).json()
        assert state["seed"] is None
        assert "seed" not in client.get(f"/api/games/{state['id']}").json() or (
            client.get(f"/api/games/{state['id']}").json()["seed"] is None
        )
        drawn.append(client.app.state.store.sessions[state["id"]].seed)  # type: ignore[attr-defined]
    # drawn from 53 bits, so that the deals of the hands shown cannot be searched back to it
    assert max(drawn) >= 2**45 and max(drawn) < 2**53 and len(set(drawn)) == len(drawn)
    watch = client.post("/api/games", json={"seats": ["random", "random"]}).json()
    assert watch["seed"] is not None  # nobody plays: there is nothing to hide
