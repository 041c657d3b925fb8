"""
# All Fives

```{figure} ../docs/allfives_midgame.png
:width: 480px
:name: allfives
```

The domino game All Fives (Muggins, Five-Up): place tiles so that the open ends of the layout add
up to a multiple of five, which scores that many points, and be the first side to the target.

| Import             | `from allfives_env import allfives_v1` (or `env`, `raw_env`)           |
|--------------------|------------------------------------------------------------------------|
| Registry           | PettingZoo `allfives/allfives-v1`; Gymnasium `allfives/AllFives-v1`   |
| Actions            | Discrete                                                               |
| Parallel API       | Yes, turn based (`parallel_env()`)                                     |
| Manual Control     | `allfives play` (terminal)                                             |
| Agents             | `agents = ['player_0', …, 'player_{n-1}']`                              |
| Agents             | 2, 3 or 4 (4: pairs 0+2 v 1+3 or each for himself, by preset)        |
| Action Shape       | (1,)                                                                   |
| Action Values      | [0, 28·S + 1]: S = 4 slots, or 16 with every double a spinner          |
| Observation Shape  | Dict: `observation` (222,) for `pagat` 2 players; `action_mask` (28·S + 2,) |
| Observation Values | `observation` in [0, 1] (scores in [−2, 2]); `action_mask` in {0, 1}   |

### Arguments

``env(num_players=None, rules="pagat", episode="match", reward="win", forced_actions="explicit",
render_mode=None, max_cycles=10000, partnerships=None, action_features=False)``

* `num_players`: 2, 3 or 4 (default 2, or the rules' own when `rules` is a `Rules`).
* `rules`: a preset name (`pagat`, `spruce`, `dominoes_cc`, `pyatyorka`, `five_up`) or a
  `Rules` (`Rules.preset("pagat", 4, target=100)`; `Rules.preset("pagat", 2, max_pip=3,
  hand_size=3)` plays the double-three set, whose arrays shrink with it: see below); or every
  setting at once, an `EnvSettings` (below), the other settings arguments then left out.
* `episode`: `"match"` (hands are dealt until a side reaches its target) or `"hand"` (one hand).
* `reward`: `"win"` (terminal, per side, zero-sum), `"points"` (dense, zero-sum: the own side's
  points minus the mean of the other sides', divided by the target, on every scoring event; over
  a match this adds up to the final score difference / target), or `"points+win"` (both).
* `forced_actions`: `"explicit"` (DRAW and PASS are actions the agent takes) or `"auto"` (the
  environment takes forced draws and passes itself; the agent only sees real choices).
* `render_mode`: `"ansi"` (the whole position as text, all hands), `"human"` (prints the public
  position: no hands), `"rgb_array"` (an image of the table, public only).
* `max_cycles`: truncate every agent after this many environment steps (actions) in one
  episode; `None` for no limit. PettingZoo's `max_cycles_test` assumes every agent acts once per
  cycle, which a turn-based game does not; the semantics here are one action per step.
* `partnerships`: with a preset name and 4 players, `True` seats 0+2 v 1+3, `False` each for
  himself; `None` (the default) takes the preset's own: partnerships in `pagat`, `spruce` and
  `five_up`, each for himself in `dominoes_cc` and `pyatyorka`.
* `action_features`: `True` appends to the observation, for each placement the observer may make
  now, the points it would score and the most the next player could score in reply; `"outlook"`
  also the placement's whole public outlook (the next seat's expected reply and chance to be
  stuck, what the observer's own tiles could score next, pips and values kept, the partner's
  outlook: what the heuristic agent weighs); `"lookahead"` also, one reply further, the chance
  that the next seat's reply wins his side the match and the chance that it plays out his
  hand. Public information that spares a learner the count's arithmetic; see `docs/spaces.md`.

Bad arguments raise `EnvConfigError` (a `ValueError`) naming the argument.

Every argument but `render_mode` makes one `EnvSettings` (`allfives_env.envs.settings`): its
`rules` (from `rules`, `num_players` and `partnerships`), `episode`, `reward`, `forced_actions`,
`action_features` and `max_cycles`. `EnvSettings.of(rules, num_players=..., episode=..., ...)`
checks them once, as here; the other front ends (the batched engine's, TorchRL's) take the same
keywords, every one holds the value as `settings`, and `env(rules=settings)` plays it.

### Observation Space

`observation` is a float32 vector seen from the observing seat: its own hand; the tiles on the
table and who placed them; per slot whether it is open, its value, a double/spinner flag, the
spinner's state and the slot's share of the count; the count; hand sizes; boneyard size; scores
relative to the target; the publicly known voids of every player (inferred from forced draws and
passes); the phase (lead, play, must place the drawn tile) and draws this turn; who leads and
who is to act. Other seats are listed in turn order after the observer ("relative seats"), so one
policy serves every seat. Every index is documented in `docs/spaces.md`, generated from
`allfives_env/envs/spaces.py` (`python -m allfives_env.envs.spaces`).

An observation never holds an opponent's tile, the boneyard's order, or whether a tile another
player just drew fits (that shows only when he acts).

#### Action Mask

`action_mask` (also `infos[agent]["action_mask"]`) marks exactly the engine's legal actions of the
agent to act, and is all zeros for every other agent. While a draw is forced only DRAW is legal;
right after drawing a tile that fits, only placements of that tile; when nothing can be placed or
drawn, only PASS. Under `five_up` DRAW is offered beside the placements while the boneyard has
tiles. The lead is offered on slot 0 only (a mirrored lead plays identically).

### Action Space

`Discrete(28·S + 2)`: placing tile `t` (`0-0`=0 … `6-6`=27) on slot `s` is `t·S + s`, then DRAW
(`28·S`) and PASS (`28·S + 1`). Slots: W=0, E=1 (the line's ends), N=2, S=3 (the spinner's
branches); with every double a spinner, spinner k owns slots 2+2k and 3+2k. Ids are the same for
every seat. A smaller set (`Rules.max_pip` N below 6, T tiles) has `Discrete(T·S + 2)`: a
tile's rank in the set takes the place of its id, and every tile block of the observation has T
entries (`docs/spaces.md`). `raw_env` raises `IllegalActionError` (a `ValueError`, state
unchanged) for an action outside the mask; `env()` instead ends the game with −1 for the
offender and 0 for the others (PettingZoo's `TerminateIllegalWrapper`), and raises
`ActionSpaceError` (an `AssertionError` too) for one outside the action space. An agent that is
done takes `None` only; a step once every agent is done is an `EpisodeOverError`;
`parallel_env().step` needs the acting agent's action (`ActionsError` names it when it is
missing).

### Rewards

Rewards go to sides: partners always receive equal rewards. With `"win"`, when the episode ends
each side gets `(k·[won]/|W| − 1)/(k − 1)` for k sides and W winners: +1 / −1 with two sides; +1,
−½, −½ with three. In `episode="hand"` the hand's winners are the sides that gained most in it.
All reward modes are zero-sum over sides.

### State

`state()` (`state_space`) is the full position for centralized critics: every hand and the
boneyard in draw order, with absolute seats (see `docs/spaces.md`).

### Version History

* v1: With 4 players, `dominoes_cc` and `pyatyorka` play each for himself by default, as their
  sources do (`partnerships=True` asks for pairs); every other behaviour is v0's (allfives
  0.2.0). `allfives_v0` (`allfives/allfives-v0`, `allfives/AllFives-v0`) keeps v0's default.
* v0: Initial release (allfives 0.1.0).
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.env import ParallelEnv

from allfives_env.envs.aec import env, raw_env
from allfives_env.envs.parallel import parallel
from allfives_env.envs.registration import register_pettingzoo
from allfives_env.envs.settings import EnvConfigError


def parallel_env(**kwargs: Any) -> ParallelEnv[str, dict[str, Any], int]:
    """The environment through PettingZoo's turn-based AEC → parallel conversion: each parallel
    step takes the action of the agent to act (others' actions are ignored); a step without
    it, after the episode ended or before ``reset`` is refused with a typed error
    (:class:`allfives_env.envs.parallel.TurnBasedParallelEnv`)."""
    return parallel(env(**kwargs))


register_pettingzoo()

__all__ = ["EnvConfigError", "env", "parallel_env", "raw_env"]
