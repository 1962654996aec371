"""The count of processes the machine has started, a channel between colluding bots found
by a second red-team pass: a pidfd's inode number (Linux 6.9 and later) is the next value
of one machine-wide counter that every new process or thread moves.  Each test plays a
sender and a receiver (or a writer and a later reader) and asserts that the receiver did
not read the sender's card; each failed before ``pidfd_open`` and ``CLONE_PIDFD`` were
refused.  The inode numbers of pipes, sockets and memfds are another such counter, still
open (docs/SANDBOX.md, "What remains")."""

from __future__ import annotations

from hostile import Played, assert_clean, assert_nothing_left, bot_copy, needs, play, random_bot

from arena.referee import TimeControl
from arena.sandbox import Sandbox

PATIENT = TimeControl(move_ms=300, bank_ms=300, first_move_ms=10_000, startup_ms=5000)
"""A first decision long enough to start the threads that move the count."""


def _deal_hand(played: Played, seat: int) -> list[str]:
    deal = next(e for e in played.result.log if e["event"] == "deal")
    return sorted(deal["private"][str(seat)]["hand"])


def test_bots_cannot_signal_through_the_machine_wide_count_of_pids(box: Sandbox) -> None:
    """A pidfd's inode number (``fstat``, Linux 6.9+ ``pidfs``) is the machine's count of
    pids given out, whatever the pid namespace: the sender starts threads until the count
    encodes its lowest card; the receiver forks a child and reads the count at its next
    decision."""
    needs(box, "bwrap", "seccomp")
    played = play(box, [bot_copy("rt2-pidfs-colluder", {"role.txt": "send"}),
                        bot_copy("rt2-pidfs-colluder", {"role.txt": "receive"}), random_bot()],
                  reporters=[0, 1], time_control=PATIENT)
    sent, got = played.report(0), played.report(1)
    hand = _deal_hand(played, 0)
    print("sender", sent, "\nreceiver", got)
    assert "wrote" not in sent or sent["wrote"] in hand, sent
    after = [value for value in got.get("reads", []) if "count" in sent and value > sent["count"]]
    if after:
        print("pids given out by others between the sender's last and the receiver's next:",
              after[0] - sent["count"] - 1)
    read = set(got.get("read") or [])
    assert sent.get("wrote") not in read, (
        f"the receiver read {sorted(read)} through the machine's count of pids (pidfd inode numbers): the sender's "
        f"hand is {hand} (sender {sent}, receiver {got})")
    assert_clean(played)
    assert_nothing_left(played)


def test_a_bot_cannot_leave_a_card_for_a_later_process_in_the_count_of_pids(box: Sandbox) -> None:
    """The same register across a rotation gap: the processes the referee starts for the
    next bots move it too, but by a steady count (9 to 13 here), which the reader takes off."""
    needs(box, "bwrap", "seccomp")
    first = play(box, [bot_copy("rt2-pidfs-colluder", {"role.txt": "write"}), random_bot(), random_bot()],
                 reporters=[0], time_control=PATIENT)
    wrote = first.report(0)
    hand = _deal_hand(first, 0)
    assert_clean(first)
    assert_nothing_left(first)
    second = play(box, [bot_copy("rt2-pidfs-colluder", {"role.txt": "read"}), random_bot(), random_bot()],
                  reporters=[0], seed=6)
    got = second.report(0)
    print("writer", wrote, "\nreader", got)
    if "count" in wrote and got.get("reads"):
        print("pids given out in the gap:", got["reads"][0] - wrote["count"] - 1)
    assert "wrote" not in wrote or wrote["wrote"] in hand, wrote
    first_read = (got.get("read") or [None])[0]
    assert first_read is None or first_read != wrote.get("wrote"), (
        f"a later process read {first_read} from the machine's count of pids: the dead writer's hand was {hand} "
        f"(writer {wrote}, reader {got})")
    assert_clean(second)
    assert_nothing_left(second)
