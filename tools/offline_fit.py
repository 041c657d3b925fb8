"""The warm start's learning offline: a teacher's values saved once, networks fitted in minutes.

    python tools/offline_fit.py collect OUT.npz [--config configs/strong.yaml] [--rollouts 10]
        [--seed 1] [--address HOST:PORT] [--force]
    python tools/offline_fit.py fit DATA.npz... [--config configs/strong.yaml] [--loss values]
        [--epochs 12] [--fraction 1] [--ensemble 1] [--weight_decay 0] [--out CHECKPOINT.zip]
        [--judge OTHER.npz...] [--device auto|cpu|cuda[:N]] [--force]

``collect`` plays ``--rollouts`` rollouts of the config's table (its ``num_envs`` games,
``num_steps`` learner steps each, its baselines in the other seats) with the config's
``imitation_teacher`` choosing every learner move (matches begun at random scores as the
config's ``start_scores`` says), and saves each position's observation,
legal mask and the teacher's mean value of every legal action (points; NaN elsewhere), in
arrays of (steps, games, …). It costs what the warm start's teacher costs: about 2 minutes a
rollout of 16,384 positions with ``strong.yaml``'s ``batchsearch:worlds=128`` on 2 cores.
``--address`` values them on the Ray cluster there instead (one actor per CPU of the cluster;
the same values, as ``train.py --address``).

``fit`` trains the config's network on those positions, every fifth game held out, in the warm
start's minibatches (``num_envs · num_steps / num_minibatches`` positions) with its loss
(``--loss values``: cross-entropy to softmax(value / imitation_temperature)) or that plus the
expected regret under the policy (``--loss regret``, the values' differences in points / 10),
the rate annealed to 0 over ``--epochs``. It prints,
for the training games and the held-out ones, the regret per decision by the teacher's own
values (the best value less the value of the network's most likely action), the share of
decisions where it picks the teacher's best, and the regret where a side has three quarters
of its target or more (the match's end), with the share of it held by the decisions there that
give away :data:`BIG` points or more. Several files are joined game by game (every fifth game of
the whole is held out). ``--judge FILE...`` also reports on the held-out games (every fifth) of
other files, e.g. a fit on other positions judged on the same games as another. ``--fraction
F`` trains on the first share F of the training games only (the held-out games unchanged): the
learning curve in positions. ``--ensemble K`` fits K networks (each from its own initial
weights, in its own orders) and reports each alone and the first k together (the mean of
their log-policies) on the held-out games; the last lines are the K together.
``--weight_decay W`` trains with AdamW's decoupled weight decay W instead of Adam. ``--device``
fits on that device (default: the config's ``device``; the positions are copied there once). The
targets' temperature is the config's ``imitation_temperature``. ``--out`` writes the (first)
network as a checkpoint, for ``allfives eval`` or ``tools/action_regret.py``. An output file
(``OUT.npz``, ``--out``) that exists is refused, before any work, unless ``--force``. The regrets
are judged by a noisy teacher: another draw of the same teacher scores above 0 on them too.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


BIG = 50.0
"""A decision that gives away this many points or more, reported apart at the match's end."""


def collect(args: argparse.Namespace) -> None:
    """Save the teacher's values of the positions its own play at the config's table meets."""
    from agents.files import write_output
    from agents.training.learner import teacher_rng
    from agents.training.resume import seed_everything
    from agents.training.run import Run
    from agents.training.selfplay_config import load_yaml
    from agents.training.table import Pool, make_table
    from agents.training.teacher import SearchTeacher

    cfg = load_yaml(args.config)
    cfg = dataclasses.replace(cfg, seed=args.seed, name="offline_fit")
    cfg.check()
    seed_everything(cfg)
    pool = Pool(cfg, Run(cfg, Path("runs")).spec())
    table = make_table(cfg, pool)
    table.reset(cfg.seed)
    rng = teacher_rng(cfg)
    games = np.arange(cfg.num_envs)
    obs: list[Any] = []
    masks: list[Any] = []
    values: list[Any] = []
    started = time.perf_counter()
    with SearchTeacher(
        cfg.imitation_teacher, cfg.imitation_temperature, cfg.teacher_processes, args.address
    ) as teacher:
        for r in range(args.rollouts):
            for _ in range(cfg.num_steps):
                obs.append(table.vg.observe().copy())
                masks.append(table.vg.masks() > 0)
                choice, _, kept = teacher.valued(table.vg, games, rng)
                values.append(kept)
                table.step(choice)
            print(
                f"rollout {r + 1}/{args.rollouts}: {len(obs) * cfg.num_envs} positions, "
                f"{time.perf_counter() - started:.0f} s",
                flush=True,
            )
    buf = io.BytesIO()
    np.savez_compressed(buf, obs=np.stack(obs), masks=np.stack(masks), values=np.stack(values))
    write_output(args.out, buf.getvalue(), "OUT")
    print(f"saved {args.out}")


def fit(args: argparse.Namespace) -> None:
    """Fit the config's network to saved values; report its regrets; save it if asked."""
    import torch as th

    from agents.eval.regret import NEAR_END
    from agents.learned import write_checkpoint
    from agents.training.learner import Learner, soft_cross_entropy
    from agents.training.resume import seed_everything
    from agents.training.run import Run
    from agents.training.selfplay_config import load_yaml
    from agents.training.table import Pool, make_table
    from agents.training.teacher import soft_targets

    cfg = load_yaml(args.config)
    minibatch = cfg.num_envs * cfg.num_steps // cfg.num_minibatches  # the warm start's
    device = cfg.device if args.device is None else args.device
    cfg = dataclasses.replace(cfg, num_envs=2, name="offline_fit", device=device)
    seed_everything(cfg)
    th.set_num_threads(cfg.torch_threads)
    run = Run(cfg, Path("runs"))
    pool = Pool(cfg, run.spec())
    table = make_table(cfg, pool)
    learners = [Learner(cfg, run, pool, table) for _ in range(args.ensemble)]
    enc = table.encoding
    scores = enc.block_range("scores")[0]
    files = [args.arrays[p] for p in args.data]
    judged = [args.arrays[p] for p in args.judge]
    for path, f in zip([*args.data, *args.judge], [*files, *judged], strict=True):
        if f["obs"].shape[-1] != enc.obs_size:
            print(
                f"offline_fit.py: error: {path} holds another config's observations",
                file=sys.stderr,
            )
            sys.exit(2)
    keys = ("obs", "masks", "values")
    data = {k: np.concatenate([f[k] for f in files], axis=1) for k in keys}
    held = np.arange(data["obs"].shape[1]) % 5 == 0

    on = learners[0].device

    def part(games: Any, data: dict[str, Any] = data) -> dict[str, Any]:
        """The positions of ``games``, as the fit reads them, on the fit's device (one copy
        each)."""
        out = {k: th.from_numpy(v[:, games].reshape(-1, *v.shape[2:])) for k, v in data.items()}
        out["legal"] = ~th.isnan(out["values"])
        targets = np.zeros(out["values"].shape, np.float32)  # the teacher's, as in the run
        values, legal, temperature = (
            out["values"].numpy(),
            out["legal"].numpy(),
            cfg.imitation_temperature,
        )
        for row, ok in enumerate(legal):
            targets[row, ok] = soft_targets(values[row, ok], temperature)
        out["targets"] = th.from_numpy(targets)
        out["values"] = th.nan_to_num(out["values"])
        out["masks"] = out["masks"].bool()
        return {k: v.to(on) for k, v in out.items()}

    train_games = np.flatnonzero(~held)
    train_games = train_games[: max(1, round(args.fraction * len(train_games)))]
    training, heldout = part(train_games), part(held)

    def loss_of(net: Any, s: dict[str, Any], idx: Any) -> Any:
        legal, v = s["legal"][idx], s["values"][idx]
        logp = th.log_softmax(net.logits(s["obs"][idx], s["masks"][idx]), dim=1)
        loss = soft_cross_entropy(logp, s["targets"][idx])
        if args.loss == "regret":
            best = th.where(legal, v, -1e30).max(dim=1, keepdim=True).values
            loss = loss + (logp.exp() * th.where(legal, best - v, 0.0)).sum(dim=1).mean() / 10
        return loss

    def report(s: dict[str, Any], nets: list[Any]) -> str:
        with th.no_grad():
            pick = th.cat(
                [
                    th.stack(
                        [
                            th.log_softmax(
                                n.logits(s["obs"][i : i + 8192], s["masks"][i : i + 8192]), 1
                            )
                            for n in nets
                        ]
                    )
                    .sum(dim=0)
                    .argmax(dim=1)
                    for i in range(0, len(s["obs"]), 8192)
                ]
            )
        v = th.where(s["legal"], s["values"], -th.inf)
        regret = v.max(dim=1).values - v.gather(1, pick[:, None]).squeeze(1)
        near = s["obs"][:, scores : scores + enc.num_sides].max(dim=1).values >= NEAR_END
        head = (
            f"regret {regret.mean():.2f}, picks the best {100 * (regret <= 0).float().mean():.1f}%"
            ", regret at a side's ¾ "
        )
        if not bool(near.any()):
            return head + "— (no position)"
        big = near & (regret >= BIG)  # the decisions that decide matches
        share = float(regret[big].sum() / regret[near].sum().clamp_min(1e-9))
        return head + (
            f"{regret[near].mean():.2f} ({int(near.sum())} positions; {int(big.sum())} of them "
            f"give away {BIG:g} points or more and hold {100 * share:.0f}% of it)"
        )

    size = len(training["obs"])
    print(f"{size} training positions, {len(heldout['obs'])} held out", flush=True)
    started = time.perf_counter()
    nets = []
    for k, learner in enumerate(learners):
        net = learner.net
        if args.weight_decay:
            learner.optimizer = th.optim.AdamW(
                net.parameters(), lr=cfg.learning_rate, eps=1e-5, weight_decay=args.weight_decay
            )
        for epoch in range(args.epochs):
            learner.optimizer.param_groups[0]["lr"] = cfg.learning_rate * (1 - epoch / args.epochs)
            order = th.randperm(size).to(on)  # drawn on the CPU, on any device
            for start in range(0, size, minibatch):
                learner.descend(loss_of(net, training, order[start : start + minibatch]))
        nets.append(net)
        print(f"network {k + 1} fitted, {time.perf_counter() - started:.0f} s", flush=True)
        if args.ensemble > 1:
            print(f"  alone, held out: {report(heldout, [net])}", flush=True)
            if len(nets) > 1:
                print(f"  the first {len(nets)}, held out: {report(heldout, nets)}", flush=True)
    print(f"training: {report(training, nets)}")
    print(f"held out: {report(heldout, nets)}")
    for path, f in zip(args.judge, judged, strict=True):
        games = np.arange(f["obs"].shape[1]) % 5 == 0
        print(f"held out of {path}: {report(part(games, {k: f[k] for k in keys}), nets)}")
    if args.out:
        try:
            write_checkpoint(args.out, run.spec(), nets[0].to_numpy())
        except OSError as e:
            print(f"offline_fit.py: error: --out {args.out}: cannot write: {e.strerror or e}",
                  file=sys.stderr)  # fmt: skip
            sys.exit(2)
        print(f"wrote {args.out}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="save a teacher's values of the positions it meets")
    c.add_argument("out", type=Path, help="the values to write (.npz)")
    c.add_argument("--rollouts", type=int, default=10)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument(
        "--address",
        help="HOST:PORT of a Ray cluster's head whose CPUs value the positions (the same values)",
    )
    f = sub.add_parser("fit", help="fit the config's network to saved values")
    f.add_argument("data", nargs="+", type=Path)
    f.add_argument("--loss", choices=("values", "regret"), default="values")
    f.add_argument("--epochs", type=int, default=12)
    f.add_argument(
        "--fraction",
        type=float,
        default=1.0,
        help="train on this share of the training games (the first ones), for a learning curve "
        "in positions; the held-out games stay the same",
    )
    f.add_argument("--out", type=Path, help="write the (first) network as a checkpoint (.zip)")
    f.add_argument("--weight_decay", type=float, default=0.0, help="AdamW's decoupled weight decay")
    f.add_argument(
        "--device", help="fit on this device: auto, cpu, cuda or cuda:N (default: the config's)"
    )
    f.add_argument(
        "--ensemble",
        type=int,
        default=1,
        help="fit this many networks (other initial weights and orders) and report the "
        "regret of their mean log-policy",
    )
    f.add_argument(
        "--judge",
        nargs="+",
        type=Path,
        default=[],
        help="also report on the held-out games (every fifth) of these files",
    )
    for q in (c, f):
        q.add_argument("--config", type=Path, default=ROOT / "configs" / "strong.yaml")
        q.add_argument("--force", action="store_true", help="replace an output file that exists")
    args = p.parse_args()
    from agents.errors import AgentError
    from agents.files import check_output
    from agents.training.config import ConfigError
    from agents.training.selfplay_config import load_yaml

    try:
        load_yaml(args.config).check()
    except ConfigError as e:
        p.error(f"--config: {e}")
    if args.command == "collect":
        from agents.registry import value_agent

        if args.rollouts < 1:
            p.error(f"--rollouts must be at least 1, not {args.rollouts}")
        try:
            value_agent(load_yaml(args.config).imitation_teacher)
        except ValueError as e:
            p.error(f"--config's imitation_teacher: {e}")
        try:
            check_output(args.out, "OUT", force=args.force, suffixes=(".npz",))
        except AgentError as e:
            p.error(str(e))
        if args.address is not None:
            from agents.training.cluster import check_address, require_ray

            try:
                require_ray("--address")
                check_address(args.address)
            except ConfigError as e:
                p.error(str(e))
        collect(args)
        return
    if args.epochs < 1:
        p.error(f"--epochs must be at least 1, not {args.epochs}")
    if args.ensemble < 1:
        p.error(f"--ensemble must be at least 1, not {args.ensemble}")
    if not args.weight_decay >= 0:
        p.error(f"--weight_decay must be 0 or more, not {args.weight_decay}")
    if not 0 < args.fraction <= 1:
        p.error(f"--fraction must be above 0 and at most 1, not {args.fraction}")
    if args.device is not None:
        from agents.training.device import resolve_device

        try:
            resolve_device(args.device, "--device")
        except ConfigError as e:
            p.error(str(e))
    try:
        if args.out is not None:
            check_output(args.out, "--out", force=args.force, suffixes=(".zip",))
        args.arrays = {d: read_values(d) for d in [*args.data, *args.judge]}
    except (AgentError, ValueError) as e:
        p.error(str(e))
    fit(args)


def read_values(path: Path) -> dict[str, Any]:
    """The arrays of a file ``collect`` wrote, read whole and checked: ``obs`` (steps, games,
    obs), ``masks`` and ``values`` (steps, games, actions).

    Raises:
        ValueError: ``cannot read PATH: ...`` for a missing, truncated or damaged file, or one
            that ``collect`` did not write.
    """
    import zipfile

    try:
        if not zipfile.is_zipfile(path):
            raise ValueError("not an .npz")
        with np.load(path) as z:
            if not {"obs", "masks", "values"} <= set(z.files):
                raise ValueError("not a file collect wrote")
            arrays = {k: z[k] for k in ("obs", "masks", "values")}
    except (OSError, EOFError, ValueError, zipfile.BadZipFile) as e:
        raise ValueError(f"cannot read {path}: {e}") from None
    obs, masks, values = arrays["obs"], arrays["masks"], arrays["values"]
    if obs.ndim != 3 or masks.shape != values.shape or masks.shape[:2] != obs.shape[:2]:
        raise ValueError(f"cannot read {path}: its arrays' shapes do not fit together")
    return arrays


if __name__ == "__main__":
    main()
