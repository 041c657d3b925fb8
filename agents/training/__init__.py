"""What training needs, for both trainers (``train.py``, ``train_rllib.py``), the tools and the
benchmark's best response. Needs the ``[train]`` extra (torch, tyro, yaml, tensorboard...).

Shared by both trainers:

- :mod:`agents.training.config` — the shared fields (:class:`~agents.training.config.Settings`),
  their checks, the YAML file and the command line, one-line errors;
- :mod:`agents.training.run_folder` — a run folder's life: its lock, ``--fresh``,
  ``config.yaml`` and what a rerun may change, a full disk;
- :mod:`agents.training.ownership` — which folders a trainer made (its marker), so may write
  into or delete; ``config.yaml`` as the trainer wrote it (a hand edit refused);
- :mod:`agents.training.entry` — a trainer's command: its extras, Ctrl-C and SIGTERM, the exit
  statuses;
- :mod:`agents.training.cluster` — a Ray cluster joined by ``--address`` (an address with
  nothing behind it refused in one line);
- :mod:`agents.training.curve` — the learning curve: its thresholds, when a point is due, the
  points' names and ``curve/index.json`` (for every trainer, the policy trainers' too);
- :mod:`agents.training.policy_trainer` — the command around a trainer that writes a policy
  folder (``allfives_openspiel.train``, ``allfives_benchmarl.train``);
- :mod:`agents.training.groups` — a multi-agent trainer's seat groups and the rule that QMIX
  and VDN need teams (the recipes of the sweep check it without BenchMARL).

Self-play on the batched engine (``train.py``), read top to bottom in
:mod:`agents.training.selfplay`:

- :mod:`agents.training.selfplay_config` — its config and command line;
- :mod:`agents.training.table` — the learner's games and the pool of who sits at them;
- :mod:`agents.training.torch_networks` — the learner's network in torch (the twin of the NumPy
  one that plays, :mod:`agents.numpy_networks`);
- :mod:`agents.training.learner` — rollouts, PPO's update, the warm start's imitation;
- :mod:`agents.training.teacher` — a search agent's values as the warm start's targets (over
  worker processes or a Ray cluster's actors);
- :mod:`agents.training.evaluation` — evaluation during and after training, the report;
- :mod:`agents.training.run`, :mod:`agents.training.resume` — the run's record and its resume
  points;
- :mod:`agents.training.resume_check` — every file a rerun reads, checked before anything is
  written.

Nothing is imported here: each module is imported where it is used.
"""
