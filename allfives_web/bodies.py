"""Request bodies read as strict JSON, for every route at once.

FastAPI decodes a JSON body with Python's ``json``, which keeps the last value of a key given
twice (``{"seat": 0, "seat": 1}`` reads as ``{"seat": 1}``) and takes ``NaN`` and
``Infinity``. The app's routes are :class:`StrictJSONRoute`, whose requests decode their body
with :func:`allfives_env.core.strict_json.loads`, the decoder behind every JSON the project
reads back (records, the upload of one included): such a body is refused with a JSON 422
that names what is wrong (``the body is not valid JSON: duplicate key 'seat'``) before the
route runs, so nothing changes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException

from allfives_env.core import strict_json


class StrictJSONRequest(Request):
    """A request whose :meth:`json` is strict (see the module docstring)."""

    async def json(self) -> Any:
        """The body as strict JSON.

        Raises:
            json.JSONDecodeError: for text that is not JSON (FastAPI answers its own 422).
            HTTPException: (422) for a key given twice in an object, ``NaN`` or
                ``Infinity``, a number too long or nesting too deep to read, or a body that is
                not UTF-8 text, naming it.
        """
        if not hasattr(self, "_json"):
            body = await self.body()
            try:
                self._json = strict_json.loads(body)
            except json.JSONDecodeError:
                raise
            except ValueError as e:  # what plain json would not refuse (bad UTF-8 too)
                raise HTTPException(422, f"the body is not valid JSON: {e}") from None
        return self._json


class StrictJSONRoute(APIRoute):
    """A route whose handler gets a :class:`StrictJSONRequest`."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """FastAPI's handler, given the request as a :class:`StrictJSONRequest`."""
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            return await handler(StrictJSONRequest(request.scope, request.receive))

        return strict
