"""A ruling that moves money, filed by one person and confirmed by another
(MBS 6.2; punto.table.claims): on the engine's rounds, each rule of the two
steps, and the refusals, each asserting the clause it cites."""

from __future__ import annotations

from decimal import Decimal

import pytest

from punto.errors import ActionError, PhaseError, RoleError
from punto.rules.cards import Card, parse_cards
from punto.rules.games import get_game
from punto.table import claims
from punto.table import irregularities as irr
from punto.table.events import ClaimConfirmed, ClaimRejected, RulingClaimed
from punto.table.irregularities import Ruling
from punto.table.limits import TableLimits
from punto.table.replay import ActionInputError, procedure_for
from punto.table.roles import Role
from punto.table.round import Phase, Round


def dealing(game: str = "tiger-baccarat", cards: str = "9H 2C") -> Round:
    r = Round(get_game(game), limits=TableLimits(Decimal(10), Decimal(1000)), round_id="r1")
    r.open()
    r.place_bet("ann", 1, "banker", Decimal(100))
    r.place_bet("bob", 2, "player", Decimal(50))
    r.close_betting()
    for card in parse_cards(cards):
        r.deal_card(card, "keyed")
    return r


def foreign(r: Round, role: Role) -> Ruling:
    return irr.foreign_card(r, Card.parse("QS"), role=role)


def test_mbs_6_2_a_claim_waits_and_nothing_else_is_written_meanwhile() -> None:
    r = dealing()
    claim = claims.file_claim(
        r, "foreign_card", {"card": "QS"}, foreign, by="dan", role=Role.DEALER
    )
    assert (claim.claim_id, claim.clause, claim.confirming) == ("c1", "5.1", Role.PIT_SUPERVISOR)
    assert r.pending_claim == claim
    assert not r.can_deal_card()
    assert not r.can_settle()
    with pytest.raises(PhaseError, match="a ruling is pending: claim c1") as waiting:
        r.deal_card(Card.parse("3D"), "keyed")
    assert waiting.value.clause == "5.1"
    with pytest.raises(PhaseError, match="a ruling is pending"):
        claims.file_claim(r, "foreign_card", {}, foreign, by="eve", role=Role.DEALER)
    assert r.void is None


def test_mbs_6_2_the_person_who_filed_it_does_not_confirm_it() -> None:
    r = dealing()
    claims.file_claim(r, "foreign_card", {"card": "QS"}, foreign, by="Dan", role=Role.DEALER)
    before = list(r.events)
    with pytest.raises(ActionError, match="another person confirms it") as own:
        claims.confirm_claim(r, foreign, by=" dan ", role=Role.SHIFT_MANAGER)
    assert own.value.clause == "5.1"
    with pytest.raises(RoleError) as low:
        claims.confirm_claim(r, foreign, by="pat", role=Role.DEALER)
    assert low.value.clause == "5.1"
    assert r.events == before
    ruling = claims.confirm_claim(r, foreign, by="pat", role=Role.PIT_SUPERVISOR)
    assert ruling == Ruling("5.1", "void")
    assert isinstance(r.events[-2], ClaimConfirmed)
    assert r.phase is Phase.VOID
    (record,) = claims.claim_records(r)
    assert (record.status, record.decided_by, record.decided_role) == (
        "confirmed",
        "pat",
        Role.PIT_SUPERVISOR,
    )


def test_mbs_6_1_a_void_not_covered_waits_for_a_gaming_shift_manager() -> None:
    r = dealing()

    def void(target: Round, role: Role) -> Ruling:
        return irr.unforeseen(target, "a dispute", void=True, role=role)

    claim = claims.file_claim(r, "unforeseen", {"reason": "a dispute", "void": True}, void,
                              by="pit", role=Role.PIT_MANAGER)  # fmt: skip
    assert (claim.clause, claim.confirming) == ("6.1", Role.SHIFT_MANAGER)
    with pytest.raises(RoleError) as refused:
        claims.confirm_claim(r, void, by="boss", role=Role.PIT_MANAGER)
    assert refused.value.clause == "6.1"
    assert claims.confirm_claim(r, void, by="shift", role=Role.SHIFT_MANAGER).consequence == "void"


def test_mbs_6_2_a_rejected_claim_moves_nothing_and_the_round_goes_on() -> None:
    r = dealing()
    claims.file_claim(r, "foreign_card", {"card": "QS"}, foreign, by="dan", role=Role.DEALER)
    with pytest.raises(RoleError):
        claims.reject_claim(r, by="eve", role=Role.DEALER, reason="no")
    with pytest.raises(ActionError, match="says why"):
        claims.reject_claim(r, by="pat", role=Role.PIT_SUPERVISOR, reason="  ")
    rejected = claims.reject_claim(r, by="pat", role=Role.PIT_SUPERVISOR, reason="ours")
    assert isinstance(rejected, ClaimRejected)
    assert r.pending_claim is None
    r.deal_card(Card.parse("KD"), "keyed")
    r.deal_card(Card.parse("3S"), "keyed")
    r.settle()
    assert r.nets() == {"ann": Decimal(-100), "bob": Decimal(50)}  # Player 9 over Banker 5
    # the person who filed one may withdraw it, in any position
    r2 = dealing()
    claims.file_claim(r2, "foreign_card", {}, foreign, by="dan", role=Role.DEALER)
    claims.reject_claim(r2, by="dan", role=Role.DEALER, reason="mistaken")
    assert claims.claim_records(r2)[0].status == "withdrawn"


def test_mbs_6_2_a_ruling_that_moves_no_money_needs_no_claim() -> None:
    r = dealing()

    def note(target: Round, role: Role) -> Ruling:
        return irr.card_face_up_in_device(target, role=role)

    with pytest.raises(ActionError, match="moves no money") as refused:
        claims.file_claim(r, "card_face_up_in_device", {}, note, by="dan", role=Role.DEALER)
    assert refused.value.clause == "5.6"
    assert not any(isinstance(e, RulingClaimed) for e in r.events)


def test_mbs_6_2_a_claim_is_applied_with_its_parameters_as_filed() -> None:
    r = dealing()
    run = procedure_for("foreign_card", {"card": "QS"})
    claims.file_claim(r, "foreign_card", {"card": "QS"}, run, by="dan", role=Role.DEALER)
    claim = r.pending_claim
    assert claim is not None
    assert claims.parameters_of(claim) == {"card": "QS"}
    again = procedure_for(claim.procedure, claims.parameters_of(claim))
    claims.confirm_claim(r, again, by="pat", role=Role.PIT_MANAGER)
    assert r.void is not None
    assert "(QS)" in r.void.reason
    with pytest.raises(ActionInputError, match="take no role"):
        procedure_for("foreign_card", {"role": "shift_manager"})


def test_mbs_6_2_the_wagers_a_pending_ruling_would_change() -> None:
    r = dealing(cards="9H 2C KD 3S")  # Player 9 over Banker 5: ann lost, bob won
    claims.file_claim(r, "foreign_card", {}, foreign, by="dan", role=Role.DEALER)
    changed = {(a.bet.player, a.now, a.then) for a in claims.affected(r, foreign)}
    assert changed == {("ann", "lost", "returned"), ("bob", "won", "returned")}
