"""allfives: the domino game All Fives (Muggins, Five-Up): a rules engine and RL environments.

The engine follows RULES.md: five presets (``pagat``, the default, ``spruce``, ``dominoes_cc``,
``pyatyorka``, ``five_up``) for 2, 3 and 4 players. It imports nothing from RL.

>>> import random
>>> game = Game(Rules.preset("pagat", 2), random.Random(0))
>>> game.current_player in (0, 1), len(game.hand(0)), game.boneyard_size
(True, 9, 10)
"""

from typing import Any

from allfives_env.core.actions import ACTIONS, DRAW, MAX_SLOTS, PASS, Action, parse_slot, slot_name
from allfives_env.core.deal import Deal, LeaderChoice, PreviousHand, leader_choice
from allfives_env.core.errors import (
    AllFivesError,
    ArgumentError,
    DealError,
    IllegalActionError,
    NotationError,
    RecordError,
    RulesError,
)
from allfives_env.core.events import ActionResult, Event, HandEnd, HandLog, HandResult, Phase
from allfives_env.core.game import Game, new_game
from allfives_env.core.layout import Layout
from allfives_env.core.records import (
    Record,
    RecordHand,
    ReplayResult,
    load_record,
    parse_record,
    record_of,
    replay,
    save_record,
)
from allfives_env.core.rules import PRESETS, Rules
from allfives_env.core.scoring import Award, hand_award, round5
from allfives_env.core.tiles import TILES, Tile
from allfives_env.core.view import PlayerView
from allfives_env.envs.registration import register_gymnasium

_LAZY = {
    "env": "allfives_env.envs.allfives_v1",
    "raw_env": "allfives_env.envs.allfives_v1",
    "parallel_env": "allfives_env.envs.allfives_v1",
    "EnvConfigError": "allfives_env.envs.allfives_v1",
    "AllFivesSingleAgentEnv": "allfives_env.envs.single_agent",
}


register_gymnasium()  # a string entry point: imports gymnasium's registry, nothing of ours


def __getattr__(name: str) -> Any:
    """The environments, imported on first use so the engine alone needs no RL library.

    Importing them registers ``allfives/allfives-v1`` (and ``-v0``) with PettingZoo.
    """
    import importlib

    if name == "allfives_v1":
        return importlib.import_module("allfives_env.envs.allfives_v1")
    if name == "allfives_v0":
        return importlib.import_module("allfives_env.envs.allfives_v0")
    if name in _LAZY:
        importlib.import_module("allfives_env.envs.allfives_v1")
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'allfives_env' has no attribute {name!r}")


__all__ = [
    "ACTIONS",
    "DRAW",
    "MAX_SLOTS",
    "PASS",
    "PRESETS",
    "TILES",
    "Action",
    "ActionResult",
    "AllFivesError",
    "ArgumentError",
    "Award",
    "Deal",
    "DealError",
    "Event",
    "Game",
    "HandEnd",
    "HandLog",
    "HandResult",
    "IllegalActionError",
    "Layout",
    "LeaderChoice",
    "NotationError",
    "Phase",
    "PlayerView",
    "PreviousHand",
    "Record",
    "RecordError",
    "RecordHand",
    "ReplayResult",
    "Rules",
    "RulesError",
    "Tile",
    "hand_award",
    "leader_choice",
    "load_record",
    "new_game",
    "parse_record",
    "parse_slot",
    "record_of",
    "replay",
    "round5",
    "save_record",
    "slot_name",
]
