"""All Fives for OpenSpiel (the ``[openspiel]`` extra): importing this package registers the
game ``python_allfives`` with ``pyspiel`` (:mod:`allfives_openspiel.game`); OpenSpiel's
ISMCTS and determinized MCTS play as agents ``openspiel-ismcts:...`` and ``openspiel-mcts:...``
(:mod:`allfives_openspiel.agent`)."""

from allfives_openspiel.game import SHORT_NAME, AllFivesGame, AllFivesState

__all__ = ["SHORT_NAME", "AllFivesGame", "AllFivesState"]
