"""One agent spec grammar everywhere: ``name`` or ``name:key=value,key=value``, one spec per
agent; a key given twice is refused; every error quotes the spec as it was given; an old
comma-separated list is told apart and refused with its parts shown."""

from __future__ import annotations

import importlib.util

import pytest

from agents.errors import AgentError
from agents.registry import UnknownAgentError, joined_specs, make_agent, parse_spec
from allfives_cli.options import agent_specs

HAS_OPENSPIEL = importlib.util.find_spec("open_spiel") is not None


@pytest.mark.parametrize(
    ("spec", "name", "params"),
    [
        ("greedy", "greedy", {}),
        ("search:sims=5,time=0.5,rollout=heuristic", "search",
         {"sims": 5, "time": 0.5, "rollout": "heuristic"}),
        ("batchsearch:worlds=512,infer=1", "batchsearch", {"worlds": 512, "infer": 1}),
        (" heuristic : hoard = true ", "heuristic", {"hoard": True}),
    ],
)  # fmt: skip
def test_a_spec_is_a_name_and_its_parameters(
    spec: str, name: str, params: dict[str, object]
) -> None:
    assert parse_spec(spec) == (name, params)
    assert joined_specs(spec) is None


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("search:sims=2,sims=3", "bad agent spec 'search:sims=2,sims=3': sims is given twice"),
        ("batchsearch:worlds=4, worlds =8", "worlds is given twice"),
        ("search:sims", "bad agent spec 'search:sims': parameters are key=value"),
        ("search:=3", "bad agent spec 'search:=3': parameters are key=value"),
        ("search:", "bad agent spec 'search:': no parameter after the ':'"),
        ("search:sims=2,,time=1", "bad agent spec 'search:sims=2,,time=1'"),
    ],
)
def test_a_malformed_or_repeated_parameter_is_refused(spec: str, message: str) -> None:
    with pytest.raises(UnknownAgentError) as err:
        make_agent(spec)
    assert message in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize(
    ("spec", "quoted"),
    [
        ("greedy:depth=3", "'greedy:depth=3'"),
        ("search:sims=0", "'search:sims=0'"),
        ("nobody:x=1", "'nobody:x=1'"),
        ("greedy,random", "'greedy,random'"),
    ],
)
def test_every_spec_error_quotes_what_was_typed(spec: str, quoted: str) -> None:
    with pytest.raises(AgentError) as err:
        make_agent(spec)
    assert quoted in str(err.value), str(err.value)
    assert "'x:" not in str(err.value)


@pytest.mark.parametrize(
    ("typed", "parts"),
    [
        ("greedy,random", ["greedy", "random"]),
        ("greedy, heuristic:hoard=true", ["greedy", "heuristic:hoard=true"]),
        ("search:sims=50;random", ["search:sims=50", "random"]),
        ("search:sims=5,time=1;greedy", ["search:sims=5,time=1", "greedy"]),
        ("runs/a/best.zip,greedy", ["runs/a/best.zip", "greedy"]),
        ("search:sims=5,time=1", None),
        ("batchsearch:rollout=runs/a/best.zip,worlds=8", None),
        ("batchsearch:worlds=2,value=runs/v.zip", None),
        ("batchsearch:worlds=2,prior=a.zip,value=b.zip", None),
        ("my,odd,name", None),
    ],
)
def test_an_old_comma_list_is_told_apart(typed: str, parts: list[str] | None) -> None:
    assert joined_specs(typed) == parts


def test_the_command_line_shows_the_new_form_of_an_old_list() -> None:
    with pytest.raises(AgentError) as err:
        agent_specs("--agents", ["greedy,random"])
    assert str(err.value) == (
        "--agents 'greedy,random' names 2 agents in one argument: give one spec per argument: "
        "--agents greedy random"
    )
    assert agent_specs("--agents", [" greedy ", "search:sims=5,time=1"]) == [
        "greedy",
        "search:sims=5,time=1",
    ]
    with pytest.raises(AgentError, match="an empty agent spec"):
        agent_specs("--opponents", ["greedy", ""])


@pytest.mark.skipif(not HAS_OPENSPIEL, reason="needs open_spiel (the [openspiel] extra)")
@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("openspiel-ismcts:sims=2,sims=3", "sims is given twice"),
        ("openspiel-mcts:worlds=2,worlds=2", "worlds is given twice"),
        ("openspiel-mcts:foo", "parameters are key=value"),
        ("openspiel-ismcts:depth=3", "unknown parameter(s) depth"),
        ("openspiel-mcts:sims=0", "sims must be an integer"),
    ],
)
def test_openspiel_specs_follow_the_same_grammar(spec: str, message: str) -> None:
    """The spec error used to name an internal placeholder (``'x:foo'``)."""
    with pytest.raises(AgentError) as err:
        make_agent(spec)
    text = str(err.value)
    assert message in text and f"bad agent spec {spec!r}" in text, text
    assert make_agent("openspiel-mcts:sims=4,worlds=2").sims == 4  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", ["rllib", "benchmarl", "openspiel-nfsp"])
def test_a_path_kind_without_a_path_quotes_the_spec(kind: str) -> None:
    from importlib.metadata import entry_points

    if not list(entry_points(group="allfives.agent_kinds", name=kind)):
        pytest.skip(f"{kind} is not installed")
    try:
        make_agent(f"{kind}:")
    except AgentError as e:
        assert f"bad agent spec '{kind}:'" in str(e) and "needs a path" in str(e)
    except ImportError:
        pytest.skip(f"{kind}'s extra is not installed")
    else:
        raise AssertionError("an empty path was taken")
