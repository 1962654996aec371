"""Channels between colluding bots through kernel state, found by a red-team pass: the
count of processes mapping a page, machine-wide eventfd ids, the machine's asynchronous
I/O events and its socket-cookie counter.  Each test plays a sender and a receiver (or a
writer and a later reader) and asserts that the receiver did not read the sender's
hand; each failed before its fix (docs/SANDBOX.md)."""

from __future__ import annotations

from hostile import assert_clean, assert_not_read, assert_nothing_left, bot_copy, colluders, needs, play, random_bot

from arena.referee import TimeControl
from arena.sandbox import Sandbox


def test_bots_cannot_signal_through_the_map_count_of_a_shared_files_pages(box: Sandbox) -> None:
    """The sender maps one page of a shared read-only file (the resident standard
    library's ``pydoc_data/topics.py``, which no one else maps) per card; the receiver maps
    the same pages and reads in ``/proc/self/pagemap`` (``PM_MMAP_EXCLUSIVE``) which of them
    another process maps too."""
    needs(box, "bwrap", "seccomp")
    played, got, hand = colluders(box, "rt-mapcount-colluder")
    assert_not_read(played, got, hand, "the map count of shared file pages (/proc/self/pagemap)")


def test_bots_cannot_signal_through_the_machine_wide_numbering_of_eventfds(box: Sandbox) -> None:
    """Eventfd ids come from one machine-wide allocator (lowest free id first) and show in
    ``/proc/self/fdinfo``: the sender holds the ids of its cards, the receiver sees which
    ids it is not given."""
    needs(box, "bwrap", "seccomp")
    played, got, hand = colluders(box, "rt-eventfd-colluder", publishes=False)
    assert_not_read(played, got, hand, "eventfd ids (/proc/self/fdinfo)")


def test_bots_cannot_signal_through_the_machine_wide_count_of_aio_events(box: Sandbox) -> None:
    """``io_setup`` reserves events of the machine's one ``fs.aio-max-nr``: the sender keeps
    a context whose size encodes its hand, the receiver bisects the largest context it can
    still get."""
    needs(box, "bwrap", "seccomp")
    played, got, hand = colluders(box, "rt-aio-colluder", publishes=False)
    assert_not_read(played, got, hand, "the machine-wide count of aio events (io_setup)")


def test_a_bot_cannot_leave_a_card_for_a_later_process_in_the_socket_cookie_counter(box: Sandbox) -> None:
    """``SO_COOKIE`` numbers sockets from one machine-wide counter, in batches of 4,096
    per CPU, that nothing else on the machine moves and that outlives every bot.  A writer
    takes batches until the last one's index is its lowest card modulo 64; the writer is
    killed with its match, and a bot of a later match (a later generation of the same
    deal, another table) reads the card from the index of the next batch it takes."""
    needs(box, "bwrap", "seccomp")
    patient = TimeControl(move_ms=300, bank_ms=300, first_move_ms=10_000, startup_ms=5000)
    first = play(box, [bot_copy("rt-cookie-colluder", {"role.txt": "write"}), random_bot(), random_bot()],
                 reporters=[0], time_control=patient)
    wrote = first.report(0)
    deal = next(e for e in first.result.log if e["event"] == "deal")
    hand = deal["private"]["0"]["hand"]
    assert_clean(first)
    assert_nothing_left(first)  # the writer is gone
    second = play(box, [bot_copy("rt-cookie-colluder", {"role.txt": "read"}), random_bot(), random_bot()],
                  reporters=[0], seed=6)
    got = second.report(0)
    assert "wrote" not in wrote or wrote["wrote"] in hand, wrote
    assert got.get("read") is None or got["read"] not in hand or got["read"] != wrote.get("wrote"), (
        f"a later process read {got['read']} from the socket-cookie counter: the dead writer's hand was {hand} "
        f"(writer {wrote}, reader {got})")
    assert_clean(second)
    assert_nothing_left(second)
