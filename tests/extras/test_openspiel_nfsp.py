"""NFSP trained in OpenSpiel (``python -m allfives_openspiel.train``) and played as the agent
``openspiel-nfsp:PATH`` (the ``[openspiel]`` extra; skipped without it)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
torch = pytest.importorskip("torch")

from open_spiel.python import rl_environment  # noqa: E402
from policy_folders import check_fresh_deletes_only_its_own  # noqa: E402

import allfives_openspiel  # noqa: E402,F401  (registers python_allfives)
from agents.eval.tournament import evaluate  # noqa: E402
from agents.learned import CheckpointError  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from allfives_env import Rules  # noqa: E402
from allfives_env.envs.spaces import Encoding  # noqa: E402
from allfives_openspiel.nfsp_policy import NFSPAgent, load_policy  # noqa: E402
from allfives_openspiel.train import main  # noqa: E402

SMALL = ["--episodes", "3", "--hidden", "16", "--batch_size", "16", "--learn_every", "16"]


def test_the_networks_input_is_the_seats_own_observation() -> None:
    """What NFSP reads in training (the observation tensor of ``rl_environment``) is what the
    agent computes from the seat's view alone."""
    game = pyspiel.load_game("python_allfives(preset=pagat,players=3,episode=match)")
    env = rl_environment.Environment(
        game, observation_type=rl_environment.ObservationType.OBSERVATION, seed=1
    )
    encoding = Encoding(Rules.preset("pagat", 3))
    rng = random.Random(2)
    step, checked = env.reset(), 0
    while not step.last():  # a whole match
        player = step.observations["current_player"]
        view = env.get_state.view(player)
        np.testing.assert_array_equal(
            np.asarray(step.observations["info_state"][player], np.float32),
            encoding.observe_view(view),
        )
        checked += 1
        step = env.step([rng.choice(step.observations["legal_actions"][player])])
    assert checked > 50


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two runs with one seed, one with another."""
    root = tmp_path_factory.mktemp("nfsp")
    out = {name: root / name for name in ("a", "again", "other")}
    for name, seed in (("a", "3"), ("again", "3"), ("other", "4")):
        assert main(["--seed", seed, "--out", str(out[name]), *SMALL]) == 0
    return out


def test_nfsp_trains_and_plays_as_an_agent(trained: dict[str, Path]) -> None:
    report = json.loads((trained["a"] / "report.json").read_text(encoding="utf-8"))
    assert report["episodes"] == 3 and report["decisions"] >= report["env_steps"] > 100
    assert report["curve"] == [] and not (trained["a"] / "curve").exists()
    agent = make_agent(f"openspiel-nfsp:{trained['a']}")
    assert isinstance(agent, NFSPAgent)
    rules = Rules.preset("pagat", 2)
    result = evaluate(rules, [f"openspiel-nfsp:{trained['a']}", "random"], matches=2, seed=0)
    assert result.matches == 2
    with pytest.raises(CheckpointError):
        agent.check_rules(Rules.preset("pagat", 3))


def test_same_seed_trains_the_same_weights(trained: dict[str, Path]) -> None:
    nets = {k: load_policy(trained[k])[2] for k in ("a", "again", "other")}
    for mine, again, other in zip(nets["a"], nets["again"], nets["other"], strict=True):
        a, b, c = (n.state_dict() for n in (mine, again, other))
        assert all(torch.equal(a[k], b[k]) for k in a)
        assert not all(torch.equal(a[k], c[k]) for k in a)


def test_agent_samples_the_average_policy_of_its_seat(trained: dict[str, Path]) -> None:
    agent = make_agent(f"openspiel-nfsp:{trained['a']}")
    assert isinstance(agent, NFSPAgent)
    game = pyspiel.load_game("python_allfives(preset=pagat,players=2,episode=match)")
    state, rng, checked = game.new_initial_state(), random.Random(5), 0
    while not state.is_terminal() and checked < 20:
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            continue
        seat = state.current_player()
        view = state.view(seat)
        probs = agent.probabilities(view)
        x = torch.as_tensor(agent.encoding.observe_view(view)).unsqueeze(0)
        z = agent.networks[seat](x)[0].detach().numpy().astype(np.float64)
        ids = [agent.encoding.to_env[a] for a in probs]
        expected = np.exp(z[ids] - z[ids].max())
        np.testing.assert_allclose(list(probs.values()), expected / expected.sum(), rtol=1e-6)
        picks = {agent.act(view, random.Random(s)) for s in range(3)}
        assert picks <= set(probs)
        assert agent.act(view, random.Random(9)) == agent.act(view, random.Random(9))
        state.apply_action(agent.encoding.to_env[agent.act(view, rng)])
        checked += 1
    assert checked == 20


def test_bad_input_is_one_line_and_status_2(
    trained: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in (
        ["--episodes", "0"],
        ["--preset", "chess"],
        ["--anticipatory", "2"],
        ["--out", str(trained["a"])],  # already holds a policy
    ):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "error" in err, argv
    for path in ("", str(trained["a"] / "nothing")):
        with pytest.raises(CheckpointError):
            make_agent(f"openspiel-nfsp:{path}")


def test_fresh_deletes_only_a_policy_folder_this_trainer_made(
    trained: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    check_fresh_deletes_only_its_own(
        main, "python -m allfives_openspiel.train", trained["a"], SMALL, tmp_path, capsys
    )
