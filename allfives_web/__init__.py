"""The web app: play against agents, watch them play and replay records in the browser.

``allfives serve`` runs it (the ``[web]`` extra: FastAPI and uvicorn). :mod:`~allfives_web.app`
holds the routes, :mod:`~allfives_web.guard` what a request must be before a route sees it,
:mod:`~allfives_web.sessions` the live games, :mod:`~allfives_web.store` their bounds,
:mod:`~allfives_web.table` what a viewer is shown of a position, :mod:`~allfives_web.catalogue`
the agents on offer; the page itself is ``static/`` (HTML, CSS and JavaScript modules, no build
step; ``board.js`` lays the table out).
"""
