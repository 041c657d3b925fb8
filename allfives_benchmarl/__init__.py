"""All Fives for BenchMARL and TorchRL (the ``[benchmarl]`` extra).

- :mod:`allfives_benchmarl.env`: :class:`~allfives_benchmarl.env.AllFivesTorchEnv`, a batched,
  turn-based TorchRL multi-agent environment on the batched engine, masks in its specs;
- :mod:`allfives_benchmarl.task`: the BenchMARL task,
  :class:`~allfives_benchmarl.task.AllFivesTask`;
- :mod:`allfives_benchmarl.train`: ``python -m allfives_benchmarl.train`` trains MAPPO, IPPO
  (and BenchMARL's other masked discrete-action algorithms) and exports the policy;
- :mod:`allfives_benchmarl.policy_file`: the exported policy (the actor and the rules it was
  trained on);
- :mod:`allfives_benchmarl.agent`: ``benchmarl:PATH``, that policy as an agent of this project.

Importing this package imports nothing heavy; its modules import torch, TorchRL and BenchMARL.
"""
