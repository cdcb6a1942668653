"""Each client address's share of the requests running at once
(:class:`punto.server.security.fair_share.FairShare`), called directly: a lone
address is never held, a flood waits behind its own share while a player's
request goes in at once, waiting requests go in first come first served
within an address and the address with fewest running first, and a request
given up while waiting leaves no place taken.  Fast enough for each mutant
of ``benchmarks/mutation.py fair_share``; through the guard, in
``test_fair_share.py``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from punto.server.security import fair_share
from punto.server.security.fair_share import FLOOR, RECENT, RUNNING, FairShare


class Clock:
    """The shares' clock, moved by hand."""

    def __init__(self) -> None:
        self.now = 500.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    made = Clock()
    monkeypatch.setattr(fair_share, "time", made)
    return made


class Requests:
    """Requests through ``fair``, each held in the application until released."""

    def __init__(self, fair: FairShare) -> None:
        self.fair = fair
        self.order: list[str] = []  # who went in, in order
        self.gates: dict[str, asyncio.Event] = {}
        self.tasks: dict[str, asyncio.Task[None]] = {}

    def send(self, address: str, name: str) -> None:
        gate = self.gates[name] = asyncio.Event()

        async def request() -> None:
            async with self.fair.turn(address):
                self.order.append(name)
                await gate.wait()

        self.tasks[name] = asyncio.create_task(request())

    async def end(self, *names: str) -> None:
        for name in names:
            self.gates[name].set()
            await self.tasks[name]
        await settle()


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    async def main() -> None:
        await scenario()

    asyncio.run(main())


def test_the_defaults() -> None:
    fair = FairShare()
    assert (fair.running, fair.floor, fair.recent) == (RUNNING, FLOOR, RECENT) == (16, 2, 2.0)


def test_one_address_alone_has_no_limit_and_several_share_the_running(clock: Clock) -> None:
    fair = FairShare(running=12, floor=3, recent=2.0)
    assert fair.share() is None
    fair.see("10.0.0.1")
    assert fair.share() is None
    fair.see("10.0.0.2")
    assert fair.share() == 6
    fair.see("10.0.0.3")
    assert fair.share() == 4
    fair.see("10.0.0.4")
    fair.see("10.0.0.5")
    assert fair.share() == 3  # 12 // 5 is 2, but never under the floor


def test_an_address_is_present_for_recent_seconds_after_its_last_request(clock: Clock) -> None:
    fair = FairShare(running=8, floor=1, recent=2.0)
    fair.see("10.0.0.1")
    clock.now += 1.0
    fair.see("10.0.0.2")
    clock.now += 1.0  # the first seen two seconds ago, to the dot: still present
    assert fair.share() == 4
    clock.now += 0.01
    assert fair.share() is None  # the first gone, the second alone
    assert list(fair.seen) == ["10.0.0.2"]
    fair.see("10.0.0.3")
    fair.see("10.0.0.2")  # seen again: the newest
    assert list(fair.seen) == ["10.0.0.3", "10.0.0.2"]
    clock.now += 1.5
    fair.see("10.0.0.4")
    clock.now += 1.0
    # the two seen 2.5 s ago are gone, the one seen 1 s ago is not
    assert fair.share() is None
    assert list(fair.seen) == ["10.0.0.4"]


def test_a_lone_address_runs_every_request_at_once() -> None:
    async def scenario() -> None:
        fair = FairShare(running=4, floor=1, recent=60)
        requests = Requests(fair)
        for i in range(10):
            requests.send("10.0.0.9", f"r{i}")
        await settle()
        assert fair.inside["10.0.0.9"] == 10
        assert not fair.waiting
        await requests.end(*(f"r{i}" for i in range(10)))
        assert not fair.inside

    run(scenario)


def test_a_flood_waits_behind_its_share_and_a_players_request_goes_in_at_once() -> None:
    async def scenario() -> None:
        fair = FairShare(running=4, floor=1, recent=60)
        requests = Requests(fair)
        fair.see("10.0.0.1")  # a player at the table
        for i in range(5):
            requests.send("10.0.0.9", f"f{i}")
        await settle()
        assert requests.order == ["f0", "f1"]  # its share: 4 among two
        assert len(fair.waiting["10.0.0.9"]) == 3
        requests.send("10.0.0.1", "bet")
        await settle()
        assert requests.order[-1] == "bet"
        # the flood's places come back one for one, first come first served
        await requests.end("f0")
        assert requests.order[-1] == "f2"
        await requests.end("f1")
        assert requests.order[-1] == "f3"
        assert fair.inside["10.0.0.9"] == 2
        await requests.end("bet", "f2", "f3")
        await requests.end("f4")
        assert requests.order == ["f0", "f1", "bet", "f2", "f3", "f4"]
        assert not fair.inside
        assert not fair.waiting

    run(scenario)


def test_a_request_of_an_address_that_has_some_waiting_waits_behind_them() -> None:
    async def scenario() -> None:
        fair = FairShare(running=4, floor=1, recent=60)
        requests = Requests(fair)
        fair.see("10.0.0.1")
        for i in range(3):
            requests.send("10.0.0.9", f"f{i}")
        await settle()
        assert requests.order == ["f0", "f1"]
        # make room without admitting anyone: the next of the address is not let
        # past the one already waiting
        fair.inside["10.0.0.9"] -= 1
        requests.send("10.0.0.9", "late")
        await settle()
        assert requests.order == ["f0", "f1"]
        assert len(fair.waiting["10.0.0.9"]) == 2
        fair.inside["10.0.0.9"] += 1
        await requests.end("f0")
        assert requests.order == ["f0", "f1", "f2"]
        await requests.end("f1")
        assert requests.order == ["f0", "f1", "f2", "late"]
        await requests.end("f2", "late")
        assert not fair.inside
        assert not fair.waiting

    run(scenario)


def test_the_address_with_fewest_running_goes_in_first() -> None:
    async def scenario() -> None:
        fair = FairShare(running=6, floor=1, recent=60)
        requests = Requests(fair)
        # three addresses: a share of 2 each
        for i in range(4):
            requests.send("10.0.0.1", f"a{i}")
        await settle()
        for i in range(3):
            requests.send("10.0.0.2", f"b{i}")
        fair.see("10.0.0.3")
        await settle()
        # a alone at first: all four of a went in; b has its share of 2
        assert requests.order == ["a0", "a1", "a2", "a3", "b0", "b1"]
        assert list(fair.waiting) == ["10.0.0.2"]
        requests.send("10.0.0.1", "a4")
        await settle()
        assert set(fair.waiting) == {"10.0.0.1", "10.0.0.2"}
        # one of b ends: b has 1 running, a 4: b's waiting one goes in, not a's
        await requests.end("b0")
        assert requests.order[-1] == "b2"
        await requests.end("a0", "a1")
        assert "a4" not in requests.order  # a still has its share running
        await requests.end("a2")
        assert requests.order[-1] == "a4"
        await requests.end("a3", "a4", "b1", "b2")
        assert not fair.inside
        assert not fair.waiting

    run(scenario)


def test_when_places_free_at_once_the_emptier_address_is_served_first() -> None:
    """Two addresses waiting, one running fewer than the other: when the
    share grows, the one running fewer goes in first, though it came last."""

    async def scenario() -> None:
        fair = FairShare(running=4, floor=1, recent=60)
        fair.see("10.0.0.1")
        fair.see("10.0.0.2")  # two present: a share of 2
        # requests held here, by hand: two of 10.0.0.1's, one of 10.0.0.2's
        held = [fair.turn("10.0.0.1"), fair.turn("10.0.0.1"), fair.turn("10.0.0.2")]
        for turn in held:
            await turn.__aenter__()
        fair.see("10.0.0.3")  # three present: a share of 1
        requests = Requests(fair)
        requests.send("10.0.0.1", "a")  # the busier address asks first
        requests.send("10.0.0.2", "b")
        await settle()
        assert requests.order == []
        fair.running = 9  # a share of 3: both have room
        third = fair.turn("10.0.0.3")
        await third.__aenter__()
        await third.__aexit__(None, None, None)  # a request ends: who waits goes in
        await settle()
        assert requests.order == ["b", "a"]
        for turn in held:
            await turn.__aexit__(None, None, None)
        await requests.end("a", "b")
        assert not fair.inside
        assert not fair.waiting

    run(scenario)


def test_an_address_with_a_request_running_stays_present_however_long(clock: Clock) -> None:
    async def scenario() -> None:
        fair = FairShare(running=4, floor=1, recent=2.0)
        requests = Requests(fair)
        requests.send("10.0.0.1", "long")
        await settle()
        clock.now += 30
        fair.see("10.0.0.9")
        assert fair.share() == 2  # the long request's address still counts
        clock.now += 30
        fair.see("10.0.0.8")
        assert fair.share() == 2  # the long one's and the newcomer's; 10.0.0.9 gone
        assert set(fair.seen) == {"10.0.0.1", "10.0.0.8"}
        await requests.end("long")

    run(scenario)


def test_an_address_with_requests_waiting_stays_present(clock: Clock) -> None:
    async def scenario() -> None:
        fair = FairShare(running=2, floor=1, recent=2.0)
        requests = Requests(fair)
        fair.see("10.0.0.1")
        requests.send("10.0.0.9", "f0")
        requests.send("10.0.0.9", "f1")
        await settle()
        assert requests.order == ["f0"]
        del fair.inside["10.0.0.9"]  # as if f0 were out, f1 still waiting
        clock.now += 30
        fair.see("10.0.0.1")
        assert fair.share() == 1  # the waiting address still counts
        fair.inside["10.0.0.9"] = 1
        await requests.end("f0", "f1")

    run(scenario)


def test_a_request_given_up_while_waiting_leaves_no_place_taken() -> None:
    async def scenario() -> None:
        fair = FairShare(running=4, floor=1, recent=60)
        requests = Requests(fair)
        fair.see("10.0.0.1")
        for i in range(4):
            requests.send("10.0.0.9", f"f{i}")
        await settle()
        requests.tasks["f2"].cancel()
        await settle()
        assert len(fair.waiting["10.0.0.9"]) == 1
        await requests.end("f0")
        assert requests.order == ["f0", "f1", "f3"]
        requests.tasks["f1"].cancel()
        await settle()
        await requests.end("f3")
        assert not fair.inside
        assert not fair.waiting
        # the last waiting one given up: the address's queue goes
        for i in range(4, 7):
            requests.send("10.0.0.9", f"f{i}")
        await settle()
        requests.tasks["f6"].cancel()
        await settle()
        assert "10.0.0.9" not in fair.waiting
        await requests.end("f4", "f5")
        assert not fair.waiting
        assert not fair.inside

    run(scenario)


def test_a_request_given_up_as_it_was_admitted_gives_its_place_back() -> None:
    async def scenario() -> None:
        fair = FairShare(running=2, floor=1, recent=60)
        requests = Requests(fair)
        fair.see("10.0.0.1")
        first = fair.turn("10.0.0.9")  # a request held here, by hand
        await first.__aenter__()
        for i in (1, 2):
            requests.send("10.0.0.9", f"f{i}")
        await settle()
        assert requests.order == []
        # the first ends and f1 is admitted; f1's client goes away before it runs
        await first.__aexit__(None, None, None)
        assert fair.inside["10.0.0.9"] == 1
        requests.tasks["f1"].cancel()
        await settle()
        # its place was handed on to f2
        assert requests.order == ["f2"]
        assert fair.inside["10.0.0.9"] == 1
        await requests.end("f2")
        assert not fair.inside
        assert not fair.waiting

    run(scenario)


def test_a_finished_request_is_seen_when_it_ends(clock: Clock) -> None:
    async def scenario() -> None:
        fair = FairShare(running=4, floor=1, recent=2.0)
        requests = Requests(fair)
        requests.send("10.0.0.1", "r")
        await settle()
        clock.now += 10
        await requests.end("r")
        clock.now += 1.5
        fair.see("10.0.0.2")
        assert fair.share() == 2  # the first left 1.5 s ago: still present

    run(scenario)


def test_a_request_given_up_after_its_queue_was_emptied_is_still_given_up() -> None:
    """The client goes away while the request waits, and before its task
    notices, a place frees and the queue (holding only its ticket) is
    cleared: the request ends as given up, nothing else."""

    async def scenario() -> None:
        fair = FairShare(running=2, floor=1, recent=60)
        fair.see("10.0.0.1")
        first = fair.turn("10.0.0.9")
        await first.__aenter__()
        requests = Requests(fair)
        requests.send("10.0.0.9", "f1")
        await settle()
        assert len(fair.waiting["10.0.0.9"]) == 1
        requests.tasks["f1"].cancel()
        await first.__aexit__(None, None, None)  # before f1's task runs again
        assert "10.0.0.9" not in fair.waiting
        await settle()
        assert requests.tasks["f1"].cancelled()
        assert requests.order == []
        assert not fair.inside
        assert not fair.waiting

    run(scenario)
