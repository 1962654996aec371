"""What a person types, read into one legal action or refused with a reason that helps."""

from __future__ import annotations

import pytest

from arena.human.parse import HELP, HelpAsked, InputError, choose
from arena.rules.skat import BID_VALUES

TURN = ["draw", "take", "knock"]
DISCARD = ["discard 7h", "discard Qs", "discard 2c", "discard Ad"]
SWITCH = ["swap_one Jh Ac", "swap_one Jh 7c", "swap_one Kh Ac", "swap_blind Jh 1 0", "swap_all 0", "swap_all 1",
          "renew 0 up", "renew 0 down", "pass"]
BANKING = ["draw", "take", "exchange 3h for 0", "exchange 3h 7h for 0 1", "exchange 3h 7h for 1 2"]
SKAT_DECLARE = ["declare clubs hand", "declare clubs hand schneider", "declare grand hand", "declare null hand"]
SKAT_DISCARD = ["discard 7d 7h", "discard 7d Jc", "discard 7h Jc"]
SKAT_BID = ["bid 18", "bid 20", "bid 22", "pass"]
SKAT_FULL_BID = [*(f"bid {v}" for v in BID_VALUES), "pass"]


@pytest.mark.parametrize(("typed", "legal", "chosen"), [
    ("1", TURN, "draw"),
    (" 3 ", TURN, "knock"),
    ("take", TURN, "take"),
    ("TAKE", TURN, "take"),
    ("dr", TURN, "draw"),
    ("k", TURN, "knock"),
    ("qs", DISCARD, "discard Qs"),
    ("Qs", DISCARD, "discard Qs"),
    ("discard QS", DISCARD, "discard Qs"),
    ("Ad discard", DISCARD, "discard Ad"),
    ("Ac Jh", SWITCH, "swap_one Jh Ac"),
    ("swap jh ac", SWITCH, "swap_one Jh Ac"),
    ("swap all 1", SWITCH, "swap_all 1"),
    ("swap_all 0", SWITCH, "swap_all 0"),
    ("Jh 1 0", SWITCH, "swap_blind Jh 1 0"),
    ("renew 0 down", SWITCH, "renew 0 down"),
    ("p", SWITCH, "pass"),
    ("exchange 7h 3h for 0 1", BANKING, "exchange 3h 7h for 0 1"),
    ("3h 7h for 1 2", BANKING, "exchange 3h 7h for 1 2"),
    ("clubs hand", SKAT_DECLARE, "declare clubs hand"),
    ("declare grand hand", SKAT_DECLARE, "declare grand hand"),
    ("null hand", SKAT_DECLARE, "declare null hand"),
    ("7h 7d", SKAT_DISCARD, "discard 7d 7h"),
    ("discard jc 7h", SKAT_DISCARD, "discard 7h Jc"),
    ("bid 20", SKAT_BID, "bid 20"),
    ("#4", SKAT_BID, "pass"),
    ("#1", TURN, "draw"),
    ("20", SKAT_BID, "bid 20"),
    ("18", SKAT_FULL_BID, "bid 18"),  # was choice 18, a bid of 55
    ("20", SKAT_FULL_BID, "bid 20"),  # was choice 20, a bid of 60
    ("#18", SKAT_FULL_BID, "bid 55"),
    ("10h", ["play Th", "play 9h"], "play Th"),
])
def test_every_form_of_an_action_is_read(typed: str, legal: list[str], chosen: str) -> None:
    assert choose(typed, legal) == chosen


@pytest.mark.parametrize(("typed", "legal", "says"), [
    ("", TURN, "type a number from 1 to 3"),
    ("4", TURN, "there is no choice 4: the choices are 1 to 3"),
    ("0", TURN, "there is no choice 0"),
    ("fly", TURN, "'fly' is not an action now; the actions now are: draw, knock, take"),
    ("Kd", DISCARD, "no legal action now uses Kd"),
    ("discard", DISCARD, "did you mean 1 (discard 7h), 2 (discard Qs)"),
    ("jh", SWITCH, "did you mean 1 (swap_one Jh Ac), 2 (swap_one Jh 7c), 4 (swap_blind Jh 1 0)"),
    ("swap", SWITCH, "did you mean 1 (swap_one Jh Ac)"),
    ("3h", BANKING, "did you mean 3 (exchange 3h for 0), 4 (exchange 3h 7h for 0 1), 5 (exchange 3h 7h for 1 2)"),
    ("p", ["pass", "pickup", "play 7c"], "'p' could be 1 (pass), 2 (pickup): type its number or the whole action"),
    ("pl", ["pass", "pickup", "play 7c"], "did you mean 3 (play 7c)"),
    ("renew 0", SWITCH, "did you mean 7 (renew 0 up), 8 (renew 0 down)"),
    ("clubs", SKAT_DECLARE, "did you mean 1 (declare clubs hand), 2 (declare clubs hand schneider)"),
    ("7d", SKAT_DISCARD, "did you mean 1 (discard 7d 7h), 2 (discard 7d Jc)"),
    ("?", TURN, "Choose one of the numbered actions"),
    ("19", SKAT_FULL_BID, f"19 is not a bid you can make now: 18 to {BID_VALUES[-1]} (a numbered choice is typed #N)"),
    ("#99", SKAT_FULL_BID, "there is no choice 99"),
])
def test_a_refusal_says_why_and_what_would_do(typed: str, legal: list[str], says: str) -> None:
    with pytest.raises(InputError) as refused:
        choose(typed, legal)
    assert says in str(refused.value)


def test_the_card_to_keep_is_named_as_such() -> None:
    """Typing the card just taken from the discard pile said "no legal action now uses 5h"."""
    with pytest.raises(InputError, match="you must keep 5h, which you took this turn: discard another card"):
        choose("5h", DISCARD, keep="5h")
    with pytest.raises(InputError, match="no legal action now uses Kd"):
        choose("Kd", DISCARD, keep="5h")


def test_help_is_no_refusal() -> None:
    """``?`` shows the help, which the fronts print as it is ("Not taken:" was put before it)."""
    with pytest.raises(HelpAsked) as asked:
        choose("?", SKAT_BID)
    assert str(asked.value) == HELP
    with pytest.raises(InputError) as refused:
        choose("fly", TURN)
    assert not isinstance(refused.value, HelpAsked)


def test_an_ambiguous_input_lists_at_most_eight_candidates_with_their_numbers() -> None:
    legal = [f"bid {n}" for n in range(18, 60)]
    with pytest.raises(InputError) as refused:
        choose("b", legal)
    assert "1 (bid 18)" in str(refused.value) and "and 34 more" in str(refused.value)
