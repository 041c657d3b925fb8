"""All Fives for OpenSpiel (the ``[openspiel]`` extra): importing this package registers the
game ``python_allfives`` with ``pyspiel``.

* :mod:`allfives_openspiel.game`: the game, its parameters and its type;
* :mod:`allfives_openspiel.state`: its states (chance, moves, rewards, resampled worlds);
* :mod:`allfives_openspiel.observer`: observations and perfect-recall information states;
* :mod:`allfives_openspiel.bots`: the project's agents as OpenSpiel bots (``AgentBot``);
* :mod:`allfives_openspiel.agent`: OpenSpiel's ISMCTS and determinized MCTS as the project's
  agents ``openspiel-ismcts:...`` and ``openspiel-mcts:...``.
"""

from allfives_openspiel.game import SHORT_NAME, AllFivesGame, load_game, upgrade_game_string
from allfives_openspiel.state import AllFivesState

__all__ = ["SHORT_NAME", "AllFivesGame", "AllFivesState", "load_game", "upgrade_game_string"]
