"""The match loop: plays one match between live bots, one decision at a time.

The rules engine says whose turn it is and what that seat may see; the referee sends
the seat's bot a ``decide`` request, waits for its reply against the clock, validates
it strictly, and applies it.  What it keeps of each seat (its bot while it plays, its
time bank, strikes and thinking time) is one :class:`Seat`.  Each seat may have its own
time control (a person's seat, say, an unlimited one), and a match may be abandoned from
outside the table (:class:`Abandon`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Final

import trio

from arena.cards import Seed, derive_seed
from arena.protocol import DECIDE, OUT_OF_MATCH, Error, MatchEnd, MatchStart, encode, encode_raw, spliced
from arena.referee.news import EVENT_BUDGET, EVENT_MAX, News, split_news
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
from arena.referee.session import MATCH_START_GRACE_MS, OFF_TURN_GRACE_MS, Bot, cpu_charge, timeout_fault
from arena.rules import Action, Event, MatchState, Outcome, Variant
from arena.rules.game import rank_placements

__all__ = ["SUBSTITUTE", "Abandon", "Seat", "play_match"]

SUBSTITUTE: Final = 0x5EED
"""derive_seed label of the generator that picks a substituted bot's random actions."""
_text: Final = attrgetter("text")


@dataclass(slots=True, eq=False)
class Seat:
    """One seat of a match, and what the referee keeps of it while the match is played."""

    number: int
    entrant: Bot | BotFault
    """Who took the seat: its bot, or the fault that stopped the bot starting."""
    bot: Bot | None
    """Its bot while it plays: None once out of the match (or if it never started)."""
    time_control: TimeControl
    """The time control it plays under (the match's, or its own)."""
    bank_ms: float
    """Its time bank, in ms (not whole ms: ``time_left_ms`` is then exact)."""
    accounting: bool = False
    """Whether its bot's CPU time is counted (the cgroup layer): a read after each decision,
    and one before it while the bot may still be caught thinking off its turn."""
    pondering: bool = False
    """Whether the CPU its bot uses between its turns is charged to its clock (counted,
    and not frozen)."""
    cpu_mark: int = 0
    """Its bot's CPU counter (ns) where the referee last read it."""
    timing: SeatTiming = field(default_factory=SeatTiming)
    """Its decisions and thinking time."""
    strikes: int = 0
    """Its faults so far."""
    first: bool = True
    """Whether its first decision of the match is still to come (it has extra time)."""

    @classmethod
    def taken_by(cls, number: int, entrant: Bot | BotFault, time_control: TimeControl) -> Seat:
        """Seat ``number`` at the start of a match, taken by ``entrant``, under ``time_control``."""
        bank_ms = float(time_control.bank_ms)
        if isinstance(entrant, BotFault):
            return cls(number, entrant, None, time_control, bank_ms)
        accounting = entrant.sandboxed.accounts_cpu
        return cls(number, entrant, entrant, time_control, bank_ms, accounting, accounting and not entrant.freezes,
                   entrant.sandboxed.cpu_ns() if accounting else 0)


class Abandon:
    """Stops a match before its end from outside the table (a person at it leaves, an
    operator's Ctrl+C).  :func:`play_match` then stops at once, even in the middle of a
    decision, tells the bots still in that the match is over, and returns what was played
    so far: an outcome whose reason starts ``abandoned:``, in which every seat still in
    shares first place with score 0 (nothing was decided) and seats already out follow."""

    def __init__(self) -> None:
        self.reason: str | None = None
        """Why the match was abandoned; None while it was not."""
        self._scopes: list[trio.CancelScope] = []

    def __call__(self, reason: str) -> None:
        """Abandon the match, saying why (the first reason given stands)."""
        if self.reason is None:
            self.reason = reason
        for scope in self._scopes:
            scope.cancel()

    def scope(self) -> trio.CancelScope:
        """A cancel scope that is cancelled when the match is abandoned."""
        scope = trio.CancelScope()
        self._scopes.append(scope)
        return scope


async def play_match(
    variant: Variant,
    bots: Sequence[Bot | BotFault],
    *,
    seed: Seed,
    options: Mapping[str, Any] | None = None,
    match_id: str = "match",
    time_control: TimeControl = TimeControl(),
    policy: FaultPolicy = FaultPolicy(),
    seat_time: Mapping[int, TimeControl] | None = None,
    abandon: Abandon | None = None,
) -> MatchResult:
    """Play one match, seat ``i`` taken by ``bots[i]``.

    A :class:`BotFault` in ``bots`` (a bot that failed to start) forfeits that seat at
    once.  Bots that forfeit are killed; the others stay alive for the caller to reuse.
    ``seat_time`` gives some seats their own time control instead of ``time_control``;
    ``abandon`` lets the caller stop the match before its end.
    """
    started = time.perf_counter()
    state = variant.new_match(len(bots), seed=seed, options=options)
    controls = [(seat_time or {}).get(seat, time_control) for seat in range(len(bots))]
    table = _Table(state, bots, seed, controls, policy)
    resolved = variant.resolve(options)
    await table.begin(match_id, variant.name, resolved)
    if abandon is None:
        await table.play()
    elif abandon.reason is None:
        with abandon.scope():
            await table.play()
    if not state.is_over:  # abandoned before its end
        assert abandon is not None and abandon.reason is not None
        table.abandon(abandon.reason)
    outcome = await table.end(match_id)
    playing = [bot for bot in bots if isinstance(bot, Bot)]
    return MatchResult(
        match_id=match_id,
        variant=variant.name,
        options={name: resolved[name] for name in options or {}},
        seed=seed,
        bots=[b.label for b in bots],
        outcome=outcome,
        faults=table.faults,
        timings=[seat.timing for seat in table.seats],
        sandbox=sorted(set.intersection(*(set(b.layers) for b in playing))) if playing else [],
        events=state.log,
        duration_s=time.perf_counter() - started,
        decisions=table.request,
    )


class _Table:
    """A match in play: the rules engine's state, the seats, and the faults so far."""

    def __init__(self, state: MatchState, bots: Sequence[Bot | BotFault], seed: Seed, controls: Sequence[TimeControl],
                 policy: FaultPolicy) -> None:
        self.state = state
        self.policy = policy
        self.news_for = News(state.log, len(bots)).take
        self.faults: list[Fault] = []
        self.seats = [Seat.taken_by(n, bot, control) for n, (bot, control) in enumerate(zip(bots, controls))]
        self.abandoned: Outcome | None = None
        """The outcome of a match abandoned before its end (:class:`Abandon`)."""
        self.substitute = random.Random(derive_seed(seed, SUBSTITUTE))
        self.request = 0
        """Decisions asked for so far: the number of the current one (from 1)."""

    async def fault(self, seat: Seat, error: BotFault) -> bool:
        """Record a fault; True if the seat is now out of the match."""
        policy = self.policy
        seat.strikes += 1
        out = policy.mode == PolicyMode.FORFEIT or error.fatal or seat.strikes >= policy.strikes
        entrant = seat.entrant
        if not out and isinstance(entrant, Bot):
            try:
                await entrant.send(encode(Error(f"{error}; a random legal action was played")))
            except BotFault as unreachable:  # it cannot even be told: it is out
                error = BotFault(error.kind, f"{error.detail}; then {unreachable}")
                out = True
        penalty = (Penalty.FORFEIT if policy.mode == PolicyMode.FORFEIT
                   else Penalty.DISQUALIFIED if out else Penalty.SUBSTITUTED)
        self.faults.append(Fault(seat.number, entrant.label, error.kind, error.detail, self.request, penalty))
        if out:
            self.state.forfeit(seat.number)
            if isinstance(entrant, Bot):
                seat.bot = None
                await entrant.close(why=f"{error}; {OUT_OF_MATCH}")  # told why, given its grace to exit
        return out

    async def begin(self, match_id: str, variant: str, options: dict[str, Any]) -> None:
        """Forfeit the seats whose bot did not start; tell the others the match begins."""
        for seat in self.seats:
            entrant = seat.entrant
            if isinstance(entrant, BotFault):
                self.faults.append(Fault(seat.number, entrant.label, entrant.kind, entrant.detail, 0, Penalty.FORFEIT))
                self.state.forfeit(seat.number)
        players = len(self.seats)
        for seat in self.seats:
            player = seat.bot
            if player is not None:
                start = MatchStart(match_id, variant, options, seat.number, players, seat.time_control.to_dict())
                try:
                    await player.send(encode(start))
                except BotFault as error:
                    await self.fault(seat, error)

    async def play(self) -> None:
        """Ask for every decision until the match is over.

        The referee's hot path: what it reads more than once per decision is bound to
        a local name first."""
        state, seats, news_for, fault = self.state, self.seats, self.news_for, self.fault
        clock = time.perf_counter  # cheaper than trio's clock, which only a real wait needs
        while not state.is_over:
            to_move = state.to_move
            assert to_move is not None
            seat = seats[to_move]
            tc = seat.time_control
            move_ms, first_move_ms, min_turn_ms = tc.move_ms, tc.first_move_ms, tc.min_turn_ms
            current = seat.bot
            if current is None:  # forfeited seats never move again
                raise RuntimeError(f"seat {to_move} has no bot but is to move")
            legal = state.legal_actions()
            self.request = request = self.request + 1
            if request % 32 == 0:
                await trio.lowlevel.checkpoint()  # replies often need no wait: let other matches run
            news = news_for(to_move)
            budget_ms = move_ms + first_move_ms if seat.first else move_ms
            charged_ms = 0.0  # CPU it used on others' turns, where it may ponder
            if seat.pondering:
                now_ns = current.sandboxed.cpu_ns()
                charged_ms = (now_ns - seat.cpu_mark) / 1e6
                seat.cpu_mark = now_ns
            elif seat.accounting and not current.caught and current.sandboxed.cpu_ns() - seat.cpu_mark > \
                    (MATCH_START_GRACE_MS if seat.first else OFF_TURN_GRACE_MS) * 1e6:
                # it ran since its last reply, or since match_start (charged below with its turn;
                # a bot sleeping on its turn would hide that from the check after the reply)
                current.caught_thinking()
            allowed_ms = budget_ms + seat.bank_ms - charged_ms
            failure: BotFault | None = None
            spent = 0.0
            cpu_ns = 0
            on_cpu = seat.accounting and tc.clock is Clock.CPU
            try:
                if allowed_ms <= 0:
                    raise BotFault(FaultKind.TIMEOUT, f"used {charged_ms:.0f} ms of CPU on others' turns, more "
                                                      f"than its {budget_ms + seat.bank_ms:.0f} ms left")
                if len(news) * EVENT_MAX > EVENT_BUDGET:  # perhaps too many for one line
                    early, news = split_news(news, EVENT_BUDGET)
                    for message in early:  # a seat that has not decided for long: its news go first
                        await current.send(message)
                payload = DECIDE % (request, encode_raw(state.observe(to_move)), encode_raw(list(map(_text, legal))),
                                    allowed_ms, b",".join(news))
                began = clock()
                try:
                    text = await current.ask(payload, request, began, allowed_ms / 1000,
                                             seat.cpu_mark if on_cpu else None)
                finally:
                    spent = clock() - began
                    if seat.accounting:  # the counter costs a system call: read once here
                        cpu_ns = current.sandboxed.cpu_ns() - seat.cpu_mark
                        seat.cpu_mark += cpu_ns
                if (cpu_charge(cpu_ns / 1e9, spent) * 1000 if on_cpu else spent * 1000) > allowed_ms:  # late
                    raise timeout_fault(allowed_ms / 1000, on_cpu)
                action = _chosen(text, legal)
            except BotFault as error:
                failure = error
            seat.timing.add(spent, cpu_ns / 1e9)
            if failure is not None and seat.accounting:
                failure = _idle_timeout(failure, cpu_ns / 1e9, spent)
            if failure is not None and charged_ms >= 1 and failure.kind == FaultKind.TIMEOUT and not failure.fatal \
                    and "on others' turns" not in failure.detail:  # say why its time was so short
                failure = BotFault(FaultKind.TIMEOUT, f"{failure.detail}, after {charged_ms:.0f} ms of CPU it used on "
                                                      "others' turns were charged to its clock (ponder)")
            if cpu_ns / 1e6 > spent * 1000 + OFF_TURN_GRACE_MS:  # threads that ran on past the reply
                current.caught_thinking()
            if spent * 1000 < min_turn_ms:  # every turn looks alike to the others
                await trio.sleep(min_turn_ms / 1000 - spent)
            overrun_ms = (cpu_charge(cpu_ns / 1e9, spent) * 1000 if on_cpu else spent * 1000) + charged_ms - budget_ms
            if overrun_ms > 0:
                seat.bank_ms = max(0.0, seat.bank_ms - overrun_ms)
            seat.first = False
            if failure is not None:
                if await fault(seat, failure):
                    continue
                action = self.substitute.choice(legal)
            state.apply(action)

    def abandon(self, reason: str) -> None:
        """End the match here (see :class:`Abandon`); the log ends with the outcome, as any
        match's does."""
        state = self.state
        active = state.observe(0)["active"]
        outcome = Outcome(rank_placements(active), (0.0,) * len(active), f"abandoned: {reason}", state.round)
        state.log.append(Event("match_end", None, outcome.to_dict()))
        self.abandoned = outcome

    async def end(self, match_id: str) -> Outcome:
        """The outcome, sent with their last news to the bots still in the match."""
        outcome = self.state.outcome or self.abandoned
        assert outcome is not None
        for seat in self.seats:
            player = seat.bot
            if player is not None:
                early, news = split_news(self.news_for(seat.number), EVENT_BUDGET)
                try:
                    for message in early:
                        await player.send(message)
                    await player.send(encode(MatchEnd(match_id, outcome.to_dict(), spliced(news))))
                except BotFault as error:  # the match is over: nothing to forfeit, but it is not reused
                    self.faults.append(Fault(seat.number, player.label, error.kind, error.detail, self.request,
                                             Penalty.NONE))
                    await player.close(0)
        return outcome


def _idle_timeout(fault: BotFault, cpu_s: float, spent_s: float) -> BotFault:
    """A timeout of a bot that hardly used the CPU while its clock ran: it was waiting,
    most likely for its own reply to leave an output buffer."""
    if fault.kind != "timeout" or fault.fatal or cpu_s > 0.1 * spent_s:
        return fault
    return BotFault(FaultKind.TIMEOUT, f"{fault.detail}; it used {cpu_s * 1000:.0f} ms of CPU meanwhile, so it was "
                               "waiting, not thinking: did it write its reply without a newline, or without "
                               "flushing its output? (docs/PROTOCOL.md, 'Transport')")


def _chosen(text: str, legal: Sequence[Action]) -> Action:
    """The legal action whose text the bot sent; an ``illegal_action`` fault otherwise."""
    for action in legal:
        if action.text == text:
            return action
    raise BotFault(FaultKind.ILLEGAL_ACTION, f"{text!r} is not one of {[a.text for a in legal]}")
