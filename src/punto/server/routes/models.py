"""The shapes of the API's answers, for the OpenAPI description.

They document (and let a schema-driven test check) what the handlers
return; the handlers build plain dicts, so answering costs no validation.
Money is a decimal string with two places (``"12.50"``, ``"-3.00"``).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from punto.store.accounts import UserRole

#: An amount of money as the API writes it.
Money = Annotated[str, Field(pattern=r"^-?[0-9]+\.[0-9]{2}$", examples=["100.00"])]


class Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class UserOut(Out):
    id: int
    username: str
    role: UserRole


class MeOut(UserOut):
    #: a player's wallet balance (players only)
    balance: Money | None = None


class SessionOut(Out):
    user: MeOut | None


class LoginOut(Out):
    token: str
    token_type: str
    expires_at: str
    user: UserOut


class OkOut(Out):
    ok: bool


class HealthOut(Out):
    status: str
    database: str
    revision: str | None
    tables: int


class PostingOut(Out):
    kind: str
    amount: Money
    table_id: str | None
    round_id: str | None
    bet_id: str | None
    at: str
    #: the bet's exact value when it was placed (punto.server.tables.valuation.value_json)
    value_at_placement: dict[str, Any] | None = None


class WalletOut(Out):
    balance: Money
    postings: list[PostingOut]


class DepositOut(Out):
    username: str
    balance: Money


class BetJson(Out):
    bet_id: str
    wager: str
    stake: Money
    position: int | None
    status: str
    moment: str | None
    clause: str | None


class BetOut(Out):
    """A bet acknowledged: its stake is on the ledger and the bet in the round's log."""

    table_id: str
    round_id: str
    bet: BetJson
    balance: Money


class WithdrawnOut(Out):
    bet: BetJson
    balance: Money


class PlayerBetJson(BetJson):
    player: str


class DifferentialRequestJson(Out):
    """The Dealer's request (MBS 5.18.1, 5.18.2) while the differential is exceeded."""

    #: the hand asked to decrease (the highest total) and the one that may increase
    decrease: str | None
    increase: str | None
    #: decrease (5.18.1), increase (5.18.2), remove (5.18.3)
    clauses: dict[str, str | None]
    text: str


class DifferentialJson(Out):
    """The table differential of the round (MBS 5.18; RWS 5.1)."""

    limit: Money
    now: Money
    exceeded: bool
    clause: str | None
    policy: str | None
    heavier: str | None
    lighter: str | None
    #: whether the Dealer has asked (logged under 5.18.1 in the round)
    asked: bool
    request: DifferentialRequestJson | None


class BetChangedOut(Out):
    """A wager decreased (5.18.1) or removed (5.18.3); the difference is back on the ledger."""

    table_id: str
    round_id: str
    bet: PlayerBetJson
    #: what went back to the player's wallet
    returned: Money
    #: the player's balance after it
    balance: Money
    differential: DifferentialJson | None


class BalanceOut(Out):
    balance: Money


class RoundOpenedOut(Out):
    round_id: str
    deadline: float | None


class RoundClosedOut(Out):
    round_id: str
    rejected: list[str]


class CardOut(Out):
    round_id: str
    #: the card dealt and where the Table of Play put it; None when no card was
    #: dealt because the cut card came out first and the withdrawal option opened
    index: int | None
    card: str | None
    hand: str | None
    phase: str
    complete: bool
    #: the clause of the withdrawal option that opened instead (MBS 3.22.1), if one did
    withdrawal: str | None = None


class RoundIdOut(Out):
    round_id: str


class ShoeReplacedOut(Out):
    shoe_id: str
    #: the clause the cards were replaced under
    clause: str
    #: SHA-256 of the new shoe's nonce and order, published before its first coup
    commitment: str


class DeviceTokenOut(Out):
    table_id: str
    token: str


class LedgerOut(Out):
    trial_balance: Money
    totals: dict[str, Money]


class ParamOut(Out):
    """One parameter of an irregularity procedure, as the replay file writes it."""

    name: str
    #: the kind of value (docs/replay.md): text, int, flag, card?, cards, players, ...
    kind: str
    required: bool
    #: the value when it is not given (JSON)
    default: Any = None
    #: what the kind accepts, e.g. 'cards in order: "QH 9C" or ["QH", "9C"]'
    help: str


class ProcedureOut(Out):
    name: str
    summary: str
    params: list[ParamOut]


class ProceduresOut(Out):
    """The irregularity procedures the table's game covers."""

    table_id: str
    game: str
    procedures: list[ProcedureOut]
    #: procedures run through an endpoint of their own: name -> path under the table
    dedicated: dict[str, str]


class RulingOut(Out):
    """What a procedure ruled (as in a replay report's ``irregularities``)."""

    irregularity: str
    #: the position it was applied in (the user's own, or the confirming person's)
    role: str
    clause: str
    #: void / continue / withdrawal / options / reopened / offered / returned / stand
    consequence: str
    withdrawn: list[str] | None = None
    returned: list[str] | None = None
    next_round: list[str] | None = None
    missing: list[str] | None = None
    unused: list[str] | None = None


class VoidJson(Out):
    reason: str
    clause: str


class ClaimOut(Out):
    """A ruling filed by one person for another to confirm (MBS 6.2)."""

    claim_id: str
    procedure: str
    #: the procedure's parameters as filed (applied as they are when confirmed)
    parameters: dict[str, Any]
    clause: str
    filed_by: str
    filed_role: str
    #: the lowest position that may confirm it
    confirming: str
    #: pending / confirmed / rejected / withdrawn
    status: str
    decided_by: str | None
    decided_role: str | None
    reason: str | None


class IrregularityOut(Out):
    """A ruling applied (200), or filed as a claim that waits for a second
    person (202: ``pending``, ``claim``; no ``ruling`` yet)."""

    round_id: str
    #: the round's phase after the procedure
    phase: str
    #: true: filed as a claim, nothing moved yet
    pending: bool
    ruling: RulingOut | None = None
    claim: ClaimOut | None = None
    void: VoidJson | None = None
    #: cards held over, dealt first in the next round (RWS 5.8)
    held: list[str] | None = None
    #: a void's or a power failure's consequence (``pending`` while filed)
    consequence: str | None = None


def documented(model: type[BaseModel], status: int = 200, *also: int) -> dict[str, Any]:
    """Route options: the success answer has the shape of ``model`` (documented
    only: the handler's dict goes out as it is, unvalidated), with status
    ``status`` or any of ``also`` (a ruling filed as a claim: 202)."""
    return {
        "responses": {code: {"model": model} for code in (status, *also)},
        "response_model": None,
    }


class ShiftFiguresOut(Out):
    """A shift's figures: handle (total wagered), win (the house's result),
    hold (win / handle, percent; null with no handle), commission, rounds
    settled, players (distinct) and theoretical win (stake x exact house edge
    off the top; ``theoretical_win_exact`` the fraction itself)."""

    handle: Money
    win: Money
    hold: str | None
    commission: Money
    rounds: int
    players: int
    theoretical_win: Money
    theoretical_win_exact: str


class TableShiftOut(ShiftFiguresOut):
    table_id: str
    name: str
    game: str


class ShiftReportOut(Out):
    tables: list[TableShiftOut]
    #: money and rounds summed over the tables; players counted once
    total: ShiftFiguresOut


class ShiftInfoOut(Out):
    id: int
    open: bool
    opened_at: str
    opened_by: str
    opened_role: str
    closed_at: str | None
    closed_by: str | None
    closed_role: str | None


class ShiftOut(Out):
    """A shift and its report (open: as of now; closed: as it stood at closing);
    both null when no shift is open."""

    shift: ShiftInfoOut | None
    report: ShiftReportOut | None
