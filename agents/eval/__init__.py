"""Evaluating agents: the one match loop (``match``), duplicate-deal evaluations and leagues
(``tournament``), statistics (``stats``) and reports (``report``)."""
