"""What the trainers' configs share: the shared fields, checks of YAML values, the YAML file,
the command line, the one-line errors.

``train.py`` and ``train_rllib.py`` describe a run with a dataclass of fields (each a subclass
of :class:`Settings`) whose values may come from a YAML file (untyped) and from the command
line (tyro). Both refuse a bad value with a :class:`ConfigError` naming the field, which the
script prints as one line before exiting with status 2. ``yaml`` and ``tyro`` (the ``[train]``
extra) are imported only when used.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from agents.training.errors import ConfigError as ConfigError  # (re-exported: its old home)
from allfives_env.core.errors import RulesError
from allfives_env.core.rules import Rules
from allfives_env.envs.settings import EPISODES, FORCED, REWARDS, EnvSettings, rules_of

T = TypeVar("T")
Check = tuple[bool, str, str]
"""A check of one field: whether it passed, the field's name, and what it must be."""


@dataclass
class Settings:
    """What every trainer's config has: the game, PPO's coefficients, the league's size, the
    evaluation. ``train.py``'s :class:`~agents.training.selfplay_config.Config` and
    ``train_rllib.py``'s :class:`~allfives_rllib.config.RLlibConfig` add their own fields (and
    may give a field another default); the field names are the YAML keys of ``configs/*.yaml``.
    """

    name: str = "default"
    """Run name: outputs go to ``<runs>/<name>`` (``<runs>/rllib/<name>`` for RLlib)."""
    preset: str = "pagat"
    """Rules preset: pagat, spruce, dominoes_cc, pyatyorka or five_up."""
    num_players: int = 2
    """Players at the table: 2, 3 or 4."""
    partnerships: bool | None = None
    """With 4 players: true for seats 0+2 v 1+3, false for each for himself; unset (null), the
    preset's own (pairs in pagat, spruce and five_up)."""
    max_pip: int = 6
    """The set: double-N, N from 2 (six tiles) to 6 (the 28 tiles of double-six)."""
    hand_size: int = 0
    """Tiles dealt to each player; 0: the preset's own (a smaller set needs smaller hands)."""
    target: int = 0
    """Points that win the match; 0: the preset's own."""
    episode: str = "match"
    """Episode length: a whole ``match`` or one ``hand``."""
    reward: str = "points+win"
    """Reward: ``win`` (terminal ±1), ``points`` (dense score difference / target) or both."""
    forced_actions: str = "auto"
    """``auto``: forced draws and passes are taken for the learner; ``explicit``: it takes them."""
    action_features: str = "outlook"
    """Per-placement inputs: ``basic`` (points now, best reply), ``outlook`` (also the threat,
    the chance the next seat is stuck, setup, pips kept, variety...) or ``lookahead`` (also the
    chance the next seat's reply wins the match or plays out his hand)."""
    total_timesteps: int = 8_000_000
    """Learner steps (its own decisions) of PPO, after the warm start; 0: the warm start alone."""
    seed: int = 0
    """Seed of everything: deals, seats, opponents, network init and sampling."""
    update_epochs: int = 4
    """Passes over each rollout in the update."""
    learning_rate: float = 2.5e-4
    """Adam step size (annealed linearly to 0 over the run when anneal_lr)."""
    gamma: float = 1.0
    """Discount factor."""
    gae_lambda: float = 0.95
    """GAE lambda."""
    clip_coef: float = 0.2
    """PPO clip range."""
    ent_coef: float = 0.01
    """Entropy bonus."""
    vf_coef: float = 0.5
    """Value-loss weight."""
    max_grad_norm: float = 0.5
    """Gradient clipping."""
    actor_arch: list[int] = field(default_factory=lambda: [128, 128])
    """Hidden layer sizes of the actor's trunk."""
    critic_arch: list[int] = field(default_factory=lambda: [128, 128])
    """Hidden layer sizes of the critic."""
    critic_state: bool = True
    """The critic reads the full position (every hand, the boneyard) and the learner's seat
    instead of the observation: it only trains (the checkpoint is the actor alone), so it may
    see what the player cannot."""
    pool_size: int = 8
    """Frozen snapshots of the learner kept as opponents (oldest dropped first)."""
    snapshot_every: int = 400_000
    """Learner steps between snapshots added to the pool."""
    eval_every: int = 1_000_000
    """Learner steps between evaluations."""
    eval_matches: int = 1000
    """Duplicate-deal matches per opponent in each periodic evaluation."""
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "greedy", "heuristic"])
    """Agent specs evaluated against (the best checkpoint is the best mean win rate)."""
    final_eval_matches: int = 1000
    """Matches per opponent in the final evaluation (and in the choice of best.zip between the
    best periodic evaluation and the final weights); 0: neither."""
    eval_processes: int = 2
    """Processes the evaluator may use."""
    torch_threads: int = 2
    """Threads torch may use."""
    device: str = "auto"
    """Where the learner runs: ``auto`` (a GPU when torch sees one, else the CPU), ``cpu``,
    ``cuda`` or ``cuda:N``; the engine stays on the CPU."""
    engine_threads: int = 0
    """Threads of the batched engine; 0: auto, the cores left after torch's (at least 1)."""
    progress: bool = True
    """Show a progress bar."""

    def rules(self) -> Rules:
        """The rules this config trains on: the preset's, on the set of :attr:`max_pip`, with
        :attr:`hand_size` and :attr:`target` where they are set (:func:`rules_of`).

        Raises:
            RulesError: for an unknown preset, a bad player count, or a set, hand size or
                target the rules refuse.
        """
        return rules_of(
            self.preset,
            self.num_players,
            self.partnerships,
            max_pip=self.max_pip,
            hand_size=self.hand_size or None,
            target=self.target or None,
        )

    def env_settings(self) -> EnvSettings:
        """The settings of the environment this config trains in: :meth:`rules`, and the
        fields of :class:`EnvSettings`' names (the default ``max_cycles``).

        Raises:
            RulesError: as :meth:`rules`; an :class:`EnvConfigError` for a setting
                :meth:`EnvSettings.of` refuses (:meth:`checks` refuses it first, as a
                :class:`ConfigError`).
        """
        return EnvSettings.of(
            self.rules(),
            episode=self.episode,
            reward=self.reward,
            forced_actions=self.forced_actions,
            action_features=self.action_features,
        )

    def checks(
        self,
        *,
        seed_limit: int,
        at_least_1: Iterable[str] = (),
        at_least_0: Iterable[str] = (),
        unit: Iterable[str] = (),
        positive: Iterable[str] = (),
    ) -> list[Check]:
        """The checks every trainer makes, after the types, the device and the engine's threads
        (:func:`check_types`, :mod:`agents.training.device`, raising at once) and the rules:
        the game's settings, the run's name, the seed (below ``seed_limit``), a non-empty list
        of evaluation opponents, finite floats, the actor's and critic's hidden sizes ≥ 1, and
        the ranges of the shared fields, then of the trainer's own: ``at_least_1``,
        ``at_least_0``, ``unit`` (between 0 and 1) and ``positive``.

        Raises:
            ConfigError: for a field of the wrong type, or rules that cannot be made.
        """
        from agents.training.device import check_engine_threads, resolve_device

        check_types(self)
        resolve_device(self.device)  # a GPU torch does not see: refused before anything runs
        check_engine_threads(self.engine_threads)
        at_least_1 = (
            "update_epochs", "pool_size", "snapshot_every", "eval_every", "eval_matches",
            "eval_processes", "torch_threads", *at_least_1,
        )  # fmt: skip
        at_least_0 = ("hand_size", "target", "final_eval_matches", *at_least_0)
        unit = ("gae_lambda", "gamma", *unit)
        positive = ("learning_rate", "clip_coef", "max_grad_norm", *positive)
        if self.hand_size >= 0 and self.target >= 0:  # else the range checks below say so
            try:
                self.rules()
            except RulesError as e:
                raise ConfigError(f"config: {e}") from None
        name = self.name
        checks: list[Check] = [
            (self.episode in EPISODES, "episode", f"one of {', '.join(EPISODES)}"),
            (self.reward in REWARDS, "reward", f"one of {', '.join(REWARDS)}"),
            (self.forced_actions in FORCED, "forced_actions", f"one of {', '.join(FORCED)}"),
            (self.action_features in ("basic", "outlook", "lookahead"), "action_features",
             "basic, outlook or lookahead"),
            (bool(name) and name.replace("-", "").replace("_", "").isalnum(), "name", "letters, "
             "digits, - or _"),
            (0 <= self.seed < seed_limit, "seed", f"from 0 to {_power(seed_limit)} - 1"),
            (bool(self.eval_opponents), "eval_opponents", "at least one agent spec"),
        ]  # fmt: skip
        checks += [(getattr(self, key) >= 1, key, "at least 1") for key in at_least_1]
        checks += [(getattr(self, key) >= 0, key, "at least 0") for key in at_least_0]
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.type == "float":
                checks.append((math.isfinite(value), f.name, "a finite number"))
            if f.name in ("actor_arch", "critic_arch"):
                checks.append((bool(value) and all(h >= 1 for h in value), f.name, "sizes ≥ 1"))
        checks += [(0.0 <= getattr(self, key) <= 1.0, key, "between 0 and 1") for key in unit]
        checks += [(getattr(self, key) > 0, key, "positive") for key in positive]
        return checks


def check_type(key: str, value: Any, kind: Any) -> None:
    """Check a field's value against its annotation (YAML values arrive untyped).

    Raises:
        ConfigError: if it does not fit.
    """
    if kind == "bool | None":
        ok = value is None or isinstance(value, bool)
    elif kind in ("list[int]", "list[str]"):
        item = int if kind == "list[int]" else str
        ok = isinstance(value, list) and all(
            isinstance(v, item) and not isinstance(v, bool) for v in value
        )
    elif kind == "float":
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    else:
        want = {"str": str, "int": int, "bool": bool}[kind]
        ok = isinstance(value, want) and (kind == "bool" or not isinstance(value, bool))
    if not ok:
        raise ConfigError(f"config {key!r} must be of type {kind}, not {value!r}")


def check_types(cfg: Any) -> None:
    """Check every field of the dataclass ``cfg`` against its annotation.

    Raises:
        ConfigError: naming the first field of the wrong type.
    """
    for f in dataclasses.fields(cfg):
        check_type(f.name, getattr(cfg, f.name), f.type)


def _power(limit: int) -> str:
    """``2**31`` for 2**31 (how the seed's limit reads in an error)."""
    exponent = limit.bit_length() - 1
    return f"2**{exponent}" if limit == 1 << exponent else str(limit)


def raise_first(cfg: Any, checks: Iterable[Check]) -> None:
    """Raise for the first failed check.

    Raises:
        ConfigError: ``config 'KEY' must be WHAT, not VALUE``.
    """
    for ok, key, what in checks:
        if not ok:
            raise ConfigError(f"config {key!r} must be {what}, not {getattr(cfg, key)!r}")


def check_agent_specs(cfg: Settings, keys: Iterable[str]) -> None:
    """Make each agent named in the fields ``keys`` (a spec or a list of specs) once, and have
    it accept the config's rules (a checkpoint plays only its own).

    Raises:
        ConfigError: naming the field of the first spec that fails.
    """
    from agents.errors import AgentError
    from agents.registry import make_agent

    for key in keys:
        specs = getattr(cfg, key)
        for spec in [specs] if isinstance(specs, str) else specs:
            try:
                agent = make_agent(spec)
                check_rules = getattr(agent, "check_rules", None)
                if check_rules is not None:
                    check_rules(cfg.rules())
            except (AgentError, ValueError, OSError) as e:
                raise ConfigError(f"config {key!r}: {e}") from None


def strict_yaml(text: str) -> Any:
    """``text`` as YAML (the safe subset), strictly: a key given twice in one mapping is
    refused, where PyYAML would keep its last value.

    Raises:
        yaml.YAMLError: for text that is not YAML, or a key given twice (its message names the
            key and its line).
    """
    import yaml  # the [train] extra

    return yaml.load(text, Loader=_unique_key_loader())


@functools.cache
def _unique_key_loader() -> Any:
    """PyYAML's ``SafeLoader``, refusing a key given twice in one mapping."""
    import yaml

    def construct_mapping(loader: Any, node: Any, deep: bool = False) -> Any:
        loader.flatten_mapping(node)
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=deep)
            try:
                twice = key in seen
            except TypeError:  # unhashable: PyYAML's own construct_mapping says so
                break
            if twice:
                line = key_node.start_mark.line + 1
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} given twice (line {line})", key_node.start_mark
                )
            seen.add(key)
        return yaml.SafeLoader.construct_mapping(loader, node, deep)

    loader: Any = type("UniqueKeyLoader", (yaml.SafeLoader,), {})  # (yaml is untyped)
    loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)
    return loader


def yaml_problem(e: Exception) -> str:
    """A YAML error (or another read error) in a few words, on one line: PyYAML's problem and
    its line, without the quoted source."""
    problem = getattr(e, "problem", None)
    mark = getattr(e, "problem_mark", None)
    if problem is None:
        return " ".join(str(e).split())
    where = f" (line {mark.line + 1})" if mark is not None and "(line" not in problem else ""
    return f"{problem}{where}"


def load_yaml(path: Path, default: T, refused: Mapping[str, str] | None = None) -> T:
    """The dataclass ``default`` updated by the YAML file at ``path``, its types checked.

    ``refused`` maps keys that this trainer does not take to the reason it gives.

    Raises:
        ConfigError: if the file cannot be read, is not YAML, gives a key twice, is not a
            mapping, or names a refused or unknown key, or a value of the wrong type.
    """
    import yaml

    try:
        loaded = strict_yaml(path.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise ConfigError(f"cannot read config {str(path)!r}: {yaml_problem(e)}") from None
    if not isinstance(loaded, dict):
        raise ConfigError(f"config {str(path)!r} must be a mapping of field: value")
    names = [f.name for f in dataclasses.fields(default)]  # type: ignore[arg-type]
    for key in loaded:
        if refused and key in refused:
            raise ConfigError(f"config key {key!r} in {path} is {refused[key]}")
        if key not in names:
            raise ConfigError(f"unknown config key {key!r} in {path} (known: {', '.join(names)})")
    cfg: T = dataclasses.replace(default, **loaded)  # type: ignore[type-var]
    check_types(cfg)
    return cfg


def config_path(argv: Sequence[str]) -> Path | None:
    """The value of ``--config`` in ``argv``, read first: it sets the other fields' defaults.

    Raises:
        ConfigError: if ``--config`` is given more than once (one file holds a run's config;
            flags override its fields).
    """
    found: list[str] = []
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == "--config":
            found.append(argv[i + 1] if i + 1 < len(argv) else "")
        elif arg.startswith("--config="):
            found.append(arg.partition("=")[2])
    if len(found) > 1:
        raise ConfigError(
            f"--config given {len(found)} times ({', '.join(found)}): give one config file "
            "(--field value flags override its fields)"
        )
    return Path(found[0]) if found and found[0] else None


def fail(prog: str, message: str) -> NoReturn:
    """Stop with one line on stderr and exit status 2 (a user mistake, not a crash)."""
    print(f"{prog}: error: {' '.join(message.split())}", file=sys.stderr)
    raise SystemExit(2)


def box_text(text: str) -> str:
    """tyro's boxed error message as one line: the message, without the title and help."""
    drawing = "╭╮╰╯─│┃━"
    lines = ["".join(c for c in line if c not in drawing).strip() for line in text.splitlines()]
    lines = [x for x in lines if x]
    for stop in ("Argument helptext", "For full helptext", "Perhaps you meant"):
        lines = lines[: next((i for i, x in enumerate(lines) if x.startswith(stop)), len(lines))]
    return " ".join(lines[1:] or lines)


def parse_command(
    kind: type[T], default: T, argv: Sequence[str], prog: str, description: str | None
) -> T:
    """The command line parsed by tyro into the dataclass ``kind``, from ``default``.

    ``--help`` prints every field with its doc and exits 0; a bad argument prints tyro's
    message as one line (:func:`fail`) and exits 2.
    """
    import tyro

    captured = io.StringIO()
    try:
        with contextlib.redirect_stderr(captured):
            return tyro.cli(
                kind, args=list(argv), default=default, use_underscores=True,
                description=description,
            )  # fmt: skip
    except SystemExit as e:
        if e.code in (0, None):
            raise
        fail(prog, box_text(captured.getvalue()) or f"bad arguments (see {prog} --help)")
