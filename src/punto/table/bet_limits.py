"""How a table's limits apply to the bets on its layout.

:mod:`punto.table.limits` holds the limits a table displays; this module
holds what the clauses do with them, for :class:`punto.table.round.Round`
(and the server, which asks the same questions):

* the playing positions a layout has (the appendices' "available with N to M
  playing positions": a table of that layout has N to M positions, numbered
  from 1);
* the number of wagers a playing area may hold (MBS 3.7: three, unless the
  Pit Manager restricts it to fewer, 3.7.1) -- by default, with no
  configuration, and never more than the rules allow;
* the maximum of a playing area (MBS 3.5.1) or betting box (RWS 3.6, 5.1):
  the area's wagers together, whoever placed them; at RWS tables seated
  players have priority and standing players take up the balance;
* which bets the House rejects when a box or the table differential is
  exceeded (RWS 5.1), never leaving a bet under the minimum (5.2);
* the stakes bets settle on after the limit policies (MBS 5.14, 5.15;
  RWS 5.1.1, 5.1.2).

The readings are written down in docs/interpretations.md ("Limits").
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from decimal import ROUND_DOWN, Decimal

from punto.errors import ActionError, LimitError
from punto.inputs import quoted
from punto.money import CENT, format_money
from punto.rules.game import Game
from punto.rules.insurance import Moment
from punto.table.limits import DIFFERENTIAL_WAGERS, TableLimits, differential_of
from punto.table.round_state import TableBet

#: The wagers-per-area policies of the game data, and the number each allows (MBS 3.7).
AREA_POLICIES: Mapping[str, int] = {"at-most-3": 3}

#: RWS 5.1: excess over the differential (or a box's maximum) is rejected, else pro rata.
REJECT_OR_PRO_RATA = "reject-excess-seated-first-else-pro-rata"

#: A playing area (MBS) or betting box (RWS): a position and one of its wagers.
Area = tuple[int, str]


# -- the table's configuration ----------------------------------------------------------------


def rules_wagers_per_area(game: Game) -> int | None:
    """How many wagers the game's rules allow in one playing area (None: no such clause)."""
    policy = game.limit_policy("wagers_per_area")
    return None if policy is None else AREA_POLICIES[policy]


def wagers_per_area(game: Game, limits: TableLimits) -> int | None:
    """The number of wagers a playing area holds at this table: the Pit
    Manager's lower number if the table sets one (MBS 3.7.1), else the rules'
    (3.7), with no configuration needed."""
    if limits.wagers_per_area is not None:
        return limits.wagers_per_area
    return rules_wagers_per_area(game)


def check_table_limits(game: Game, limits: TableLimits) -> None:
    """Refuse limits a clause of ``game`` does not allow the table to set.

    >>> from punto.rules.games import get_game
    >>> check_table_limits(get_game("dragon-tiger"), TableLimits(Decimal(10), Decimal(100), wagers_per_area=5))
    Traceback (most recent call last):
    ...
    punto.errors.LimitError: a Pit Manager may restrict a playing area to fewer than 3 wagers, not 5 (clause 3.7.1); give 1 to 3, or leave wagers_per_area out for the rules' 3
    """
    asked = limits.wagers_per_area
    if asked is None:
        return
    allowed = rules_wagers_per_area(game)
    if allowed is None:
        raise LimitError(
            f"{game.title} has no rule on the number of wagers per playing area",
            hint="leave wagers_per_area out",
        )
    if asked > allowed:
        raise LimitError(
            f"a Pit Manager may restrict a playing area to fewer than {allowed} wagers, "
            f"not {asked}",
            clause=game.clause("wagers_per_area_fewer"),
            hint=f"give 1 to {allowed}, or leave wagers_per_area out for the rules' {allowed}",
        )


def check_limit_wagers(game: Game, limits: TableLimits, layout: str | None) -> None:
    """Refuse limits for a wager ``game`` does not offer at ``layout``: a
    misspelt wager would silently leave the real one at the table's limits
    (3.5.1).  The one check for every reader of table limits (a replay
    file, the table server's configuration).

    >>> from punto.rules.games import get_game
    >>> check_limit_wagers(get_game("dragon-tiger"), TableLimits.from_json(
    ...     {"minimum": "10", "maximum": "100", "wagers": {"tigre": {"minimum": "10", "maximum": "50"}}}), None)
    Traceback (most recent call last):
    ...
    punto.errors.LimitError: limits.wagers: dragon-tiger offers no 'tigre' (clause 3.5.1); wagers: player, banker, tie, dragon_tiger, big_dragon, small_dragon, big_tiger, small_tiger
    """
    offered = game.offered(layout)
    unknown = [w for w in limits.wagers if w not in offered]
    if unknown:
        raise LimitError(
            f"limits.wagers: {game.id} offers no {', '.join(quoted(w) for w in unknown[:5])}"
            + (f" on layout {layout}" if layout else ""),
            clause=game.clause("bet_limits"),
            hint=f"wagers: {', '.join(offered)}",
        )


def positions(game: Game, layout: str | None) -> tuple[int, int]:
    """The playing positions of a table of ``layout``: 1 to the most the
    layout's appendix allows ("available with N to M playing positions" is
    the number of positions, N to M, not their numbers)."""
    if layout is None:
        return 1, max(entry.positions[1] for entry in game.layouts.values())
    return 1, game.layouts[layout].positions[1]


def check_position(game: Game, layout: str | None, position: int) -> None:
    low, high = positions(game, layout)
    if not low <= position <= high:
        clause = None if layout is None else game.layouts[layout].clause
        raise ActionError(
            f"there is no playing position {position} at this table",
            clause=clause,
            hint=f"positions are {low} to {high}",
        )


# -- placing a bet ----------------------------------------------------------------------------


def area_maximum(game: Game, limits: TableLimits, wager: str) -> Decimal:
    """The most one playing area / betting box of ``wager`` holds, all its
    bets together: the table maximum (MBS 3.5.1; RWS 3.5, 3.6), and at an RWS
    table no more than the maximum Differential for a Player or Banker box
    (5.1: "until the maximum Differential of the table is reached for that
    betting box")."""
    maximum = limits.for_wager(wager).maximum
    if (
        game.limit_policy("differential") == REJECT_OR_PRO_RATA
        and wager in DIFFERENTIAL_WAGERS
        and limits.differential is not None
    ):
        return min(maximum, limits.differential)
    return maximum


def check_bet_limits(
    game: Game,
    limits: TableLimits,
    active: Sequence[TableBet],
    *,
    player: str,
    position: int,
    wager: str,
    stake: Decimal,
    seated: bool,
    enforce_limits: bool,
) -> None:
    """Refuse a bet the table's limits do not allow in its area, with the clause
    (``active``: the active bets of the round, or of the area alone)."""
    area = [b for b in active if b.position == position and b.wager == wager]
    per_area = wagers_per_area(game, limits)
    # A wager is one player's stake in the area: a player adding to their own
    # wager there does not make another one.
    wagers = {b.player for b in area}
    if per_area is not None and player not in wagers and len(wagers) >= per_area:
        fewer = limits.wagers_per_area is not None and limits.wagers_per_area < (
            rules_wagers_per_area(game) or 0
        )
        raise LimitError(
            f"the {wager} area of position {position} already holds {_wagers(len(wagers))}",
            clause=game.clause("wagers_per_area_fewer" if fewer else "wagers_per_area"),
            hint=f"at most {_wagers(per_area)} per playing area at this table; bet in another area",
        )
    if not enforce_limits:
        return
    limit = limits.for_wager(wager)
    if stake < limit.minimum:
        raise LimitError(
            f"{wager} {format_money(stake)} is under the table minimum of "
            f"{format_money(limit.minimum)}",
            clause=game.clause("under_minimum")
            if game.limit_policy("under_minimum") == "advise-else-settle-as-placed"
            else game.clause("bet_limits"),
            hint="raise the stake to the minimum, or withdraw it",
        )
    maximum = area_maximum(game, limits, wager)
    if game.clause("standing_player") is not None and seated:
        # RWS 5.1: seated players have the priority; a standing player's bet
        # beyond the balance is then the excess the House rejects.
        held = sum((b.stake for b in area if b.seated), Decimal(0))
        whose = f"the seated bets of the {wager} box of position {position}"
    else:
        held = sum((b.stake for b in area), Decimal(0))
        kind = "area" if game.clause("standing_player") is None else "box"
        whose = f"the {wager} {kind} of position {position}"
    if held + stake > maximum:
        room = max(maximum - held, Decimal(0))
        raise LimitError(
            f"{wager} {format_money(stake)} would take {whose} to "
            f"{format_money(held + stake)}, over its maximum of {format_money(maximum)}",
            clause=_maximum_clause(game, limits, wager, seated),
            hint=f"stake at most {format_money(room)} there"
            if room
            else "it is full; bet in another area",
        )


def _wagers(count: int) -> str:
    return f"{count} wager" if count == 1 else f"{count} wagers"


def _maximum_clause(game: Game, limits: TableLimits, wager: str, seated: bool) -> str | None:
    """MBS 3.5.1; at RWS tables 3.6 for a standing player taking up the
    balance, 5.1 where the box's maximum is the maximum Differential, 3.5 else."""
    if game.clause("standing_player") is None:
        return game.clause("bet_limits")
    if not seated:
        return game.clause("box_balance")
    if area_maximum(game, limits, wager) < limits.for_wager(wager).maximum:
        return game.clause("differential")
    return game.clause("bet_limits")


# -- the excess (RWS 5.1) -----------------------------------------------------------------------


def box_excess(game: Game, limits: TableLimits, active: Sequence[TableBet]) -> dict[Area, Decimal]:
    """Each Player or Banker box holding more than its maximum, and by how much (RWS 5.1)."""
    if game.limit_policy("differential") != REJECT_OR_PRO_RATA:
        return {}
    held: dict[Area, Decimal] = defaultdict(Decimal)
    for bet in active:
        if bet.wager in DIFFERENTIAL_WAGERS:
            held[(bet.position, bet.wager)] += bet.stake
    return {
        area: total - area_maximum(game, limits, area[1])
        for area, total in held.items()
        if total > area_maximum(game, limits, area[1])
    }


def excess_cuts(
    game: Game, limits: TableLimits, active: Sequence[TableBet]
) -> list[tuple[str, Decimal]]:
    """The bets the House rejects (RWS 5.1) and the stake each keeps: first
    each box over its maximum, then the heavier side over the table
    differential; standing players' latest bets first, then seated players'.
    A bet is never left under the minimum: if what would remain of it is
    under the minimum, all of it is rejected (5.2 does not let such a bet
    stand)."""
    stakes = {b.bet_id: b.stake for b in active}
    cuts: dict[str, Decimal] = {}

    def take(bets: Iterable[TableBet], excess: Decimal) -> None:
        for bet in sorted(bets, key=lambda b: (b.seated, -b.order)):
            if excess <= 0:
                return
            left = stakes[bet.bet_id]
            if not left:
                continue
            keep = max(left - excess, Decimal(0))
            if 0 < keep < limits.for_wager(bet.wager).minimum:
                keep = Decimal(0)
            excess -= left - keep
            stakes[bet.bet_id] = cuts[bet.bet_id] = keep  # in the order they are cut

    for (position, wager), excess in box_excess(game, limits, active).items():
        take((b for b in active if b.position == position and b.wager == wager), excess)
    if limits.differential is not None:
        totals: dict[str, Decimal] = defaultdict(Decimal)
        for bet in active:
            totals[bet.wager] += stakes[bet.bet_id]
        excess = differential_of(totals) - limits.differential
        if excess > 0:
            heavy = max(DIFFERENTIAL_WAGERS, key=lambda w: totals.get(w, Decimal(0)))
            take((b for b in active if b.wager == heavy), excess)
    return list(cuts.items())


def scale_down(
    stakes: Sequence[Decimal], *, allowed: Decimal, minimum: Decimal, minor_unit: Decimal = CENT
) -> list[Decimal]:
    """Stakes scaled pro rata so that together they come to no more than
    ``allowed`` (RWS 5.1.1), rounded down to the minor unit.

    A stake already under the minimum is not scaled (5.1.2) and counts in
    full; a scaled stake never goes below the minimum (5.1.1): such a stake
    settles on the minimum and the others share what is left.  Only when the
    minimums alone exceed ``allowed`` does the total stay above it.

    >>> scale_down([Decimal(3000), Decimal(1000), Decimal(50), Decimal(150)],
    ...            allowed=Decimal(2500), minimum=Decimal(100))
    [Decimal('1762.50'), Decimal('587.50'), Decimal('50'), Decimal('100')]
    """
    if sum(stakes, Decimal(0)) <= allowed:
        return list(stakes)
    out = list(stakes)
    fixed = {i for i, stake in enumerate(stakes) if stake < minimum}
    while True:
        free = [i for i in range(len(stakes)) if i not in fixed]
        budget = allowed - sum((out[i] for i in fixed), Decimal(0))
        free_total = sum((stakes[i] for i in free), Decimal(0))
        if not free:
            return out
        floored = [i for i in free if stakes[i] * budget < minimum * free_total]
        if not floored:
            for i in free:
                out[i] = (stakes[i] * budget / free_total).quantize(minor_unit, rounding=ROUND_DOWN)
            return out
        for i in floored:
            out[i] = minimum
            fixed.add(i)


# -- settling ---------------------------------------------------------------------------------


def settled_stakes(
    game: Game,
    limits: TableLimits,
    active: Sequence[TableBet],
    *,
    under_minimum_settled: frozenset[str],
    minor_unit: Decimal = CENT,
) -> tuple[dict[str, Decimal], dict[str, str], dict[str, str]]:
    """The stake each active bet settles on after the game's limit policies,
    the clause that changed it, and the bets returned instead (MBS 5.14; 5.15
    when nothing of a wager is within its area's maximum)."""
    stakes = {b.bet_id: b.stake for b in active}
    clauses: dict[str, str] = {}
    returned: dict[str, str] = {}
    under = game.limit_policy("under_minimum")
    over = game.limit_policy("over_maximum")
    used: dict[Area, Decimal] = defaultdict(Decimal)
    for bet in sorted(active, key=lambda b: b.order):
        if bet.moment is not None:
            if bet.late:
                clauses[bet.bet_id] = game.clause("insurance_forgotten_open") or ""
            continue
        limit = limits.for_wager(bet.wager)
        if bet.stake < limit.minimum and under == "settle-once-then-return":
            clause = game.clause("under_minimum") or ""
            # "one time only": later rounds return it; within this round every
            # under-minimum wager of the player is the one time.
            if bet.player in under_minimum_settled:
                returned[bet.bet_id] = clause
            else:
                clauses[bet.bet_id] = clause
        if over == "settle-to-maximum" and bet.bet_id not in returned:
            # 5.15 on the area's wager (3.5.1): the wagers placed first are
            # within the maximum, a later one only to what is left of it.
            area = (bet.position, bet.wager)
            room = max(limit.maximum - used[area], Decimal(0))
            used[area] += bet.stake
            if bet.stake <= room:
                continue
            clause = game.clause("over_maximum") or ""
            if room:
                stakes[bet.bet_id], clauses[bet.bet_id] = room, clause
            else:
                returned[bet.bet_id] = clause  # none of it is within the maximum
    if game.limit_policy("differential") == REJECT_OR_PRO_RATA:
        _pro_rata(game, limits, active, stakes, clauses, minor_unit)
    _insurance_on_standing_bets(game, active, stakes, clauses, returned)
    return stakes, clauses, returned


def _insurance_on_standing_bets(
    game: Game,
    active: Sequence[TableBet],
    stakes: dict[str, Decimal],
    clauses: dict[str, str],
    returned: dict[str, str],
) -> None:
    """RWS 3.11, 3.12.2: Insurance insures the Original Bet, and its total at
    each offer may not exceed it -- the Original Bet that stands at
    settlement, after a pro rata (5.1.1) or a return (5.14.2; the returned bet
    is no longer in ``active``).  What exceeds it insures nothing and comes
    back; the bets placed first are the ones within it.  An Insurance bet
    placed while its Original Bet stood keeps its odds and its moment."""
    standing: dict[tuple[str, str], Decimal] = defaultdict(Decimal)
    changed: dict[tuple[str, str], str] = {}
    for bet in active:
        if bet.moment is None and bet.bet_id not in returned:
            standing[(bet.player, bet.wager)] += stakes[bet.bet_id]
            if bet.bet_id in clauses:
                changed[(bet.player, bet.wager)] = clauses[bet.bet_id]
    used: dict[tuple[str, str, Moment], Decimal] = defaultdict(Decimal)
    for bet in sorted(active, key=lambda b: b.order):
        if bet.moment is None:
            continue
        # player_insurance insures the player wager, banker_insurance the banker
        key = (bet.player, bet.wager.removesuffix("_insurance"))
        room = max(standing[key] - used[(*key, bet.moment)], Decimal(0))
        used[(*key, bet.moment)] += stakes[bet.bet_id]
        if stakes[bet.bet_id] <= room:
            continue
        # the clause that changed the Original Bet, else 3.11's: none stands
        clause = changed.get(key) or game.clause("insurance_original") or ""
        if room:
            stakes[bet.bet_id], clauses[bet.bet_id] = room, clause
        else:
            returned[bet.bet_id] = clause


def _pro_rata(
    game: Game,
    limits: TableLimits,
    active: Sequence[TableBet],
    stakes: dict[str, Decimal],
    clauses: dict[str, str],
    minor_unit: Decimal,
) -> None:
    """RWS 5.1.1: an excess not rejected wins or loses pro rata -- first in
    each box over its maximum, then on the heavier side over the table
    differential, each time so that the bets settle on no more than allowed."""
    clause = game.clause("differential_pro_rata") or ""
    minimum = limits.minimum

    def scale(bets: Sequence[TableBet], allowed: Decimal) -> None:
        scaled = scale_down(
            [stakes[b.bet_id] for b in bets],
            allowed=allowed,
            minimum=minimum,
            minor_unit=minor_unit,
        )
        for bet, stake in zip(bets, scaled, strict=True):
            if stake != stakes[bet.bet_id]:
                stakes[bet.bet_id] = stake
                clauses[bet.bet_id] = clause

    boxes: dict[Area, list[TableBet]] = defaultdict(list)
    for bet in active:
        if bet.wager in DIFFERENTIAL_WAGERS:
            boxes[(bet.position, bet.wager)].append(bet)
    for (_, wager), bets in boxes.items():
        scale(bets, area_maximum(game, limits, wager))
    if limits.differential is None:
        return
    totals = {
        w: sum((stakes[b.bet_id] for b in active if b.wager == w), Decimal(0))
        for w in DIFFERENTIAL_WAGERS
    }
    heavy = max(DIFFERENTIAL_WAGERS, key=lambda w: totals[w])
    light = "banker" if heavy == "player" else "player"
    scale([b for b in active if b.wager == heavy], totals[light] + limits.differential)


def newly_under_minimum(game: Game, outcomes: Iterable[tuple[str, str, str | None]]) -> set[str]:
    """Players whose under-minimum wager this round was paid or collected
    (MBS 5.14 "paid one time only ... collected one time only"), from
    (player, outcome, clause) of the round's settlements.  A push is neither
    paid nor collected, so it does not use up the one time."""
    if game.limit_policy("under_minimum") != "settle-once-then-return":
        return set()
    clause = game.clause("under_minimum")
    return {
        player
        for player, outcome, settled_under in outcomes
        if settled_under == clause and outcome in ("win", "lose")
    }
