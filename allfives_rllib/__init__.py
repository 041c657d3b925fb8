"""All Fives on Ray RLlib (the ``[rllib]`` extra): distributed self-play.

- :mod:`allfives_rllib.env` — the AEC environment as an RLlib ``MultiAgentEnv`` (turn based,
  masked observation dicts, final rewards to every seat);
- :mod:`allfives_rllib.module` — the masked actor-critic RLModule (optionally a centralized
  critic on the global state);
- :mod:`allfives_rllib.league` — the self-play league of frozen snapshots;
- :mod:`allfives_rllib.agent` — an RLlib checkpoint as an agent (``rllib:PATH``);
- :mod:`allfives_rllib.config` — the trainer's config (``train_rllib.py``).

Importing this package imports nothing from Ray; its modules do.
"""
