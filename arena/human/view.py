"""What the person sees: at each decision (:class:`Decision`) and at the end (:class:`Ending`).

Plain data built from the seat's observation, its legal actions and the narration, the
same for every front: the terminal renders it as text (:mod:`arena.human.render`), a web
page can send :meth:`Decision.to_dict` as JSON.  Observation fields are those of
docs/PROTOCOL.md, "Cards, observations and actions", read by name: a field a family does
not have is simply not shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Final

from arena.cards import parse_cards
from arena.human.narrate import cards_text, worth
from arena.human.table import Table
from arena.rules.hands import format_value
from arena.rules.skat_values import BASE, NULL_VALUES, matadors

__all__ = ["Decision", "Ending", "Place", "SeatLine", "decision_view", "ending_view", "sorted_hand"]

Observation = Mapping[str, Any]


@dataclass(frozen=True)
class SeatLine:
    """One seat at the table: its screen name, who plays it, its standing and what marks it."""

    seat: int
    name: str
    player: str
    standing: str
    """Lives, points, chips, hands won or score, as the variant keeps them; ``out`` once out."""
    notes: tuple[str, ...]
    """``deals``, ``knocked``, ``declarer``, ``to move`` ..."""


@dataclass(frozen=True)
class Decision:
    """The person's screen when it is their turn."""

    title: str
    seats: tuple[SeatLine, ...]
    news: tuple[str, ...]
    """What happened since the person's last decision (:func:`arena.human.narrate.narrate`)."""
    table: tuple[tuple[str, str], ...]
    """What lies face up or is public, as (what, cards or words): the discard pile, the widow,
    the trick being played ..."""
    hand: tuple[str, ...]
    hand_note: str
    """What the hand is worth, or what must be kept."""
    prompt: str
    """What is asked, in words."""
    legal: tuple[str, ...]
    """The legal actions, in the protocol's text form: choice ``n`` is ``legal[n - 1]``."""
    move: int
    """The person's decisions so far in this match, this one included."""
    time_left_ms: int | None
    """How long the person has to answer; None when the clock is unlimited."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (for a web page)."""
        return asdict(self)


@dataclass(frozen=True)
class Place:
    """One seat's result."""

    place: int
    name: str
    player: str
    score: str


@dataclass(frozen=True)
class Ending:
    """The person's screen when the match is over."""

    title: str
    news: tuple[str, ...]
    """The last events: the final showdown and the match's end."""
    places: tuple[Place, ...]
    """Every seat, best place first."""
    reason: str
    abandoned: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (for a web page)."""
        return asdict(self)


UNLIMITED_MS: Final = 24 * 3600 * 1000
"""Clocks this long or longer are not shown: the person has all the time they want."""


def decision_view(table: Table, observation: Observation, legal: Sequence[str], news: Sequence[str], move: int,
                  time_left_ms: int | None = None) -> Decision:
    """The screen of a decision: ``observation`` and ``legal`` as the referee sent them."""
    hand = sorted_hand(table, observation.get("hand") or [])
    clock = time_left_ms if time_left_ms is not None and time_left_ms < UNLIMITED_MS else None
    return Decision(
        title=f"{table.variant} · round {observation.get('round', '?')} · your move {move}",
        seats=_seats(table, observation),
        news=tuple(news),
        table=tuple(_table_lines(table, observation)),
        hand=tuple(hand),
        hand_note=_hand_note(table, observation),
        prompt=_prompt(table, observation),
        legal=tuple(legal),
        move=move,
        time_left_ms=clock,
    )


def ending_view(table: Table, outcome: Mapping[str, Any], news: Sequence[str]) -> Ending:
    """The screen at the end: ``outcome`` as ``match_end`` carries it."""
    placements = list(outcome.get("placements") or [])
    scores = list(outcome.get("scores") or [])
    reason = str(outcome.get("reason", "?"))
    places = sorted(
        (Place(placements[s], table.name(s), table.who[s], format_value(float(scores[s])) if s < len(scores) else "")
         for s in range(min(len(placements), table.players))),
        key=lambda p: (p.place, p.name != "You", p.name),
    )
    abandoned = reason.startswith("abandoned")
    return Ending(f"{table.variant} · the match is {'abandoned' if abandoned else 'over'}", tuple(news),
                  tuple(places), reason, abandoned)


# -- the seats -----------------------------------------------------------------------------


def _standing(table: Table, observation: Observation, seat: int) -> str:
    active = observation.get("active") or []
    if seat < len(active) and not active[seat]:
        return "out"
    parts = []
    lives = observation.get("lives")
    if lives is not None:
        count = lives[seat]
        text = "1 life" if count == 1 else f"{count} lives"
        if count == 0:
            text += " (swimming)" if table.family == "widow" else " (free ride)"
        parts.append(text)
    for key, noun in (("points", "point"), ("chips", "chip")):
        if observation.get(key) is not None:
            count = observation[key][seat]
            parts.append(f"{count} {noun}" if count == 1 else f"{count} {noun}s")
    if observation.get("hands_won") is not None:
        parts.append(f"{observation['hands_won'][seat]} won")
    if observation.get("wins") is not None:
        parts.append(f"{observation['wins'][seat]} won, {observation['losses'][seat]} lost")
    if observation.get("totals") is not None:
        parts.append(f"total {observation['totals'][seat]}")
    if observation.get("scores") is not None:
        parts.append(f"score {observation['scores'][seat]}")
    return ", ".join(parts)


_ROLES: Final = (("knocker", "knocked"), ("stopper", "stopped"), ("caller", "knocked"), ("declarer", "declarer"),
                 ("forehand", "forehand"), ("middlehand", "middlehand"), ("rearhand", "rearhand"),
                 ("first", "plays first"))


def _seats(table: Table, observation: Observation) -> tuple[SeatLine, ...]:
    lines = []
    tricks = observation.get("tricks_won")
    for seat in range(table.players):
        notes = []
        if observation.get("dealer") == seat:
            notes.append("deals")
        for key, note in _ROLES:
            if observation.get(key) == seat and not (key == "first" and table.family != "empat-satu"):
                notes.append(note)
        if seat in (observation.get("challengers") or []):
            notes.append("challenged")
        if table.family == "skat" and table.players == 4 and seat not in (
                observation.get("forehand"), observation.get("middlehand"), observation.get("rearhand")):
            notes.append("sits out")
        if tricks and observation.get("phase") == "play":
            notes.append("1 trick" if tricks[seat] == 1 else f"{tricks[seat]} tricks")
        if observation.get("to_move") == seat:
            notes.append("to move")
        lines.append(SeatLine(seat, table.name(seat), table.who[seat], _standing(table, observation, seat),
                              tuple(notes)))
    return tuple(lines)


# -- what lies on the table ---------------------------------------------------------------


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _table_lines(table: Table, obs: Observation) -> list[tuple[str, str]]:
    lines: list[tuple[str, str]] = []
    if "discard_size" in obs:
        top = obs.get("discard_top")
        lines.append(("Discard pile", f"{top} on top ({_count(obs['discard_size'], 'card')})" if top else "empty"))
    widow = obs.get("widow")
    if isinstance(widow, list):
        if table.family == "thirty-one":  # banking: positions matter for exchanges
            lines.append(("Widow", "   ".join(f"{i}: {cards_text([c])}" for i, c in enumerate(widow))))
        else:
            lines.append(("Widow", "face down" if all(c is None for c in widow) else cards_text(widow)))
    cards_on_table = obs.get("table")
    if isinstance(cards_on_table, list) and cards_on_table and isinstance(cards_on_table[0], list):
        for number, hand in enumerate(cards_on_table):  # Switch: positions matter for blind swaps
            lines.append((f"Table hand {number}", "   ".join(f"{i}: {cards_text([c])}" for i, c in enumerate(hand))))
    elif isinstance(cards_on_table, list):
        lines.append(("Table", cards_text(cards_on_table)))
    if "face_up" in obs:
        lines.append(("Face up", cards_text(obs["face_up"]) if obs["face_up"] else "none"))
    if obs.get("other_hand"):
        lines.append(("Your other hand", cards_text(obs["other_hand"])))
    if obs.get("pot") is not None:
        lines.append(("Pot", _count(obs["pot"], "chip")))
    if "stock" in obs:
        lines.append(("Stock", _count(obs["stock"], "card")))
    for key, what in (("cleared", "Cleared"), ("out_of_play", "Out of play"), ("passes", "Passes in a row")):
        if obs.get(key):
            lines.append((what, str(obs[key])))
    if table.family == "skat":
        lines += _skat_lines(table, obs)
    return lines


def _skat_lines(table: Table, obs: Observation) -> list[tuple[str, str]]:
    lines = []
    auction = obs.get("auction") or []
    if auction and obs.get("game") is None:
        calls = ", ".join(f"{table.name(c['seat'])} {c['call'].removeprefix('bid ')}" for c in auction)
        lines.append(("Auction", calls))
    if obs.get("bid"):
        lines.append(("Bid", str(obs["bid"])))
    declarer, game = obs.get("declarer"), obs.get("game")
    if game is not None:
        played = " ".join([game, *(obs.get("announced") or [])])
        who = f"{table.name(declarer)} play{'' if declarer == table.seat else 's'} " if isinstance(declarer, int) \
            else ""
        kontra = {1: ", kontra", 2: ", kontra and re"}.get(obs.get("kontra") or 0, "")
        lines.append(("Game", f"{who}{played}{kontra}"))
    if obs.get("phase") == "declare" and declarer == table.seat:
        lines.append(("Game values", _game_values(obs)))
    if obs.get("picked_up"):
        lines.append(("You found in the skat", cards_text(obs["picked_up"])))
    if obs.get("skat"):
        lines.append(("You put back", cards_text(obs["skat"])))
    if obs.get("ouvert_hand"):
        lines.append(("Declarer's open hand", cards_text(obs["ouvert_hand"])))
    tricks = obs.get("tricks") or []
    if tricks:
        last = tricks[-1]
        cards = " ".join(c["card"] for c in last["cards"])
        lines.append(("Last trick", f"{cards}, won by {table.mention(last['winner'])}"))
    if obs.get("phase") == "play":
        trick = obs.get("trick") or []
        lines.append(("Trick", ", ".join(f"{table.name(c['seat'])} {c['card']}" for c in trick) or "you lead"))
    return lines


def _game_values(obs: Observation) -> str:
    """What each game is worth with the declarer's cards, against the bid: a game worth less
    than the bid is lost (overbid), and the declare screen did not say what each was worth."""
    skat = obs.get("skat") or []
    hand = not obs.get("picked_up")  # the skat left alone: a hand game, one level more
    cards = parse_cards([*obs.get("hand", []), *skat])
    values = {game: BASE[game] * (abs(matadors(cards, game)) + 1 + hand)
              for game in ("clubs", "spades", "hearts", "diamonds", "grand")}
    values["null"] = NULL_VALUES[hand, False]
    bid = int(obs.get("bid") or 0)
    under = [game for game, value in values.items() if value < bid]
    notes = ([f"under your bid of {bid}: {', '.join(under)}"] if under else []) + [
        "hand counted, the unseen skat not; schneider, schwarz and announcing them add a level each" if hand
        else "schneider and schwarz add a level each"]
    return f"{', '.join(f'{game} {value}' for game, value in values.items())} ({'; '.join(notes)})"


# -- the hand and the question -------------------------------------------------------------

_SKAT_SUITS: Final = "cshd"
_RANKS: Final = "23456789TJQKA"
_SKAT_RANKS: Final = "789QKTA"


def sorted_hand(table: Table, hand: Sequence[str]) -> list[str]:
    """The hand as a player holds it: by suit, high cards first; in Skat the jacks first,
    then clubs, spades, hearts, diamonds, each ace, ten, king ... as they rank there."""
    if table.family == "skat":
        def skat_key(card: str) -> tuple[int, int]:
            if card[0] == "J":
                return 0, _SKAT_SUITS.index(card[1])
            return 1 + _SKAT_SUITS.index(card[1]), -_SKAT_RANKS.index(card[0])
        return sorted(hand, key=skat_key)
    return sorted(hand, key=lambda card: ("cdhs".index(card[1]), -_RANKS.index(card[0])))


def _hand_note(table: Table, obs: Observation) -> str:
    if obs.get("must_keep"):
        return f"you must keep {obs['must_keep']}, which you took"
    hand = obs.get("hand") or []
    if not hand or table.family == "skat":
        return ""
    value = worth(table, hand)
    return f"worth {value}" if value else ""


def _name_of(table: Table, seat: Any) -> str:
    return table.name(seat) if isinstance(seat, int) else "someone"


def _prompt(table: Table, obs: Observation) -> str:
    phase = obs.get("phase")
    family = table.family
    if phase == "turn":
        return "Your turn."
    if phase == "last_turn":
        ender = obs.get("stopper") if family == "fifty-one" else obs.get("knocker")
        verb = "stopped" if family == "fifty-one" else "knocked"
        return f"{_name_of(table, ender)} {verb}: this is your last turn."
    if phase == "discard":
        if family == "skat":
            return "Put two cards back in the skat."
        return "Discard a card" + (" face up." if family == "fifty-one-chinese" else ".")
    if phase == "choice":
        other = "your other hand" if table.options.get("table") == "switch" else "the widow, unseen"
        return f"You deal: keep your hand, or swap it for {other}."
    if phase == "bid":
        return f"Bid more than {obs['bid']}, or pass." if obs.get("bid") else "Bid, or pass."
    if phase == "answer":
        auction = obs.get("auction") or []
        bidder = _name_of(table, auction[-1]["seat"]) if auction else "someone"
        return f"{bidder} bids {obs.get('bid')}: hold, or pass."
    if phase == "play":
        return "Play a card: you lead." if not obs.get("trick") else "Play a card (follow suit if you can)."
    return _PROMPTS.get(str(phase), f"Your move ({phase}).").format(
        caller=_name_of(table, obs.get("caller")), bid=obs.get("bid"))


_PROMPTS: Final = {
    "renewed": "You renewed a table hand face down: now swap a card.",
    "must_swap": "You cleared the table: now swap a card.",
    "first_discard": "You draw first: discard one of your six cards face up.",
    "clear_count": "You hold a clear count (51 in one suit): knock to end the hand now, or pass to play on.",
    "challenge": "{caller} knocked: challenge, or pass.",
    "skat": "You won the auction at {bid}: pick up the skat, or play hand.",
    "declare": "Declare your game (your bid: {bid}).",
}
