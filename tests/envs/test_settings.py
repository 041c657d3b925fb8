"""The environments' settings are one value, checked once: :class:`EnvSettings`.

- :meth:`EnvSettings.of` refuses every bad value with a typed error naming it (the constructor
  and ``dataclasses.replace`` too), and an :class:`EnvSettings` given beside its keywords;
- every environment class, given the same keywords, ends up with an equal ``settings`` value
  (and its own defaults where they differ), reads its old attributes from it, and takes an
  :class:`EnvSettings` in place of ``rules``;
- the rules builders of the command line, the trainers' config, the BenchMARL task, the web
  app and ``allfives solve`` are one (:func:`rules_of`): they agree with each other and with
  :meth:`Rules.preset`, results and errors.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
from collections.abc import Callable
from typing import Any

import pytest

from allfives_env.core.errors import RulesError
from allfives_env.core.rules import Rules
from allfives_env.envs.settings import (
    DEFAULT_MAX_CYCLES,
    EnvConfigError,
    EnvSettings,
    rules_of,
)

# ------------------------------------------------------------------ EnvSettings.of refuses


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"episode": "game"}, EnvConfigError, "episode must be one of match, hand, not 'game'"),
        ({"reward": "score"}, EnvConfigError, "reward must be one of win, points, points+win"),
        ({"forced_actions": "never"}, EnvConfigError, "forced_actions must be one of explicit"),
        ({"max_cycles": 0}, EnvConfigError, "max_cycles must be a positive int or None, not 0"),
        ({"max_cycles": 2.5}, EnvConfigError, "max_cycles must be a positive int or None"),
        ({"max_cycles": True}, EnvConfigError, "max_cycles must be a positive int or None"),
        ({"action_features": "outlooks"}, EnvConfigError, "action_features must be"),
        ({"action_features": 1}, EnvConfigError, "action_features must be"),
        ({"action_features": None}, EnvConfigError, "action_features must be"),
        ({"rules": 7}, EnvConfigError, "rules must be a preset name or a Rules, not 7"),
        ({"rules": "dominoes"}, RulesError, "unknown preset 'dominoes'"),
        ({"num_players": 5}, RulesError, "num_players must be 2, 3 or 4, not 5"),
        (
            {"rules": Rules.preset("pagat", 3), "num_players": 2},
            EnvConfigError,
            "num_players=2 disagrees with the rules' 3",
        ),
        (
            {"rules": Rules.preset("pagat", 4), "partnerships": False},
            EnvConfigError,
            "partnerships disagrees with the rules given",
        ),
    ],
)
def test_of_refuses_each_bad_value_with_its_typed_error(
    kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as e:
        EnvSettings.of(**kwargs)
    assert str(e.value).startswith(message)
    assert isinstance(e.value, ValueError)


def test_the_constructor_and_replace_check_the_same() -> None:
    good = EnvSettings.of("pagat", num_players=3)
    with pytest.raises(EnvConfigError, match="rules must be a Rules, not 'pagat'"):
        EnvSettings("pagat")  # type: ignore[arg-type]
    with pytest.raises(EnvConfigError, match="episode must be one of match, hand"):
        dataclasses.replace(good, episode="game")  # type: ignore[arg-type]
    with pytest.raises(EnvConfigError, match="max_cycles must be a positive int"):
        dataclasses.replace(good, max_cycles=-1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        good.episode = "hand"  # type: ignore[misc]


def test_of_keeps_the_values_as_given() -> None:
    s = EnvSettings.of(
        "spruce",
        num_players=4,
        partnerships=False,
        episode="hand",
        reward="points+win",
        forced_actions="auto",
        action_features=True,
        max_cycles=None,
    )
    assert s.rules == Rules.preset("spruce", 4, partnerships=False)
    assert (s.episode, s.reward, s.forced_actions, s.action_features, s.max_cycles) == (
        "hand", "points+win", "auto", True, None,
    )  # fmt: skip
    assert EnvSettings.of() == EnvSettings(Rules.preset("pagat", 2))
    assert EnvSettings.of().max_cycles == DEFAULT_MAX_CYCLES


# ------------------------------------------------------------------ every class, one value

Build = Callable[..., Any]
"""``build(rules, **keywords)``: an environment of the settings (``rules`` may be left out)."""


def _vector_game(rules: Any = None, **kw: Any) -> Any:
    from allfives_env.vector.engine import VectorGame

    return VectorGame("pagat" if rules is None else rules, 2, **kw)


def _with_rules(make: Callable[..., Any], *args: Any) -> Build:
    def build(rules: Any = None, **kw: Any) -> Any:
        return make(*args, **kw) if rules is None else make(*args, rules=rules, **kw)

    return build


def _builders() -> dict[str, tuple[Build, dict[str, Any]]]:
    """Each class's builder, and its defaults that differ from :meth:`EnvSettings.of`'s."""
    from allfives_env.envs.aec import raw_env
    from allfives_env.envs.allfives_v0 import SingleAgentEnv as SingleAgentEnvV0
    from allfives_env.envs.allfives_v0 import raw_env as raw_env_v0
    from allfives_env.envs.single_agent import AllFivesSingleAgentEnv
    from allfives_env.vector.multi_agent import AllFivesMultiAgentVectorEnv
    from allfives_env.vector.single_agent import AllFivesVectorEnv, LearnerBatch

    auto = {"forced_actions": "auto"}
    out: dict[str, tuple[Build, dict[str, Any]]] = {
        "raw_env": (_with_rules(raw_env), {}),
        "raw_env v0": (_with_rules(raw_env_v0), {}),
        "AllFivesSingleAgentEnv": (_with_rules(AllFivesSingleAgentEnv), {}),
        "SingleAgentEnv v0": (_with_rules(SingleAgentEnvV0), {}),
        "VectorGame": (_vector_game, {}),
        "AllFivesMultiAgentVectorEnv": (_with_rules(AllFivesMultiAgentVectorEnv, 2), {}),
        "LearnerBatch": (_with_rules(LearnerBatch, 2), auto),
        "AllFivesVectorEnv": (_with_rules(AllFivesVectorEnv, 2), auto),
    }
    if importlib.util.find_spec("stable_baselines3") is not None:
        from allfives_env.vector.sb3 import AllFivesVecEnv

        out["AllFivesVecEnv"] = (_with_rules(AllFivesVecEnv, 2), auto)
    if importlib.util.find_spec("torchrl") is not None:
        from allfives_benchmarl.env import AllFivesTorchEnv

        out["AllFivesTorchEnv"] = (_with_rules(AllFivesTorchEnv, 2), auto)
    if importlib.util.find_spec("ray") is not None:
        out["AllFivesMultiAgentEnv"] = (_rllib_env, {})
        table = {"forced_actions": "auto", "reward": "points+win", "action_features": "outlook"}
        out["TableVectorEnv"] = (_rllib_table, table)
    return out


def _rllib_env(rules: Any = None, **kw: Any) -> Any:
    """RLlib's env from its config dict: the preset by name, a Rules as its fields."""
    from allfives_rllib.env import AllFivesMultiAgentEnv

    config = dict(kw)
    if isinstance(rules, str):
        config["preset"] = rules
    elif isinstance(rules, Rules):
        config["rules"] = dataclasses.asdict(rules)
    return AllFivesMultiAgentEnv(config)


def _rllib_table(
    rules: Any = "pagat",
    num_players: int | None = None,
    partnerships: bool | None = None,
    **kw: Any,
) -> Any:
    """RLlib's table from its config dict: the rules as their fields (it takes no
    ``max_cycles``)."""
    from allfives_rllib.vector_env import TableVectorEnv

    if "max_cycles" in kw:
        pytest.skip("the table's config takes no max_cycles")
    table = rules_of(rules, num_players, partnerships)
    return TableVectorEnv({"rules": dataclasses.asdict(table), "num_envs": 2, **kw})


BUILDERS = _builders()

CASES: list[dict[str, Any]] = [
    {},
    {
        "rules": "spruce",
        "num_players": 4,
        "partnerships": False,
        "episode": "hand",
        "reward": "points+win",
        "forced_actions": "auto",
        "action_features": "outlook",
        "max_cycles": 77,
    },
    {
        "rules": Rules.preset("pagat", 3, target=100),
        "reward": "points",
        "forced_actions": "explicit",
        "action_features": True,
        "max_cycles": None,
    },
    {"rules": "pyatyorka", "num_players": 3, "episode": "hand", "action_features": "basic"},
]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_every_class_given_the_same_keywords_holds_an_equal_settings_value(
    name: str, case: int
) -> None:
    build, defaults = BUILDERS[name]
    kwargs = CASES[case]
    expected = EnvSettings.of(**{**defaults, **kwargs})
    assert build(**kwargs).settings == expected


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_every_class_reads_its_attributes_from_its_settings(name: str) -> None:
    build, _ = BUILDERS[name]
    env = build(**CASES[1])
    inner = [getattr(env, key) for key in ("aec", "raw", "vg", "batch") if hasattr(env, key)]
    inner += [holder.vg for holder in inner if hasattr(holder, "vg")]
    for holder in (env, *inner):
        assert holder.settings == env.settings, holder
        for attr, field in (
            ("rules", "rules"),
            ("episode", "episode"),
            ("reward_mode", "reward"),
            ("forced_actions", "forced_actions"),
            ("action_features", "action_features"),
            ("max_cycles", "max_cycles"),
        ):
            if hasattr(holder, attr):
                assert getattr(holder, attr) == getattr(env.settings, field), (holder, attr)


@pytest.mark.parametrize(
    "name", sorted(set(BUILDERS) - {"AllFivesMultiAgentEnv", "TableVectorEnv"})
)
def test_every_class_takes_the_settings_value_in_place_of_rules(name: str) -> None:
    build, _ = BUILDERS[name]
    settings = EnvSettings.of("five_up", num_players=4, reward="points", max_cycles=30)
    assert build(settings).settings is settings
    with pytest.raises(EnvConfigError, match=r"not both \(episode given beside an EnvSettings"):
        build(settings, episode="hand")


def test_the_v0_default_seats_four_players_in_pairs_through_the_settings() -> None:
    build_v0, _ = BUILDERS["raw_env v0"]
    build_v1, _ = BUILDERS["raw_env"]
    assert build_v0("dominoes_cc", num_players=4).settings.rules.partnerships is True
    assert build_v1("dominoes_cc", num_players=4).settings.rules.partnerships is False


def test_the_vector_game_takes_settings_or_the_old_keywords() -> None:
    from allfives_env.vector.engine import VectorGame

    rules = Rules.preset("pagat", 2)
    old = VectorGame(rules, 2, episode="hand", forced_actions="auto", action_features="outlook")
    new = VectorGame(EnvSettings.of(rules, episode="hand", forced_actions="auto",
                                    action_features="outlook"), 2, record=True)  # fmt: skip
    assert old.settings == new.settings and new.recording and not old.recording
    assert (old.cfg == new.cfg).all()
    with pytest.raises(EnvConfigError, match="num_games must be a positive int"):
        VectorGame(new.settings, 0)
    with pytest.raises(EnvConfigError, match="record must be a bool"):
        VectorGame(new.settings, 2, record=1)  # type: ignore[arg-type]


# ------------------------------------------------------------------ one rules builder

RULES_CASES: list[dict[str, Any]] = [
    {"preset": "pagat", "players": 2},
    {"preset": "spruce", "players": 4, "partnerships": False},
    {"preset": "dominoes_cc", "players": 4, "partnerships": True, "target": 150},
    {"preset": "five_up", "players": 3, "max_pip": 5, "hand_size": 4},
    {"preset": "pyatyorka", "players": 2, "max_pip": 3, "hand_size": 3, "target": 50},
    {"preset": "pagat", "players": 2, "max_pip": 2, "hand_size": 5},  # refused: no room
    {"preset": "pagat", "players": 3, "target": -5},  # refused
]


def _oracle(case: dict[str, Any]) -> Rules:
    over = {k: case[k] for k in ("partnerships", "max_pip", "hand_size", "target") if k in case}
    return Rules.preset(case["preset"], case["players"], **over)


def _cli(case: dict[str, Any]) -> Rules:
    from allfives_cli.options import add_rules_options, rules_from_args

    p = argparse.ArgumentParser()
    add_rules_options(p)
    argv = ["--preset", case["preset"], "--players", str(case["players"])]
    if "partnerships" in case:
        argv.append("--partnerships" if case["partnerships"] else "--no-partnerships")
    for key in ("max_pip", "hand_size", "target"):
        if key in case:
            argv += [f"--{key}", str(case[key])]
    return rules_from_args(p.parse_args(argv))


def _trainer(case: dict[str, Any]) -> Rules:
    from agents.training.config import Settings

    return Settings(
        preset=case["preset"],
        num_players=case["players"],
        partnerships=case.get("partnerships"),
        max_pip=case.get("max_pip", 6),
        hand_size=case.get("hand_size", 0),
        target=case.get("target", 0),
    ).rules()


def _solve(case: dict[str, Any]) -> Rules:
    from allfives_cli.solve import _rules

    if "partnerships" in case:
        pytest.skip("allfives solve takes no --partnerships")
    args = argparse.Namespace(
        preset=case["preset"],
        players=case["players"],
        max_pip=case.get("max_pip", 6),
        hand_size=case.get("hand_size", Rules.preset(case["preset"], case["players"]).hand_size),
        target=case.get("target"),
    )
    return _rules(args)


def _benchmarl(case: dict[str, Any]) -> Rules:
    pytest.importorskip("benchmarl")
    from allfives_benchmarl.task import AllFivesTaskConfig

    if "target" in case:
        pytest.skip("the BenchMARL task takes no target")
    return AllFivesTaskConfig(
        case["preset"],
        case["players"],
        case.get("partnerships"),
        max_pip=case.get("max_pip", 6),
        hand_size=case.get("hand_size", 0),
    ).table()


def _web(case: dict[str, Any]) -> Rules:
    pytest.importorskip("fastapi")
    from allfives_web.app import NewGame, _rules
    from allfives_web.sessions import WebError

    body = NewGame(
        preset=case["preset"],
        players=case["players"],
        partnerships=case.get("partnerships"),
        max_pip=case.get("max_pip", 6),
        hand_size=case.get("hand_size"),
        target=case.get("target"),
        seats=["random"] * case["players"],
    )
    try:
        return _rules(body)
    except WebError as e:
        assert e.status == 422
        raise RulesError(str(e)) from None


RULES_BUILDERS: dict[str, Callable[[dict[str, Any]], Rules]] = {
    "rules_of": lambda c: rules_of(
        c["preset"],
        c["players"],
        c.get("partnerships"),
        max_pip=c.get("max_pip"),
        hand_size=c.get("hand_size"),
        target=c.get("target"),
    ),
    "allfives_cli.options.rules_from_args": _cli,
    "agents.training.config.Settings.rules": _trainer,
    "allfives_cli.solve._rules": _solve,
    "allfives_benchmarl.task.AllFivesTaskConfig.table": _benchmarl,
    "allfives_web.app._rules": _web,
}


def _outcome(make: Callable[[], Rules]) -> Rules | str:
    try:
        return make()
    except RulesError as e:
        return f"refused: {e}"


@pytest.mark.parametrize("case", range(len(RULES_CASES)))
@pytest.mark.parametrize("name", sorted(RULES_BUILDERS))
def test_the_rules_builders_agree_with_rules_preset(name: str, case: int) -> None:
    c = RULES_CASES[case]
    assert _outcome(lambda: RULES_BUILDERS[name](c)) == _outcome(lambda: _oracle(c))


def test_rules_of_changes_a_rules_set_hand_and_target_where_given() -> None:
    base = Rules.preset("spruce", 3)
    assert rules_of(base) is base
    assert rules_of(base, 3, max_pip=4, hand_size=3, target=100) == Rules.preset(
        "spruce", 3, max_pip=4, hand_size=3, target=100
    )
    with pytest.raises(RulesError, match="rules field 'hand_size'"):
        rules_of(base, max_pip=2)
