"""Games with a person, in the results database: their own tournament, ``play``.

A person's matches are stored like any match (seats, faults, the full log: ``arena show``
replays them) under the tournament :data:`PLAY`, so they never enter a ranking of bots
(every ranking is one tournament's).  The person is a version of the bot ``@NAME``:
``@`` is no bot name's first character, so a person never takes a bot's name, and its
manifest plays no variant, so no league or tournament draws it.  The bots are registered
as tournaments register their entrants: a bundled bot or a folder is copied into the
registry and played from that copy.

Deals come from the ``play`` tournament's own secret key (deal *n*: ``--deal n`` deals it
again), or from a public seed.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Final

from arena.botspec import BotManifest, manifest_for
from arena.cards import Seed
from arena.deals import deal_key, new_key
from arena.errors import ArenaError
from arena.referee import MatchResult
from arena.tournament.logs import compress_log
from arena.tournament.registry import find, install
from arena.tournament.store import MatchRecord, SeatRecord, Store, VersionRow

__all__ = ["PLAY", "Deal", "Meeting", "PlayError", "PlayedGame", "check_person", "history", "known_people",
           "person_version", "record", "the_deal", "versions_of"]

PLAY: Final = "play"
"""The tournament every game with a person is stored under."""
_PERSON: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")


class PlayError(ArenaError, ValueError):
    """A game with a person that cannot be played as asked."""


def check_person(name: str) -> str:
    """``name`` if it can name a person: letters, digits, ``_ . -``, at most 40."""
    if not _PERSON.fullmatch(name):
        raise PlayError(f"--name {name!r}: a person's name is letters, digits, '_', '.' or '-' (at most 40), "
                        "starting with a letter or digit")
    return name


def person_version(store: Store, name: str) -> VersionRow:
    """The version that stands for the person ``name`` (registered on first use)."""
    bot = f"@{name}"
    manifest: dict[str, object] = {"name": bot, "version": "person", "author": name,
                                   "description": "a person at the table", "variants": [], "module": None}
    return store.register(bot, hashlib.sha256(f"person\0{name}".encode()).hexdigest(), f"{name} (person)", None,
                          manifest)


def versions_of(store: Store, refs: Sequence[str], variant: str) -> list[tuple[VersionRow, BotManifest]]:
    """The bots named by ``refs``, registered as a tournament registers its entrants, each
    with the manifest that runs its registered copy."""
    chosen = []
    for ref in refs:
        found = find(store, ref)
        version = found if isinstance(found, VersionRow) else install(store, found)
        manifest = manifest_for(version.bot, version.path)
        if not manifest.plays(variant):
            raise PlayError(f"bot {ref} does not play {variant} (it plays: {', '.join(manifest.variants)})")
        chosen.append((version, manifest))
    return chosen


@dataclass(frozen=True)
class Deal:
    """Where a game's cards come from."""

    seed: Seed
    """What the rules engine deals from."""
    public: int
    """The public seed, as stored (0 for a deal of the key)."""
    number: int | None
    """The deal of the ``play`` key (None for a public seed)."""


def the_deal(store: Store, variant: str, players: int, seed: int | None, number: int | None) -> Deal:
    """A public ``seed``'s deal, else deal ``number`` of the ``play`` key (the next one if
    None; the key is made on first use)."""
    if seed is not None:
        return Deal(seed, seed, None)
    key = store.deal_key(PLAY)
    if key is None:
        key = new_key()
        store.save_deal_key(PLAY, key)
    number = store.next_seq(PLAY) if number is None else number
    return Deal(deal_key(key, variant, players, number), 0, number)


def record(store: Store, result: MatchResult, versions: Sequence[VersionRow], deal: Deal,
           sandbox: Sequence[str]) -> MatchRecord:
    """Store a game with a person (finished or abandoned) as the next match of ``play``.
    ``sandbox``: the layers its bots ran behind (the person's seat runs behind none)."""
    faults = [0] * len(versions)
    for fault in result.faults:
        faults[fault.seat] += 1
    outcome = result.outcome
    seats = tuple(SeatRecord(v.id, outcome.placements[s], outcome.scores[s], faults[s], t.decisions, t.total_s)
                  for s, (v, t) in enumerate(zip(versions, result.timings)))
    while True:  # another game may have taken the next number meanwhile
        seq = store.next_seq(PLAY)
        match = MatchRecord(
            id=f"{PLAY}-{seq}", tournament=PLAY, seq=seq, variant=result.variant, options=result.options,
            seed=deal.public, seats=seats, reason=outcome.reason, rounds=outcome.rounds, decisions=result.decisions,
            faults=[asdict(f) for f in result.faults], sandbox=list(sandbox), duration_s=result.duration_s,
            log=compress_log(result.log), deal=deal.number,
        )
        if store.record(match):
            return match


# -- a person's history ----------------------------------------------------------------------


@dataclass
class Meeting:
    """A person's record against one bot in one variant: placed better, the same, worse."""

    bot: str
    variant: str
    won: int = 0
    tied: int = 0
    lost: int = 0
    abandoned: int = 0

    @property
    def played(self) -> int:
        return self.won + self.tied + self.lost + self.abandoned


@dataclass(frozen=True)
class PlayedGame:
    """One of a person's games."""

    id: str
    finished: float
    variant: str
    opponents: tuple[str, ...]
    place: int
    players: int
    reason: str

    @property
    def abandoned(self) -> bool:
        return self.reason.startswith("abandoned")


def history(store: Store, name: str) -> tuple[list[Meeting], list[PlayedGame]]:
    """The person's record against each bot (by bot and variant) and their games, oldest first."""
    mine = {v.id for v in store.versions(f"@{name}", withdrawn=True)}
    bots: dict[int, str] = {}
    meetings: dict[tuple[str, str], Meeting] = {}
    games = []
    for match in store.matches(PLAY):
        seat = next((s for s in match.seats if s.version in mine), None)
        if seat is None:
            continue
        others = [s for s in match.seats if s is not seat]
        names = [bots.get(s.version) or bots.setdefault(s.version, store.version(s.version).bot) for s in others]
        game = PlayedGame(match.id, match.finished, match.variant, tuple(names), seat.placement, len(match.seats),
                          match.reason)
        games.append(game)
        for other, bot in zip(others, names):
            meeting = meetings.setdefault((bot, match.variant), Meeting(bot, match.variant))
            if game.abandoned:
                meeting.abandoned += 1
            elif seat.placement < other.placement:
                meeting.won += 1
            elif seat.placement == other.placement:
                meeting.tied += 1
            else:
                meeting.lost += 1
    return sorted(meetings.values(), key=lambda m: (m.bot, m.variant)), games


def known_people(store: Store) -> Iterable[str]:
    """The names of everyone who has played here."""
    return sorted({v.bot[1:] for v in store.versions(withdrawn=True) if v.bot.startswith("@")})
