"""The referee: plays one match between bot processes, enforcing time and handling faults.

The rules engine says whose turn it is and what that seat may see; the referee sends
the seat's bot a ``decide`` request, waits for its reply against the clock, validates
it strictly, and applies it.  A bot that crashes, hangs, sends garbage, answers the
wrong request or plays an illegal action commits a *fault*: by default it forfeits the
match (killed, placed last, the others play on); the ``substitute`` policy plays a
random legal action for it instead and disqualifies it after ``strikes`` faults.

One job per module, each importing only those before it:

* :mod:`~arena.referee.records`: what a match is played under and leaves behind (the
  time control, the fault policy, faults, timings, the match result);
* :mod:`~arena.referee.channel`: line framing over a bot's pipes, with deadlines;
* :mod:`~arena.referee.session`: a live bot (:class:`Bot`): hello, requests, its
  stderr, its clock, freezing it between its turns, bye;
* :mod:`~arena.referee.launch`: launching a table's bots through the sandbox
  (:func:`open_bots`);
* :mod:`~arena.referee.news`: what each seat has not yet been told, encoded once and
  batched;
* :mod:`~arena.referee.match`: the match loop (:func:`play_match`), one record per seat;
  stopping a match from outside (:class:`Abandon`).
"""

from __future__ import annotations

from arena.referee.launch import open_bots
from arena.referee.match import Abandon, play_match
from arena.referee.news import EVENT_BUDGET
from arena.referee.records import (
    BotFault,
    Clock,
    Fault,
    FaultKind,
    FaultPolicy,
    MatchResult,
    Penalty,
    PolicyMode,
    SeatTiming,
    TimeControl,
)
from arena.referee.session import STDERR_KEEP, Bot

__all__ = [
    "EVENT_BUDGET",
    "Abandon",
    "FaultKind",
    "Penalty",
    "PolicyMode",
    "STDERR_KEEP",
    "Bot",
    "BotFault",
    "Clock",
    "Fault",
    "FaultPolicy",
    "MatchResult",
    "SeatTiming",
    "TimeControl",
    "open_bots",
    "play_match",
]
