"""What happened at the table, in plain sentences for the person playing.

The events a seat is sent (docs/PROTOCOL.md, "Events") become lines such as "West drew
from the stock and discarded 7h." or "North knocked.": one sentence per player's turn
(consecutive actions of one seat are joined), the round's end as a showdown with every
hand shown, and the match's end.  Events are read as the person's seat received them,
so its own private parts (the card it drew, the skat it picked up) are told too.

Longer than most modules: one short function per kind of action and of round end, for
six rules families; kept together so that every sentence the person reads is in one file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

from arena.cards import parse_cards
from arena.errors import ArenaError
from arena.human.table import Table
from arena.rules import get_variant
from arena.rules.hands import format_value

__all__ = ["cards_text", "narrate", "worth"]

Event = Mapping[str, Any]


def cards_text(cards: Iterable[str | None]) -> str:
    """Cards as the screen shows them: ``??`` for a face-down card."""
    return " ".join("??" if c is None else c for c in cards) or "none"


def _and(parts: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def _names(table: Table, seats: Sequence[int], *, start: bool = True) -> str:
    """The seats' names as a list: "West and you"; the first capitalised at a sentence's start."""
    if not seats:
        return "Nobody" if start else "nobody"
    text = _and([table.mention(s) for s in seats])
    return text[0].upper() + text[1:] if start else text


def _plural(count: float, noun: str) -> str:
    number = format_value(float(count))
    return f"{number} {noun}" if abs(count) == 1 else f"{number} {noun}s"


# -- actions ----------------------------------------------------------------------------


def _draw(table: Table, words: list[str], e: Event) -> str:
    first = "put the five face-up cards out of play and " if e.get("out_of_play") else ""
    card = e.get("card")
    return f"{first}drew {card} from the stock" if card else f"{first}drew from the stock"


def _discard(table: Table, words: list[str], e: Event) -> str:
    if table.family == "skat":
        return f"put {cards_text(words)} back in the skat" if words else "put two cards back in the skat"
    if table.family == "fifty-one-chinese":
        return f"laid {words[0]} face up"
    return f"discarded {words[0]}"


def _exchange(table: Table, words: list[str], e: Event) -> str:
    split = words.index("for")
    given, places = words[:split], words[split + 1:]
    text = f"gave {cards_text(given)} for widow card{'s' if len(places) > 1 else ''} {_and(places)}"
    face_up = e.get("taken_face_up") or []
    if face_up:
        text += f", taking {cards_text(face_up)} face up"
    received = e.get("received")
    return f"{text}, and got {cards_text(received)}" if received else text


def _swap_hand(table: Table, words: list[str], e: Event) -> str:
    where = "the other hand" if table.options.get("table") == "switch" else "the widow"
    text = f"swapped the hand for {where}, unseen"
    hand = e.get("hand")
    return f"{text}, and got {cards_text(hand)}" if hand else text


def _ending(words: list[str]) -> str:
    """The knock or stop a swap may end with."""
    if words and words[-1] == "knock":
        return " and knocked"
    if words and words[-1] == "stop":
        return " and stopped"
    return ""


def _swap_one(table: Table, words: list[str], e: Event) -> str:
    return f"swapped {words[0]} for {words[1]}{_ending(words)}"


def _swap_all(table: Table, words: list[str], e: Event) -> str:
    where = f"table hand {words[0]}" if words and words[0].isdigit() else "the widow"
    text = f"swapped the whole hand for {where}"
    gave = e.get("gave")
    if gave:
        text += f", laying down {cards_text(gave)}"
    received = e.get("received")
    if received:
        text += f", and got {cards_text(received)}"
    return text + _ending(words)


def _swap_blind(table: Table, words: list[str], e: Event) -> str:
    text = f"swapped {words[0]} for the face-down card {words[2]} of table hand {words[1]}"
    received = e.get("received")
    return (f"{text}, which was {cards_text(received)}" if received else text) + _ending(words)


def _renew(table: Table, words: list[str], e: Event) -> str:
    if words[1] == "up":
        return f"renewed table hand {words[0]} face up: {cards_text(e.get('cards') or [])}"
    return f"renewed table hand {words[0]} face down"


def _clear(table: Table, words: list[str], e: Event) -> str:
    return f"cleared the table; the new table is {cards_text(e.get('table') or [])}"


def _pickup(table: Table, words: list[str], e: Event) -> str:
    skat = e.get("skat")
    return f"picked up the skat: {cards_text(skat)}" if skat else "picked up the skat"


def _declare(table: Table, words: list[str], e: Event) -> str:
    text = f"declared {' '.join(words)}"
    shown = e.get("ouvert_hand")
    return f"{text}, laying the hand open: {cards_text(shown)}" if shown else text


def _fixed(text: str) -> Callable[[Table, list[str], Event], str]:
    return lambda table, words, e: text


ACTIONS: Final[dict[str, Callable[[Table, list[str], Event], str]]] = {
    "draw": _draw,
    "take": lambda table, words, e: f"took {e.get('card', 'the top card')} from the discard pile",
    "discard": _discard,
    "knock": _fixed("knocked"),
    "stand": _fixed("stood, keeping the hand"),
    "exchange": _exchange,
    "keep": _fixed("kept the hand"),
    "swap_hand": _swap_hand,
    "swap_one": _swap_one,
    "swap_all": _swap_all,
    "swap_blind": _swap_blind,
    "renew": _renew,
    "pass": _fixed("passed"),
    "clear": _clear,
    "trade": lambda table, words, e: f"traded {cards_text(words)} for the face-up cards",
    "challenge": _fixed("challenged"),
    "stop": _fixed("stopped"),
    "bid": lambda table, words, e: f"bid {words[0]}",
    "hold": _fixed("held"),
    "pickup": _pickup,
    "hand": _fixed("chose to play hand (without the skat)"),
    "declare": _declare,
    "play": lambda table, words, e: f"played {words[0]}",
    "kontra": _fixed("said kontra"),
    "re": _fixed("said re"),
}
"""What each kind of action reads as, after the player's name: ``words`` are the action's
text after its kind."""


def _did(table: Table, event: Event) -> str:
    kind, *words = str(event.get("action", "?")).split()
    told = ACTIONS.get(kind)
    return told(table, words, event) if told else f"played {' '.join([kind, *words])}"


# -- the other events ----------------------------------------------------------------------


def _round_start(table: Table, e: Event) -> list[str]:
    dealer = e.get("dealer")
    line = f"Round {e.get('round', '?')}: {table.name(dealer) if isinstance(dealer, int) else 'nobody'} "
    line += "deal." if dealer == table.seat else "deals."
    if table.family == "skat" and isinstance(e.get("forehand"), int):
        line += f" {table.name(e['forehand'])} {'are' if e['forehand'] == table.seat else 'is'} forehand."
    return [line]


def _deal(table: Table, e: Event) -> list[str]:
    parts = []
    hand = e.get("hand")
    if hand:
        parts.append(f"You were dealt {cards_text(hand)}.")
    other = e.get("other_hand")
    if other:
        parts.append(f"Your other hand is {cards_text(other)}.")
    if e.get("upcard"):
        parts.append(f"The up card is {e['upcard']}.")
    widow = e.get("widow")
    if isinstance(widow, int):
        parts.append(f"{widow} widow cards lie face down.")
    elif isinstance(widow, list):
        parts.append("The widow lies face down." if all(c is None for c in widow)
                     else f"The widow is {cards_text(widow)}.")
    if table.family == "fifty-one" and e.get("table"):
        parts.append(f"The table is {cards_text(e['table'])}.")
    elif e.get("table"):
        parts.append("Two table hands lie face down.")
    if e.get("pot"):
        parts.append(f"The pot holds {_plural(e['pot'], 'chip')}.")
    first = e.get("first")
    if table.family == "fifty-one-chinese" and isinstance(first, int):
        parts.append(f"{table.name(first)} draw{'' if first == table.seat else 's'} first.")
    if not parts and table.family == "skat":
        parts.append("You sit out this deal.")
    return [" ".join(parts) or "The cards are dealt."]


def _turn_up(table: Table, e: Event) -> list[str]:
    where = "Table hand 0 is" if table.options.get("table") == "switch" else "The widow is"
    return [f"{where} turned up: {cards_text(e.get('cards') or [])}."]


def _trick(table: Table, e: Event) -> list[str]:
    winner = e.get("seat", -1)
    return [f"{table.name(winner)} won the trick ({cards_text(e.get('cards') or [])}, "
            f"{_plural(e.get('points', 0), 'point')})."]


def _forfeit(table: Table, e: Event) -> list[str]:
    seat = e.get("seat", -1)
    if seat == table.seat:
        return ["You are out of the match: your seat failed to answer."]
    return [f"{table.name(seat)} left the match: its bot failed."]


def _match_end(table: Table, e: Event) -> list[str]:
    rounds = e.get("rounds", 0)
    reason = str(e.get("reason", "?"))
    if reason.startswith("abandoned: "):
        return [f"The match was abandoned in round {rounds}: {reason.removeprefix('abandoned: ')}."]
    return [f"The match is over: {reason}, after {_plural(rounds, 'round')}."]


# -- round ends ----------------------------------------------------------------------------


def worth(table: Table, cards: Sequence[str], value: float | None = None) -> str:
    """What a hand is worth, as the rules name it: ``21 (hearts)``, ``running flush Q-K-A``
    (brag ranks have no meaningful number); empty if the rules value no such hand."""
    try:
        hand = get_variant(table.variant).evaluate(parse_cards(cards), table.options)
    except (ArenaError, ValueError):
        return "" if value is None else format_value(float(value))
    number = format_value(hand.value if value is None else float(value))
    if table.options.get("ranking") == "brag":
        return hand.label
    return f"{number} ({hand.label})" if hand.label and hand.label != number else number


def _shown(table: Table, e: Event) -> list[str]:
    """The hands shown at a round's end, one line each, with their values."""
    hands: Mapping[str, Any] = e.get("hands") or {}
    values: Mapping[str, Any] = e.get("values") or {}
    lines = []
    for key in sorted(hands, key=int):
        value = values.get(key)
        text = worth(table, hands[key], value if isinstance(value, int | float) else None)
        lines.append(f"  {table.name(int(key)):<8} {cards_text(hands[key])}" + (f" = {text}" if text else ""))
    return lines


def _changes(table: Table, e: Event) -> list[str]:
    """Who lost lives, won points or chips, and who is out."""
    lines = []
    for key, noun, verb in (("lives_lost", "life", "lose"), ("points_won", "point", "win"),
                            ("chips_won", "chip", "win")):
        for seat, amount in enumerate(e.get(key) or []):
            if amount:
                noun_text = _plural(amount, noun) if noun != "life" else (
                    "a life" if amount == 1 else f"{format_value(float(amount))} lives")
                lines.append(f"{table.name(seat)} {verb if seat == table.seat else verb + 's'} {noun_text}.")
    for seat in e.get("eliminated") or []:
        lines.append(f"{table.name(seat)} {'are' if seat == table.seat else 'is'} out of the match.")
    return lines


_THIRTY_ONE_ENDS: Final = {
    "blitz": "Blitz!",
    "thirty-one": "Thirty-one!",
    "feuer": "Feuer: three aces!",
    "draw": "The stock ran out: nobody loses this round.",
    "turn_cap": "The round reached its turn limit: no result.",
}


def _lives_round_end(table: Table, e: Event) -> list[str]:
    """The draw-and-discard and widow families: a showdown, a blitz, 31 or Feuer."""
    end = e.get("end")
    knocker = e.get("knocker")
    if end == "showdown":
        head = "Showdown" + (f" ({table.mention(knocker)} knocked)" if isinstance(knocker, int) else "") + ":"
    else:
        head = _THIRTY_ONE_ENDS.get(str(end), f"The round ended ({end}).")
    specials = e.get("blitz") or e.get("specials") or []
    if specials and end in ("blitz", "thirty-one", "feuer"):
        head += f" {_names(table, specials)} {'end' if len(specials) > 1 or specials[0] == table.seat else 'ends'}" \
                " the round at once:"
    lines = [head, *_shown(table, e)]
    if e.get("cancelled"):
        lines.append("That would have put everyone out, so nobody loses anything.")
    else:
        lines += _tie_note(table, e) + _changes(table, e)
    return lines


def _tie_note(table: Table, e: Event) -> list[str]:
    """Why not everyone tied for the lowest value at a showdown loses: a 24-24 tie said only
    who lost a life, which reads like a mistake without the rule that decided it."""
    values = {int(k): float(v) for k, v in (e.get("values") or {}).items() if isinstance(v, int | float)}
    if e.get("end") != "showdown" or len(values) < 2:
        return []
    lowest = min(values.values())
    tied = sorted(s for s, v in values.items() if v == lowest)
    lost = e.get("lives_lost") or []
    safe = [s for s in tied if s >= len(lost) or not lost[s]]
    if len(tied) < 2 or not safe:
        return []
    value, options, knocker = format_value(lowest), table.options, e.get("knocker")
    if isinstance(knocker, int) and safe == [knocker] and options.get("knocker_tie") == "safe":
        return [f"{table.name(knocker)} knocked and {'are' if knocker == table.seat else 'is'} tied for the lowest "
                f"({value}): a knocker tied for the lowest is safe."]
    if table.family != "widow":
        return []  # no other rule of the scat family spares a player tied for the lowest
    if options.get("tied_lowest") == "escape" and safe == tied:
        return [f"{_names(table, tied)} tied for the lowest ({value}): players tied for the lowest all escape."]
    if options.get("ranking") == "brag":
        return [f"{_names(table, tied)} tied at {value}: brag's order of the cards splits the tie."]
    if options.get("tiebreak") == "suit":
        return [f"{_names(table, tied)} tied at {value}: the suit that scores it splits the tie (clubs, spades, "
                "hearts, diamonds, best first)."]
    return [f"{_names(table, tied)} tied at {value}: the tie-break split it (docs/RULES.md 2)."]


def _fifty_one_round_end(table: Table, e: Event) -> list[str]:
    if e.get("end") != "showdown":
        return ["The hand reached its turn limit: no result."]
    stopper = e.get("stopper")
    head = "Showdown" + (f" ({table.mention(stopper)} stopped)" if isinstance(stopper, int) else "") + ":"
    winners = e.get("winners") or []
    return [head, *_shown(table, e), f"{_names(table, winners)} {_win(table, winners)} the hand."]


def _win(table: Table, seats: Sequence[int]) -> str:
    return "win" if len(seats) != 1 or seats[0] == table.seat else "wins"


def _lose(table: Table, seats: Sequence[int]) -> str:
    return "lose" if len(seats) != 1 or seats[0] == table.seat else "loses"


def _chinese_round_end(table: Table, e: Event) -> list[str]:
    end = e.get("end")
    if end == "turn_cap":
        return ["The hand reached its turn limit: no result."]
    caller = e.get("caller")
    head = {"knock": "Showdown", "clear_count": "A clear count ends the hand", "stock_out": "The stock ran out"}.get(
        str(end), f"The hand ended ({end})")
    if isinstance(caller, int):
        challengers = e.get("challengers") or []
        head += f" ({table.mention(caller)} knocked; " + (
            f"challenged by {_names(table, challengers, start=False)})" if challengers else "nobody challenged)")
    return [head + ":", *_shown(table, e), *_changes(table, e)]


def _empat_satu_round_end(table: Table, e: Event) -> list[str]:
    end = e.get("end")
    if end == "turn_cap":
        return ["The hand reached its turn limit: no result."]
    head = "The stock ran out" if end == "stock_out" else "Showdown"
    winners, losers = e.get("winners") or [], e.get("losers") or []
    lines = [head + ":", *_shown(table, e)]
    if winners or losers:
        lines.append(f"{_names(table, winners)} {_win(table, winners)} the hand; "
                     f"{_names(table, losers, start=False)} {_lose(table, losers)}.")
    else:
        lines.append("Every hand is equal: nobody wins or loses.")
    return lines


def _skat_round_end(table: Table, e: Event) -> list[str]:
    end = e.get("end")
    if end == "thrown_in":
        return ["Everyone passed: the deal is thrown in."]
    if end == "abandoned":
        return ["A player in the deal left the match: the deal does not count."]
    if end == "turn_cap":
        return ["The deal reached its turn limit: no result."]
    points = e.get("card_points") or []
    lines = []
    if end == "ramsch":
        lines.append("Everyone passed: the deal was played as Ramsch.")
        lines += [f"  {table.name(s):<8} {_plural(p, 'card point')}" for s, p in enumerate(points)]
        losers = e.get("losers") or []
        lines.append(f"{_names(table, losers)} {_lose(table, losers)}.")
    else:
        declarer = int(e.get("declarer", -1))
        game = " ".join([str(e.get("game", "?")), *(e.get("announced") or [])])
        won = "won" if e.get("won") else "lost"
        taken = points[declarer] if 0 <= declarer < len(points) else "?"
        overbid = ", overbid" if e.get("overbid") else ""
        lines.append(f"{table.name(declarer)} played {game} (bid {e.get('bid', '?')}) and {won}, with "
                     f"{taken} card points; game value {e.get('value', '?')}{overbid}.")
    if e.get("skat"):
        lines.append(f"The skat was {cards_text(e['skat'])}.")
    scorer = e.get("declarer") if end == "played" else None
    for seat, change in enumerate(e.get("changes") or []):
        if change:
            sign = "+" if change > 0 else ""
            why = f" ({_skat_score_why(table, e)})" if seat == scorer else ""
            lines.append(f"{table.name(seat)} {'score' if seat == table.seat else 'scores'} "
                         f"{sign}{format_value(float(change))}{why}.")
    return lines


def _skat_score_why(table: Table, e: Event) -> str:
    """How the declarer's score follows from the game's value: "You score -54" did not say
    that a lost game counts double (docs/RULES.md 6)."""
    value = int(e.get("value") or 0)
    kontra = int(e.get("kontra") or 0)
    parts = [f"the game's value, {value}"]
    if kontra:
        parts.append("doubled by kontra" + (" and again by re" if kontra == 2 else ""))
    if not e.get("won"):
        hand = "hand" in (e.get("announced") or [])
        if table.options.get("lost_scoring") == "official":
            parts.append("doubled: a lost game counts double")
        elif not hand:
            parts.append("doubled: a lost game counts double when the skat was picked up")
        else:
            parts.append("once: a lost hand game counts single")
    if table.options.get("scoring") == "seeger":
        parts.append(f"{'+' if e.get('won') else '-'}50 for the game won or lost (Seeger-Fabian)")
    return ", ".join(parts)


ROUND_ENDS: Final[dict[str, Callable[[Table, Event], list[str]]]] = {
    "thirty-one": _lives_round_end,
    "widow": _lives_round_end,
    "fifty-one": _fifty_one_round_end,
    "fifty-one-chinese": _chinese_round_end,
    "empat-satu": _empat_satu_round_end,
    "skat": _skat_round_end,
}

EVENTS: Final[dict[str, Callable[[Table, Event], list[str]]]] = {
    "round_start": _round_start,
    "deal": _deal,
    "turn_up": _turn_up,
    "new_widow": lambda table, e: [f"Everyone passed: a new widow is turned up: {cards_text(e.get('cards') or [])}."],
    "reshuffle": lambda table, e: [f"The stock is reshuffled ({_plural(e.get('stock', 0), 'card')})."],
    "trick": _trick,
    "forfeit": _forfeit,
    "round_end": lambda table, e: ROUND_ENDS.get(table.family, _lives_round_end)(table, e),
    "match_end": _match_end,
}


def narrate(table: Table, events: Iterable[Event]) -> list[str]:
    """The lines that tell ``events`` (as the person's seat received them), oldest first.

    One player's consecutive actions make one sentence: "West drew from the stock and
    discarded 7h."
    """
    lines: list[str] = []
    seat: int | None = None
    deeds: list[str] = []

    def flush() -> None:
        if seat is not None and deeds:
            lines.append(f"{table.name(seat)} {_and(deeds)}.")
        deeds.clear()

    for event in events:
        kind = event.get("event")
        if kind == "action" and isinstance(event.get("seat"), int):
            if event["seat"] != seat:
                flush()
                seat = event["seat"]
            deeds.append(_did(table, event))
            continue
        flush()
        seat = None
        told = EVENTS.get(str(kind))
        lines += told(table, event) if told else [f"{kind}: {dict(event)}"]
    flush()
    return lines
