"""What the person typed, made into one legal action, or refused with a reason.

Accepted, for the legal actions of a decision (their protocol text, numbered from 1):

* a number: that choice (``3``), or ``#3``; but where an action carries a value a person
  types as a number (a Skat bid: ``bid 20``), a number alone is that value (``20`` bids
  20; almost every low bid is also a choice's number) and a choice is typed ``#3``;
* an action's text, in any case and with cards written any way ``arena`` reads them
  (``discard qs``, ``DISCARD 10h``);
* its cards alone, in any order, when one action uses exactly those (``Qs`` for
  ``discard Qs`` or ``play Qs``; ``7s Qh`` for ``swap_one 7s Qh``);
* its words without the kind when they say enough (``clubs hand`` for
  ``declare clubs hand``), or the kind's first letters alone when one action has it
  (``dr`` for ``draw``).

Anything else raises :class:`InputError`, whose message says why and what would do: a
card the person does not hold, an action that is not legal now, or the few actions an
input could mean, with their numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from arena.cards import CardError, parse_card
from arena.errors import ArenaError

__all__ = ["HELP", "HelpAsked", "InputError", "choose", "valued"]

SHOWN: Final = 8
"""Candidates an ambiguous input's message lists at most."""
VALUED: Final = frozenset({"bid"})
"""Kinds of action whose number is what a person means by typing a number alone."""

HELP: Final = """\
Choose one of the numbered actions.  You can type:
  a number          3                  (#3 where numbers are bids: there 20 bids 20)
  the action        discard Qs     swap_one 7s Qh     bid 20     declare grand hand
  its cards         Qs             7s Qh              (when only one action uses them)
  its first word    draw   knock   pass               (when only one action starts so)
Cards are rank then suit: As Th 7c (10h and upper case work too).
Ctrl+C or "quit" leaves the match (it is recorded as abandoned)."""


class InputError(ArenaError, ValueError):
    """An input that names no legal action, or several; the message says why."""


class HelpAsked(InputError):
    """The person asked for help (``?``): the message is the help, nothing was refused."""


def valued(legal: Sequence[str]) -> list[str]:
    """The values a number typed alone means now, in order (Skat's bids), if any."""
    return [parts[1] for parts in (action.split() for action in legal)
            if len(parts) == 2 and parts[0] in VALUED and parts[1].isdecimal()]


@dataclass(frozen=True)
class _Words:
    """An input or an action's text, read as words: the kind (if any), the cards, the rest."""

    words: tuple[str, ...]
    cards: tuple[str, ...]
    """Card names, canonical (``Qs``), in the order written."""
    rest: tuple[str, ...]
    """Every other word, lower case, in order."""


def _read(text: str) -> _Words:
    words, cards, rest = [], [], []
    for token in text.replace(",", " ").split():
        try:
            card = str(parse_card(token))
        except CardError:
            words.append(token.lower())
            rest.append(token.lower())
        else:
            words.append(card)
            cards.append(card)
    return _Words(tuple(words), tuple(cards), tuple(rest))


def _numbered(legal: Sequence[str], indices: Sequence[int]) -> str:
    shown = ", ".join(f"{i + 1} ({legal[i]})" for i in indices[:SHOWN])
    more = f" and {len(indices) - SHOWN} more" if len(indices) > SHOWN else ""
    return shown + more


def choose(text: str, legal: Sequence[str], keep: str | None = None) -> str:
    """The legal action (its protocol text) that ``text`` names; :class:`InputError` if it
    names none, or more than one (``keep``: the card the person must keep this turn, which
    a refusal names as such)."""
    text = text.strip()
    if not legal:
        raise InputError("there is nothing to choose now")
    if not text:
        raise InputError(f"type a number from 1 to {len(legal)}, an action or its cards (? for help)")
    if text in ("?", "help"):
        raise HelpAsked(HELP)
    values = valued(legal)
    if text.isdecimal() and values:
        carrying = [action for action in legal if action.split()[1:] == [str(int(text))]]
        if len(carrying) == 1:
            return carrying[0]
        raise InputError(f"{int(text)} is not a bid you can make now: {values[0]} to {values[-1]} "
                         "(a numbered choice is typed #N)")
    if text.isdecimal() or (text[:1] == "#" and text[1:].isdecimal()):
        number = int(text.lstrip("#"))
        if 1 <= number <= len(legal):
            return legal[number - 1]
        raise InputError(f"there is no choice {number}: the choices are 1 to {len(legal)}")
    said = _read(text)
    actions = [_read(action) for action in legal]
    exact = [i for i, action in enumerate(actions) if action.words == said.words]
    if len(exact) == 1:
        return legal[exact[0]]
    found = _matching(said, actions)
    if len(found) == 1:
        return legal[found[0]]
    if found:
        raise InputError(f"{text!r} could be {_numbered(legal, found)}: type its number or the whole action")
    raise InputError(_why_not(text, said, legal, actions, keep))


def _matching(said: _Words, actions: Sequence[_Words]) -> list[int]:
    """The actions ``said`` fits: the same cards (any order), and its other words either
    the action's words after its kind, or its kind (``swap all`` for ``swap_all``), or a
    beginning of its kind, followed by them."""
    found = []
    for i, action in enumerate(actions):
        if sorted(said.cards) != sorted(action.cards):
            continue
        kind, after = action.rest[0], action.rest[1:]
        spelled = tuple(kind.split("_"))
        kind_left_out = said.rest == after and bool(after or said.cards)
        kind_spelled = said.rest[:len(spelled)] == spelled and said.rest[len(spelled):] == after
        kind_begun = bool(said.rest) and kind.startswith(said.rest[0]) and said.rest[1:] == after
        if kind_left_out or kind_spelled or kind_begun:
            found.append(i)
    if len(found) > 1:  # the cards in the order written settle it, if any does
        ordered = [i for i in found if actions[i].cards == said.cards]
        if len(ordered) == 1:
            return ordered
    return found


def _why_not(text: str, said: _Words, legal: Sequence[str], actions: Sequence[_Words], keep: str | None) -> str:
    """Why nothing legal fits ``text``, and the nearest thing that would."""
    usable = {card for action in actions for card in action.cards}
    unusable = [card for card in said.cards if card not in usable]
    if keep is not None and unusable == [keep]:
        return f"you must keep {unusable[0]}, which you took this turn: discard another card"
    if unusable:
        return f"no legal action now uses {' '.join(unusable)}; choose 1 to {len(legal)}"
    near = [i for i, action in enumerate(actions) if set(said.cards) <= set(action.cards)
            and all(word in action.rest or action.rest[0].startswith(word) for word in said.rest)]
    if near:
        return f"{text!r} is not a whole action; did you mean {_numbered(legal, near)}?"
    kinds = sorted({action.rest[0] for action in actions})
    if said.rest and not any(kind.startswith(said.rest[0]) for kind in kinds):
        return f"{said.rest[0]!r} is not an action now; the actions now are: {', '.join(kinds)}"
    return f"{text!r} is not a legal action now; choose 1 to {len(legal)}"
