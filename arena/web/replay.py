"""A stored match as steps for the replay viewer: every event of its log, and what each
seat could see after it.

The log holds every event with its private parts (who was dealt what, who drew what), but
not what a seat's whole view was at each moment: the discard pile's top, the widow, the
trick on the table, everyone's lives.  Those come from the rules engine: the match is
dealt again (from the tournament's secret key and the match's deal, or its public seed)
and its logged actions and forfeits are applied in order, asking every seat's
observation function after each one, exactly what a bot was shown.  The engine's log must
come out equal to the stored one; if it does not (a match stored by an arena whose rules
have changed since, or a tournament whose key is gone), the viewer shows the log alone.

Observations are sent as changes from the same seat's previous step, which keeps a Skat
match of ten deals well under a megabyte.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

import msgspec

from arena.rules import RulesError, get_variant
from arena.rules.game import Action, Event, next_move
from arena.tournament.logs import decompress_log, log_text, stored_text
from arena.tournament.store import MatchRecord, Store

__all__ = ["REMOVED", "replay_steps", "seat_keyed"]

REMOVED: Final = "-"
"""Key of an observation change that lists the keys a step removed."""
SEATS: Final = "$seats"
"""A JSON object keyed by seat numbers, sent as ``{"$seats": [[key, value], ...]}``:
browsers order an object's integer-like keys numerically, and the log's order (who was
dealt first) is part of what the viewer shows."""


def replay_steps(store: Store, match: MatchRecord) -> dict[str, Any]:
    """The match's log as viewer steps: ``{"steps": [{"e": event, "o": [change per seat]
    | None}], "observed": bool, "note": why not observed}``."""
    events = decompress_log(match.log)
    observations, note = _observations(store, match, events)
    steps = [{"e": seat_keyed(event), "o": None if observations is None else observations[i]}
             for i, event in enumerate(events)]
    return {"steps": steps, "observed": observations is not None, "note": note}


def seat_keyed(value: Any) -> Any:
    """``value`` as it reads back from JSON (:func:`_normal`), with every object keyed by
    seat numbers turned into ordered pairs (:data:`SEATS`)."""
    if isinstance(value, dict):
        items = [(k if isinstance(k, str) else json.dumps(k), v) for k, v in value.items()]
        if items and all(k.isdigit() for k, _ in items):
            return {SEATS: [[k, v if v.__class__ in _LEAVES else seat_keyed(v)] for k, v in items]}
        return {k: v if v.__class__ in _LEAVES else seat_keyed(v) for k, v in items}
    if isinstance(value, list | tuple):
        return [v if v.__class__ in _LEAVES else seat_keyed(v) for v in value]
    return value


_LEAVES: Final = frozenset({str, int, float, bool, type(None)})
"""Values that read back from JSON as they are (a replay has a million of them)."""


def _observations(store: Store, match: MatchRecord,
                  events: Sequence[dict[str, Any]]) -> tuple[list[list[dict[str, Any]]] | None, str | None]:
    """Per event, each seat's observation change; ``None`` and the reason when the engine
    cannot play the match again as it was stored."""
    seed = store.match_seed(match)
    if seed is None:
        return None, "the tournament's deal key is not in this database: the log alone is shown"
    try:
        state = get_variant(match.variant).new_match(len(match.seats), seed=seed, options=match.options)
        before = [state.observe(s) for s in range(state.players)]
        views = _batch(state.log, 0, before, before)
        while len(state.log) < len(events):
            done = len(state.log)
            event = next_move(events, done)
            if event.get("event") == "action":
                state.apply(Action.parse(_played(event)))
            elif event.get("event") == "forfeit":
                state.forfeit(int(event["seat"]))
            else:
                break  # the engine would have logged this itself: the logs differ
            if len(state.log) == done:
                break  # a forfeit the engine ignores: the logs differ
            after = [state.observe(s) for s in range(state.players)]
            views += _batch(state.log, done, before, after)
            before = after
    except (RulesError, KeyError, ValueError, TypeError):
        return None, "the rules engine cannot play this match again (it may be from another arena version)"
    played = [e.full() for e in state.log]
    if not _same_text(played, match.log) and _normal(played) != events:
        return None, "the rules engine deals or plays this match differently now: the log alone is shown"
    seen = _Seen(len(match.seats))
    return [seen.changes(view) for view in views], None


def _played(event: Mapping[str, Any]) -> str:
    """The action a seat played: its own private text where the others saw less (a Skat
    discard is logged as ``discard`` and, for the declarer alone, with its two cards)."""
    own = event.get("private", {}).get(str(event.get("seat")), {})
    return str(own.get("action", event["action"]))


def _batch(log: Sequence[Event], start: int, before: list[dict[str, Any]],
           after: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The views to show with each event one action added to the log (from ``start``).

    An action that ends a round also deals the next: the engine's state after it belongs
    to the new round, so the events up to the round's end show the state before the
    action (its cards still in hand), and the round's result shows the hands it revealed.
    Likewise a card that completes a trick: the trick event shows the finished trick."""
    kinds = [e.kind for e in log[start:]]
    if "round_end" in kinds:
        cut = kinds.index("round_end") + 1
    elif "trick" in kinds:
        cut = kinds.index("trick")
    else:
        cut = 0
    return [before if k < cut else after for k in range(len(kinds))]


class _Seen:
    """Each seat's observation as last sent, to send only what changed.  A field that is a
    single value (a number, a string) is kept as it is; any other as its JSON text (a tuple
    reads as the list it becomes), which costs a report far less than a copy of every view
    in Python objects.  Values equal in Python but written differently (1 and 1.0, True and
    1, dicts in another key order) count as changed: sent again, never lost."""

    def __init__(self, players: int) -> None:
        self._last: list[dict[str, Any]] = [{} for _ in range(players)]
        self._views: list[dict[str, Any]] | None = None

    def changes(self, views: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if views is self._views:  # the events of one action mostly share its views: nothing changed
            return [{} for _ in views]
        self._views = views
        out = []
        for seat, view in enumerate(views):
            last = self._last[seat]
            now: dict[str, Any] = {}
            change: dict[str, Any] = {}
            for k, v in view.items():
                key = k if isinstance(k, str) else json.dumps(k)
                if v.__class__ in _LEAVES:  # most fields: compared as they are, no encoding
                    now[key] = v
                    old = last.get(key, _UNSEEN)
                    if old.__class__ is not v.__class__ or old != v:
                        change[key] = v
                    continue
                try:
                    now[key] = text = _MSGSPEC(v)
                except (TypeError, ValueError):  # msgspec declines objects keyed by booleans or None,
                    now[key] = text = json.dumps(v).encode()  # and lone surrogates
                if last.get(key) != text:
                    change[key] = seat_keyed(v)
            gone = [k for k in last if k not in now]
            if gone:
                change[REMOVED] = gone
            out.append(change)
            self._last[seat] = now
        return out


_MSGSPEC: Final = msgspec.json.Encoder().encode
_UNSEEN: Final = object()
"""A field a seat's last view did not have."""


def _same_text(played: list[dict[str, Any]], stored: bytes) -> bool:
    """Whether the log played again is stored as ``stored`` byte for byte: the usual case,
    checked without a walk.  A log stored by another encoder is compared as values."""
    try:
        return log_text(played) == stored_text(stored)
    except (TypeError, ValueError):  # what msgspec cannot write was not stored by it
        return False


def _normal(value: Any) -> Any:
    """``value`` as it reads back from JSON: tuples become lists, keys strings (a walk,
    not a round trip through JSON text, which cost a report most of a match page)."""
    if isinstance(value, dict):
        return {k if isinstance(k, str) else json.dumps(k): _normal(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_normal(v) for v in value]
    return value
