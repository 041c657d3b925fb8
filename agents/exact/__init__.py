"""Small sets solved exactly: the whole tree of one hand of a two-player game
(:mod:`agents.exact.tree`), exact best responses, NashConv and CFR+ over it
(:mod:`agents.exact.solver`), and policies that play as agents (:mod:`agents.exact.policy`)."""
