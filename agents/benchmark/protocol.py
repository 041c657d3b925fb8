"""The benchmark protocols, ``allfives-bench/2`` and ``/1``: what is played, against whom, on
which deals.

Every number of a benchmark follows from the agent and its protocol: the settings, the fixed
opponents, the deals (seeded by the protocol, the setting and the opponent) and the best
response's budget are fixed here, so results are comparable between people and papers. A
change to any of them is a new protocol version; the old ones stay here, so their results can
be read, compared and reproduced.

- **Settings**: ``pagat-2p``, ``pagat-4p`` (partnerships, 0+2 v 1+3), ``five_up-2p`` and
  ``pyatyorka-3p`` (each for himself: the agent against two copies of the opponent).
- **Opponents** (:data:`FULL`, ``allfives-bench/2``): ``random``, ``greedy``,
  ``heuristic:hoard=true`` and ``batchsearch:hoard=true``: the heuristic and the strongest
  search with the heuristic's ``hoard`` rule, so that where the rules let a player draw while
  able (five_up) they fight for the boneyard instead of leaving it to whoever draws it dry
  (see :mod:`agents.heuristic`). :data:`V1` (``allfives-bench/1``) played ``random``,
  ``greedy``, ``heuristic`` and ``search:sims=100``, none of which draws by choice: an agent
  that drew the whole boneyard whenever the opponent led won every five_up match against all
  of them.
- **Matches**: duplicate deals, each dealt once per rotation of the sides (see
  :mod:`agents.eval.tournament`): :attr:`Protocol.deals` deals per opponent, fewer when the
  agent or the opponent is a search agent (:data:`SEARCH_AGENTS`,
  :attr:`Protocol.search_deals`): it is slow. An agent does not play itself.
- **Rating**: OpenSkill's Plackett-Luce model (the ``openskill`` package); see
  :mod:`agents.benchmark.rating`.
- **Exploitability** (approximate): the win rate that a best response reaches against the
  frozen agent after a fixed budget of ``train.py`` (:attr:`Protocol.best_response`).

:data:`REDUCED` is a small configuration of the same code for tests and CI; its numbers are
not comparable with the full protocol's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from agents.eval.match import derive_seed
from allfives_env.core.rules import Rules
from allfives_env.envs.settings import rules_of

SEARCH_AGENTS = ("search", "batchsearch")
"""The search agents: slow, so they play :attr:`Protocol.search_deals` deals and no best
response is trained against them."""


def is_search(spec: str) -> bool:
    """Whether the agent spec names a search agent (:data:`SEARCH_AGENTS`)."""
    return spec.partition(":")[0] in SEARCH_AGENTS


@dataclass(frozen=True)
class Setting:
    """A table of the benchmark: rules and a name.

    A setting on a smaller set (``max_pip`` below 6) can be ``exact``: two players, small
    enough for the exact solver (:mod:`agents.exact`), so that every policy trained there is
    measured by its exact NashConv in one hand, beside its matches. Its learners train on
    ``episode`` (``"hand"``: the hand the solver's utility is) with ``reward`` (``"points"``:
    that utility); elsewhere both are the trainers' own (empty).
    """

    name: str
    preset: str
    num_players: int
    partnerships: bool | None = None
    max_pip: int = 6
    hand_size: int = 0
    """Tiles dealt to each player (0: the preset's own)."""
    exact: bool = False
    episode: str = ""
    reward: str = ""

    def rules(self) -> Rules:
        """The rules of this setting."""
        return rules_of(
            self.preset,
            self.num_players,
            self.partnerships,
            max_pip=self.max_pip,
            hand_size=self.hand_size or None,
        )

    def trainer_flags(self, episode: bool = True, reward: bool = True) -> list[str]:
        """The flags every trainer of the project takes for this setting's set and hand size,
        and (where asked: a trainer that takes them) its episode and reward, beyond its
        preset, players and partnerships."""
        flags = []
        if self.max_pip != 6:
            flags += ["--max_pip", str(self.max_pip)]
        if self.hand_size:
            flags += ["--hand_size", str(self.hand_size)]
        if episode and self.episode:
            flags += ["--episode", self.episode]
        if reward and self.reward:
            flags += ["--reward", self.reward]
        return flags


@dataclass(frozen=True)
class BestResponse:
    """The budget of the best response: ``train.py`` flags, fixed by the protocol."""

    imitation_samples: int
    total_timesteps: int
    final_eval_matches: int
    extra: tuple[str, ...] = ()
    """More ``train.py`` flags (the reduced protocol's small network)."""

    def describe(self) -> str:
        """The budget in words."""
        return (
            f"train.py: {self.imitation_samples:,} learner steps of imitation of the heuristic, "
            f"then {self.total_timesteps:,} of PPO against the frozen agent alone; "
            f"{self.final_eval_matches:,} duplicate matches"
        )


@dataclass(frozen=True)
class Protocol:
    """A benchmark protocol (see the module docstring)."""

    name: str
    settings: tuple[Setting, ...]
    opponents: tuple[str, ...]
    deals: int
    """Deals per opponent (each played once per rotation of the sides)."""
    search_deals: int
    """Deals against ``search:*`` opponents."""
    best_response: BestResponse
    seed: int = 20261201

    def deals_against(self, opponent: str, agent: str = "") -> int:
        """Deals that ``agent`` plays against ``opponent``."""
        slow = is_search(opponent) or is_search(agent)
        return self.search_deals if slow else self.deals

    def seed_of(self, setting: Setting, opponent: str) -> int:
        """The deal seed of ``setting`` against ``opponent`` (the same for every agent)."""
        return derive_seed(self.name, self.seed, setting.name, opponent) % 2**31

    def setting(self, name: str) -> Setting:
        """The setting called ``name``.

        Raises:
            KeyError: if there is none.
        """
        for s in self.settings:
            if s.name == name:
                return s
        raise KeyError(name)


SETTINGS = (
    Setting("pagat-2p", "pagat", 2),
    Setting("pagat-4p", "pagat", 4, True),
    Setting("five_up-2p", "five_up", 2),
    Setting("pyatyorka-3p", "pyatyorka", 3),
)

TINY_2P = Setting(
    "tiny-2p", "pagat", 2, max_pip=2, hand_size=2, exact=True, episode="hand", reward="points"
)
"""The small track's setting: pagat, double-two, hands of 2, two players; one hand an
episode. The exact solver and OpenSpiel's ``nash_conv`` both solve it (the training protocol's
exact setting; the evaluation protocol does not play it)."""

SMALL_NETWORK = (
    "--num_envs", "16", "--num_steps", "32", "--num_minibatches", "4", "--update_epochs", "1",
    "--imitation_epochs", "1", "--actor_arch", "16", "--critic_arch", "16", "--context_dim",
    "4", "--eval_matches", "6",
)  # fmt: skip
"""The reduced protocol's ``train.py`` flags: a tiny network and table."""

BEST_RESPONSE = BestResponse(
    imitation_samples=100_000,
    total_timesteps=300_000,
    final_eval_matches=200,
    extra=("--eval_matches", "100"),
)
"""The full protocols' best response."""

REDUCED_BEST_RESPONSE = BestResponse(
    imitation_samples=512, total_timesteps=1024, final_eval_matches=6, extra=SMALL_NETWORK
)
"""The reduced protocols' best response."""

FULL = Protocol(
    name="allfives-bench/2",
    settings=SETTINGS,
    opponents=("random", "greedy", "heuristic:hoard=true", "batchsearch:hoard=true"),
    deals=100,
    search_deals=20,
    best_response=BEST_RESPONSE,
)
"""The benchmark (its current version)."""

V1 = replace(
    FULL, name="allfives-bench/1", opponents=("random", "greedy", "heuristic", "search:sims=100")
)
"""The benchmark's first version (fixed opponents that never draw by choice)."""

REDUCED = Protocol(
    name="allfives-bench/2-reduced",
    settings=(SETTINGS[0], SETTINGS[3]),
    opponents=("random", "greedy"),
    deals=3,
    search_deals=1,
    best_response=REDUCED_BEST_RESPONSE,
)
"""A small configuration for tests and CI (not comparable with :data:`FULL`)."""

V1_REDUCED = replace(REDUCED, name="allfives-bench/1-reduced")
""":data:`V1`'s small configuration."""

PROTOCOLS = {p.name: p for p in (FULL, REDUCED, V1, V1_REDUCED)}
