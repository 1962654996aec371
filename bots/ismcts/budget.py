"""How long one decision may search, on the clock the referee charges.

The referee charges a decision the bot's CPU time by default (``"clock": "cpu"`` in the
time control) and, on that clock, at least a third of the wall time past the first 0.1 s
(docs/PROTOCOL.md, "Time control").  So the search spends a share of ``move_ms`` in CPU
time, which a busy machine does not shorten, and stops by the wall clock well before the
point where the wall time alone would cost more than ``move_ms``.  On the ``"wall"`` clock
both limits are the same share of the wall clock.  A fixed number of deals instead of a
clock makes the search deterministic given its seed (tests and experiments).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

THINK_FRACTION = 0.6
"""Share of ``move_ms`` a decision may use on the charged clock: the rest absorbs reading,
replying, the step under way at the limit and the pipes."""
WALL_FACTOR = 2.4
"""On the CPU clock the search stops by the wall clock after this many times ``move_ms``
(charged at a third of it past 0.1 s: 0.8 ``move_ms``, inside the move)."""
MAX_THINK_S = 2.0
"""Longest any decision searches on the charged clock, however generous the time control
(three times as long on the wall clock where CPU time is charged)."""
RESERVE_S = 0.005
"""Kept back from every budget for reading the events and sending the reply."""
MAX_DEALS = 400
"""Deals sampled at most, however long the budget (spares a shared machine)."""
MIN_DEALS = 12
"""Deals sampled before a search may stop early."""
CHECK_EVERY = 6
"""Deals between checks for an early stop."""


class Budget:
    """One decision's allowance: CPU seconds, wall seconds and deals, counted from now."""

    def __init__(self, cpu_s: float, wall_s: float, deals: int = MAX_DEALS) -> None:
        self.cpu_s, self.wall_s, self.deals = cpu_s, wall_s, deals
        self._cpu_end = time.process_time() + cpu_s
        self._wall_end = time.perf_counter() + wall_s

    @classmethod
    def fixed(cls, deals: int) -> Budget:
        """Exactly ``deals`` deals whatever they take (a deterministic search)."""
        return cls(math.inf, math.inf, deals)

    def expired(self) -> bool:
        """Whether either clock has run out."""
        return time.perf_counter() >= self._wall_end or time.process_time() >= self._cpu_end

    def allows(self, done: int, step_cpu: float, step_wall: float) -> bool:
        """Whether one more deal fits, after ``done`` deals whose slowest took ``step_cpu``
        of CPU and ``step_wall`` on the wall clock."""
        return (done < self.deals and time.process_time() + step_cpu < self._cpu_end
                and time.perf_counter() + step_wall < self._wall_end)


BANK_SHARE = 0.5
"""Share of the bank left that one stretched decision may risk, were it charged its wall time."""
BANK_INTACT = 0.9
"""While at least this share of the bank is left, the decisions so far were charged no more
than their CPU estimate said: the referee counts CPU time (a machine without the sandbox's
``cgroup`` layer charges the wall clock, whatever the time control says)."""


def think_s(time_control: Mapping[str, Any]) -> float:
    """Seconds of the charged clock a decision plans on."""
    move_s = float(time_control.get("move_ms", 1000)) / 1000
    return max(0.0, min(THINK_FRACTION * move_s, MAX_THINK_S) - RESERVE_S)


def budget_for(time_control: Mapping[str, Any], time_left_ms: float | None = None, deals: int | None = None) -> Budget:
    """The allowance of a decision under ``time_control`` (the match's ``time``), starting
    now; ``time_left_ms`` is what the referee says the decision may take; with ``deals``,
    that many deals and no clock.

    The wall clock is stretched only on the CPU clock and while the bank is intact: once an
    overrun has been charged, the referee is charging wall time, and the search keeps to
    the wall clock from then on.  Even then it stretches no further than half the bank
    left would cover, were the wall time charged: the first decision on a machine that
    cannot count CPU costs at most half the bank, and with no bank it keeps to the move."""
    if deals is not None:
        return Budget.fixed(deals)
    think = think_s(time_control)
    move_s = float(time_control.get("move_ms", 1000)) / 1000
    bank_s = float(time_control.get("bank_ms", 0)) / 1000
    left_s = move_s + bank_s if time_left_ms is None else time_left_ms / 1000
    if time_control.get("clock", "cpu") == "wall" or left_s < move_s + BANK_INTACT * bank_s:
        return Budget(think, think)
    stretch = min(WALL_FACTOR * move_s, move_s + BANK_SHARE * max(0.0, left_s - move_s), 3 * MAX_THINK_S)
    return Budget(think, max(think, stretch - RESERVE_S))


class _Step:
    """Measures one deal's cost on both clocks, keeping the slowest."""

    def __init__(self) -> None:
        self.cpu = 0.0
        self.wall = 0.0
        self._cpu0 = 0.0
        self._wall0 = 0.0

    def begin(self) -> None:
        self._cpu0, self._wall0 = time.process_time(), time.perf_counter()

    def end(self) -> None:
        self.cpu = max(self.cpu, time.process_time() - self._cpu0)
        self.wall = max(self.wall, time.perf_counter() - self._wall0)


def deals_while(budget: Budget, settled: Callable[[], bool]) -> Iterator[int]:
    """The numbers of the deals a search samples: 0, 1, ... while one more deal (as slow as
    the slowest so far) fits in ``budget``, and until ``settled()`` says the answer is
    clear, asked every :data:`CHECK_EVERY` deals from :data:`MIN_DEALS` on.  The loop
    over them does one deal's work a step (every search of the bot has this shape)."""
    step = _Step()
    deals = 0
    while budget.allows(deals, step.cpu, step.wall):
        step.begin()
        yield deals
        deals += 1
        step.end()
        if deals >= MIN_DEALS and deals % CHECK_EVERY == 0 and settled():
            return
