"""Wagers that favour the player: the exact house edge off
the top of every wager a table offers, and the pit manager's confirmation a
negative edge needs (:mod:`punto.protection.edges`)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from punto.analysis.composition import Composition
from punto.analysis.tables import odds_table
from punto.errors import RoleError
from punto.protection.edges import (
    PlayerFavouredError,
    check_confirmed,
    exact,
    operator_confirmations,
    table_edges,
    unconfirmed,
)
from punto.rules.games import all_games, get_game
from punto.rules.roles import Role
from punto.rules.wagers import PairRule

#: Tiger Baccarat 1.1.14 read literally: an explicit option, the one reading of
#: a game's default wagers that favours the player (docs/interpretations.md).
LITERAL = PairRule.LITERAL


def test_tiger_baccarat_1_1_14_tiger_pair_favours_the_house_by_default() -> None:
    edges = table_edges("tiger-baccarat", None, 8)
    assert not [e.wager for e in edges if e.player_favoured]
    assert check_confirmed(edges, (), role=None) == ()


def test_tiger_baccarat_1_1_14_literal_tiger_pair_returns_the_player_37_66_percent() -> None:
    edges = {e.wager: e for e in table_edges("tiger-baccarat", None, 8, LITERAL)}
    pair = edges["tiger_pair"]
    assert pair.player_favoured
    assert f"{pair.edge_float:.4%}" == "-37.6587%"
    assert "1.1.14" in pair.clause.split(", ")
    # the only one: every other wager keeps an edge for the house
    assert [e.wager for e in edges.values() if e.player_favoured] == ["tiger_pair"]
    # under the rank reading (the default) Tiger Pair is the house's (16.12%)
    rank = {e.wager: e for e in table_edges("tiger-baccarat", None, 8)}
    assert f"{rank['tiger_pair'].edge_float:.2%}" == "16.12%"


@pytest.mark.parametrize("game", [g.id for g in all_games()])
def test_table_edges_are_punto_odds_figures_exactly(game: str) -> None:
    found = get_game(game)
    layout = next(iter(found.layouts)) if found.layouts_differ else None
    for decks in (found.decks.minimum, 8):
        table = odds_table(found, Composition.of_decks(decks), layout)
        edges = table_edges(game, layout, decks)
        assert [e.wager for e in edges] == list(table.wagers)
        for e in edges:
            assert e.edge == table.wagers[e.wager].house_edge_exact
            assert e.variance == table.wagers[e.wager].variance_exact
            assert e.clause == found.wagers[e.wager].clause


def test_tiger_baccarat_1_1_14_tiger_pair_refused_without_a_pit_managers_confirmation() -> None:
    edges = table_edges("tiger-baccarat", None, 8, LITERAL)
    with pytest.raises(PlayerFavouredError) as refused:
        check_confirmed(edges, ())
    error = refused.value
    assert error.message.startswith("tiger_pair has a house edge of -37.6587% (")
    assert exact(next(e.edge for e in edges if e.wager == "tiger_pair")) in error.message
    assert error.clause is not None
    assert "1.1.14" in error.clause
    assert error.hint is not None
    assert "pit manager must confirm" in error.hint


@pytest.mark.parametrize("role", [Role.DEALER, Role.PIT_SUPERVISOR, None])
def test_tiger_baccarat_1_1_14_tiger_pair_refused_when_a_non_manager_confirms(
    role: Role | None,
) -> None:
    edges = table_edges("tiger-baccarat", None, 8, LITERAL)
    with pytest.raises(RoleError) as refused:
        check_confirmed(edges, (), confirming=["tiger_pair"], role=role, by="someone")
    assert refused.value.clause == "6.2"
    assert refused.value.hint is not None
    assert "pit manager or higher" in refused.value.hint


@pytest.mark.parametrize("role", [Role.PIT_MANAGER, Role.SHIFT_MANAGER])
def test_tiger_baccarat_1_1_14_tiger_pair_accepted_with_a_managers_confirmation(
    role: Role,
) -> None:
    edges = table_edges("tiger-baccarat", None, 8, LITERAL)
    (confirmation,) = check_confirmed(edges, (), confirming=["tiger_pair"], role=role, by="pat")
    assert (confirmation.wager, confirmation.by, confirmation.role) == (
        "tiger_pair",
        "pat",
        role.value,
    )
    edge = next(e.edge for e in edges if e.wager == "tiger_pair")
    assert Fraction(confirmation.edge) == edge
    # kept with the table: a later change needs no new confirmation ...
    assert check_confirmed(edges, (confirmation,)) == (confirmation,)
    assert unconfirmed(edges, (confirmation,)) == []
    # ... unless the edge changes (another number of decks): that one is new
    six = table_edges("tiger-baccarat", None, 6, LITERAL)
    with pytest.raises(PlayerFavouredError):
        check_confirmed(six, (confirmation,))


def test_a_table_whose_every_wager_favours_the_house_needs_no_confirmation() -> None:
    for game, layout in (
        ("dragon-tiger", None),
        ("tiger-buffalo", "A"),
        ("tiger-no-commission", None),
    ):
        edges = table_edges(game, layout, 8)
        assert all(e.edge > 0 for e in edges)
        assert check_confirmed(edges, (), role=None) == ()


def test_the_operators_confirmation_names_the_operator_not_a_pit_manager() -> None:
    edges = table_edges("tiger-baccarat", None, 8, LITERAL)
    (c,) = operator_confirmations(edges, "punto serve --demo (the operator)")
    assert (c.wager, c.role, c.by) == (
        "tiger_pair",
        "operator",
        "punto serve --demo (the operator)",
    )
    assert check_confirmed(edges, (c,)) == (c,)
