"""Self-play training of an All Fives agent: imitation of the heuristic, then PPO, on the
batched engine.

    python train.py                                  # the default config: pagat, 2 players
    python train.py --config configs/smoke.yaml      # a few thousand steps (what CI runs)
    python train.py --config configs/team4.yaml --total_timesteps 4000000 --name team4-long
    python train.py --config configs/strong.yaml --address HEAD:6379  # its teacher on Ray

The trainer reads top to bottom (in the manner of CleanRL's ``ppo.py``) in
``agents/training/selfplay.py``; this script runs it, and the package holds its parts:

1. ``Config`` — every field has a one-line docstring (``--help`` prints them); ``configs/*.yaml``
   use exactly these names; ``--field value`` overrides. Anything wrong is one line, exit 2,
   before anything runs.
2. The table — :class:`~allfives_env.vector.single_agent.LearnerBatch`: ``num_envs`` games on
   the batched engine, the learner at one seat of each (drawn every episode), every other seat
   (the partner too, in 4 players) drawn each episode from a pool of baseline agents (by
   default the heuristic, compiled, twice as often as greedy) and, when ``baseline_prob`` < 1,
   the learner's frozen snapshots.
3. The network — :class:`agents.training.torch_networks.ScorerNet`: a trunk on the global
   observation, and one small network shared by all placements that scores each from its public
   outlook
   (``action_features="outlook"``), weighed by the position.
4. Warm start — imitation of the heuristic: the learner plays (at first mostly the teacher's
   moves), and is trained to pick what the heuristic picks in the positions it meets (its
   critic learns the returns at the same time). With ``imitation_targets: values`` and a search
   teacher, it learns the search's value of every legal action instead
   (:class:`agents.training.teacher.SearchTeacher`: softmax(value / imitation_temperature)).
5. PPO — clipped surrogate, GAE, masked actions, snapshots into the pool, periodic evaluation
   with the project's duplicate-deal evaluator, ``best.zip`` (best mean win rate) and
   ``latest.zip``, TensorBoard scalars, a progress bar, and a resume point after every update.
6. The end — ``best.zip`` settled between the best periodic evaluation and the final weights on
   deals of its own, its final evaluation on other deals, ``report.json`` and
   ``learning_curve.png``.

Resume: a run folder (``runs/<name>``) holds everything needed to continue: the network and its
optimizer, the pool, the games in the middle of play, the counters and every generator's state,
saved after each update. Running the same command again after Ctrl-C or a kill continues from
there, bit for bit; a finished run is not restarted unless ``total_timesteps`` grows; a
different config for the same name is refused (use ``--name`` or ``--fresh``), and so is a
folder whose ``config.yaml`` was edited, or whose files a resume reads are missing or damaged
(each checked before anything is written). ``--fresh`` deletes only a run folder ``train.py``
made (``agents/training/ownership.py``). Each phase says what it is doing as it begins.
"""

from __future__ import annotations

import signal
import sys

_NOTED: list[bool] = []
"""Ctrl-C during the imports below: noted here, handed to the trainer, which stops at once."""

if __name__ == "__main__":
    signal.signal(signal.SIGINT, lambda *_: _NOTED.append(True))

from agents.training.entry import TRAIN_EXTRAS, require_extras  # noqa: E402

if __name__ == "__main__":
    require_extras("train.py", TRAIN_EXTRAS, "train", "training")

from agents.training.selfplay import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(noted=bool(_NOTED)))
