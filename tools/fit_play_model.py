"""Fit the model of play that weighs search worlds (:mod:`agents.inference`) to players' choices.

    python tools/fit_play_model.py [--agents batchsearch:worlds=64] [--hands 300] [--seed 0]
        [--preset pagat] [--players 2]

Plays ``--hands`` seeded hands (every seat played by the listed agents in turn) and records every
placement chosen where more than one was legal, with the features (:data:`FEATURES`) of every
legal placement. Then fits ``θ`` of ``p(t, s) ∝ exp(θ · f(t, s))`` by maximum likelihood
(Newton's method on the conditional logit) and prints it, its standard errors, and the mean log
likelihood per choice of the fit, of the uniform model and of :data:`DEFAULT_MODEL`, on the
recorded choices and on as many held-out hands (the next seeds).
"""

from __future__ import annotations

import argparse
import random

import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]
Choice = tuple[F64, int]
"""The features of each legal placement (rows) and the index of the chosen one."""


def record(rules: object, specs: list[str], hands: int, seed: int) -> list[Choice]:
    """The placement choices with more than one option in ``hands`` seeded hands."""
    from agents.inference import placement_features
    from agents.registry import make_agent
    from allfives_env.core.actions import DRAW_ID, MAX_SLOTS
    from allfives_env.core.game import Game
    from allfives_env.core.rules import Rules

    assert isinstance(rules, Rules)
    agents = [make_agent(s) for s in specs]
    out: list[Choice] = []
    for h in range(hands):
        rng = random.Random(seed * 1_000_003 + h)
        game = Game(rules, random.Random(rng.randrange(2**31)))
        while game.current_player is not None:
            seat = game.current_player
            view = game.view(seat)
            agent = agents[(seat + h) % len(agents)]
            action = agent.act(view, rng)
            places = [a for a in view.legal_actions if a < DRAW_ID]
            if len(places) > 1 and action < DRAW_ID:
                feats = np.array(
                    [placement_features(rules, view.layout, a // MAX_SLOTS, a % MAX_SLOTS)
                     for a in places]
                )  # fmt: skip
                out.append((feats, places.index(action)))
            game.apply(action)
    return out


def log_likelihood(theta: F64, choices: list[Choice]) -> tuple[float, F64, F64]:
    """The summed log likelihood of ``choices`` under ``θ``, its gradient and Hessian."""
    ll = 0.0
    grad = np.zeros_like(theta)
    hess = np.zeros((theta.size, theta.size))
    for f, c in choices:
        z = f @ theta
        z -= z.max()
        p = np.exp(z)
        p /= p.sum()
        ll += float(np.log(p[c]))
        mean = p @ f
        grad += f[c] - mean
        d = f - mean
        hess -= (d * p[:, None]).T @ d
    return ll, grad, hess


def fit(choices: list[Choice], iterations: int = 30) -> tuple[F64, F64]:
    """``θ`` of maximum likelihood and its standard errors (Newton's method)."""
    theta = np.zeros(choices[0][0].shape[1])
    for _ in range(iterations):
        _, grad, hess = log_likelihood(theta, choices)
        step = np.linalg.solve(hess - 1e-6 * np.eye(theta.size), grad)
        theta -= step
        if np.abs(step).max() < 1e-8:
            break
    _, _, hess = log_likelihood(theta, choices)
    return theta, np.sqrt(np.diag(np.linalg.inv(-hess)))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--agents", nargs="+", default=["batchsearch:worlds=64"])
    p.add_argument("--hands", type=int, default=300)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--preset", default="pagat")
    p.add_argument("--players", type=int, default=2)
    args = p.parse_args()
    from agents.errors import AgentError
    from agents.inference import DEFAULT_MODEL, FEATURES
    from agents.registry import make_agent
    from allfives_env.core.errors import AllFivesError
    from allfives_env.core.rules import Rules

    try:
        rules = Rules.preset(args.preset, args.players)
        for spec in args.agents:
            make_agent(spec)
    except (AllFivesError, AgentError) as e:
        p.error(str(e))
    train = record(rules, args.agents, args.hands, args.seed)
    held = record(rules, args.agents, args.hands, args.seed + 1)
    theta, se = fit(train)
    print(f"{len(train)} choices to fit, {len(held)} held out ({rules.describe()})")
    for name, t, s in zip(FEATURES, theta, se, strict=True):
        print(f"  θ[{name}] = {t:.3f} ± {s:.3f}")
    print("mean log likelihood per choice (fit data, held out):")
    for label, th in (
        ("uniform", np.zeros_like(theta)),
        ("DEFAULT_MODEL", DEFAULT_MODEL.theta()),
        ("this fit", theta),
    ):
        a = log_likelihood(th, train)[0] / len(train)
        b = log_likelihood(th, held)[0] / len(held)
        print(f"  {label:14s} {a:.4f}  {b:.4f}")


if __name__ == "__main__":
    main()
