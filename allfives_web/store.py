"""The live games of a server, by id, with their bounds: at most ``max_games`` in all and
``per_client`` of one client (its next closes its least recently used); one idle
``idle_seconds`` expires. Each session carries its own lock.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from allfives_web.sessions import Full, NotFound, Session


class SessionStore:
    """The live sessions, by id: at most ``max_games`` in all and ``per_client`` of one client;
    one idle ``idle_seconds`` expires."""

    def __init__(
        self,
        max_games: int = 32,
        idle_seconds: float = 1800.0,
        clock: Callable[[], float] = time.monotonic,
        per_client: int = 8,
    ):
        self.max_games = max_games
        self.idle_seconds = idle_seconds
        self.clock = clock
        self.per_client = per_client
        self.sessions: dict[str, Session] = {}
        self.lock = threading.Lock()

    def expire(self) -> None:
        """Drop every session idle for longer than ``idle_seconds``."""
        now = self.clock()
        with self.lock:
            for sid in [k for k, s in self.sessions.items() if now - s.touched > self.idle_seconds]:
                del self.sessions[sid]

    def _room(self, client: str, close: bool) -> None:
        """Under the lock: check that a new game of ``client`` fits, closing (``close``) its
        least recently used games beyond its share.

        Raises:
            Full: when ``max_games`` sessions are live and none is ``client``'s to close.
        """
        mine = sorted(
            (s for s in self.sessions.values() if s.client == client), key=lambda s: s.touched
        )
        if not mine and len(self.sessions) >= self.max_games:
            raise Full(
                f"the server holds {self.max_games} live games, its limit; wait "
                f"{self.idle_seconds / 60:g} minutes for idle ones to expire"
            )
        while (
            close
            and mine
            and (len(mine) >= self.per_client or len(self.sessions) >= self.max_games)
        ):
            del self.sessions[mine.pop(0).id]

    def add(self, make: Callable[[], Session], client: str = "") -> Session:
        """Make a session for ``client`` and keep it.

        A client holds at most ``per_client`` games: its new one closes its least recently
        used (a client cannot lock itself out, nor take every game from the others).

        Raises:
            Full: when ``max_games`` sessions of other clients are live (nothing is made).
        """
        self.expire()
        with self.lock:
            self._room(client, close=False)  # a request refused while making closes nothing
        session = make()
        session.client = client
        session.touched = self.clock()
        with self.lock:
            self._room(client, close=True)
            self.sessions[session.id] = session
        return session

    def get(self, sid: str) -> Session:
        """The live session ``sid``, marked as used now.

        Raises:
            NotFound: for an unknown or expired id.
        """
        self.expire()
        with self.lock:
            session = self.sessions.get(sid)
        if session is None:
            raise NotFound("no such game (it may have expired)")
        session.touched = self.clock()
        return session

    def remove(self, sid: str) -> None:
        """Close session ``sid``.

        Raises:
            NotFound: for an unknown or expired id.
        """
        with self.lock:
            if self.sessions.pop(sid, None) is None:
                raise NotFound("no such game (it may have expired)")
