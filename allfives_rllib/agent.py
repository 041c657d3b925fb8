"""An RLlib checkpoint as an agent: ``rllib:PATH`` wherever an agent spec is taken.

``PATH`` is a checkpoint folder written by ``train_rllib.py`` (it holds ``allfives.json``, the
rules and observation options the module was trained for), or a run folder, whose ``best``
checkpoint is then used (``checkpoint``, the latest, when there is no best yet). The agent
plays the trained ``main`` module's actor: the most likely legal action, read from the
observation the environment gives that seat (never the global state).

The registry finds this module through the ``allfives.agent_kinds`` entry point, so the
``agents`` package never imports Ray.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np

from agents.learned import (
    META_FILE,
    CheckpointError,
    PolicySpec,
    check_trained_rules,
    read_meta_file,
)
from allfives_env.core.actions import DRAW_ID, Action
from allfives_env.core.rules import Rules
from allfives_env.core.view import PlayerView
from allfives_env.envs.spaces import Encoding

MODULE_ID = "main"
"""The module that is trained and played (the league's frozen snapshots are others)."""
TABLE_MODULE_ID = "default_policy"
"""The module trained on the batched engine's table: RLlib's single-agent default id
(``ray.rllib.core.DEFAULT_MODULE_ID``, named here so that reading a checkpoint imports no Ray)."""
MODULE_DIR = Path("learner_group", "learner", "rl_module")
"""Where an algorithm checkpoint keeps its modules."""


def resolve(path: str | Path) -> Path:
    """The checkpoint folder that ``path`` names (a checkpoint, or a run folder).

    Raises:
        CheckpointError: if ``path`` holds no checkpoint written by ``train_rllib.py``.
    """
    p = Path(path)
    for candidate in (p, p / "best", p / "checkpoint"):
        if (candidate / META_FILE).is_file() and module_dir(candidate).is_dir():
            return candidate
    raise CheckpointError(
        f"no RLlib checkpoint of train_rllib.py at {str(path)!r} (give a run folder or its "
        f"'best' or 'checkpoint' folder)"
    )


def module_dir(folder: Path) -> Path:
    """Where the checkpoint ``folder`` keeps the trained module: ``main`` (the league's, and
    every evaluated or best module), else RLlib's single-agent ``default_policy`` (an
    algorithm checkpoint of the batched engine's table)."""
    main = folder / MODULE_DIR / MODULE_ID
    return main if main.is_dir() else folder / MODULE_DIR / TABLE_MODULE_ID


def write_agent_folder(folder: Path, module: Any, spec: PolicySpec) -> None:
    """Save ``module`` (an RLlib module, as it is now) into ``folder`` (made if missing) as a
    checkpoint folder that ``rllib:FOLDER`` plays (:func:`resolve`): the module in
    ``MODULE_DIR/main``, beside ``allfives.json`` (``spec``: the rules and observation options
    it plays). ``folder``'s former contents are not removed: give a new folder."""
    import json

    (folder / MODULE_DIR).mkdir(parents=True, exist_ok=True)
    module.save_to_path(str((folder / MODULE_DIR / MODULE_ID).resolve()))
    (folder / META_FILE).write_text(json.dumps(spec.to_json(), indent=1), encoding="utf-8")


def read_spec(folder: Path) -> PolicySpec:
    """The rules and observation options saved with a checkpoint.

    Raises:
        CheckpointError: naming the file, if it is unreadable, not strict JSON (a key given
            twice, ``NaN``) or malformed (:meth:`PolicySpec.from_json`).
    """
    path = folder / META_FILE
    return PolicySpec.from_json(read_meta_file(path), str(path))


class RLlibAgent:
    """Plays the actor of an RLlib checkpoint's ``main`` module (see the module docstring).

    Forced draws and passes (the only legal action) are taken without asking the network.
    """

    def __init__(self, spec: PolicySpec, module: Any, name: str):
        self.spec = spec
        self.module = module
        self.name = name
        self.encoding = Encoding(spec.rules, spec.action_features)

    def check_rules(self, rules: Rules) -> None:
        """Refuse rules other than the ones the module was trained on.

        Raises:
            CheckpointError: if ``rules`` are not the checkpoint's.
        """
        check_trained_rules(self.name, self.spec.rules, rules)

    def logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The module's masked logits for a batch of observations and masks."""
        import torch
        from ray.rllib.core.columns import Columns

        batch = {
            Columns.OBS: {
                "observations": torch.as_tensor(obs, dtype=torch.float32),
                "action_mask": torch.as_tensor(mask, dtype=torch.float32),
            }
        }
        out = self.module.forward_inference(batch)
        result: np.ndarray = out[Columns.ACTION_DIST_INPUTS].numpy()
        return result

    def act(self, view: PlayerView, rng: random.Random) -> Action:
        """The most likely legal action for ``view``."""
        legal = view.legal_actions
        if len(legal) == 1 and legal[0] >= DRAW_ID:
            return legal[0]
        self.check_rules(view.rules)
        enc = self.encoding
        mask = np.zeros(enc.num_actions, np.float32)
        by_env: dict[int, Action] = {}
        for a in legal:
            env_id = enc.to_env[a]
            if env_id >= 0:
                mask[env_id] = 1.0
                by_env[env_id] = a
        z = self.logits(enc.observe_view(view)[None], mask[None])[0]
        z = np.where(mask > 0, z, -np.inf)
        return by_env[int(z.argmax())]


def load_rllib_agent(path: str) -> RLlibAgent:
    """The agent of the checkpoint (or run folder) at ``path``.

    Raises:
        CheckpointError: if ``path`` is not a readable checkpoint of ``train_rllib.py``.
    """
    folder = resolve(path)
    spec = read_spec(folder)
    import logging

    import torch
    from ray.rllib.core.rl_module.rl_module import RLModule

    for name in ("ray.rllib", "ray._common.deprecation"):  # RLlib's notes to its developers
        logging.getLogger(name).setLevel(logging.ERROR)
    torch.set_num_threads(1)
    try:
        module = RLModule.from_checkpoint(str(module_dir(folder).resolve()))
    except Exception as e:  # a damaged or foreign checkpoint: RLlib raises many kinds
        raise CheckpointError(f"cannot load the RLlib module in {str(folder)!r}: {e}") from None
    module.eval()
    name = folder.parent.name if folder.name in ("best", "checkpoint") else folder.name
    return RLlibAgent(spec, module, f"rllib:{name}")


def make(argument: str) -> RLlibAgent:
    """The entry point's factory: ``rllib:PATH`` → :func:`load_rllib_agent` (``PATH``)."""
    if not argument:
        raise CheckpointError(
            "bad agent spec 'rllib:': it needs a path (rllib:PATH, a run or checkpoint folder)"
        )
    return load_rllib_agent(argument)
