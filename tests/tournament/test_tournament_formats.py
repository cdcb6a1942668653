"""Tournament formats as data: the shipped formats, and every refusal of a bad one.

A format that would fail mid-tournament (a final that cannot seat who
reaches it, a minimum bet above the chips, a prize for a place that does not
exist) is refused when it is loaded, citing the competition rule.
"""

from __future__ import annotations

import copy
import json
import tomllib
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from punto.tournament import (
    FormatError,
    UnknownFormatError,
    all_formats,
    get_format,
    load_format,
    load_format_file,
)
from punto.tournament.format import ChipPolicy, balanced_sizes
from punto.tournament.formats import _registry

FORMATS = Path(__file__).parents[2] / "src" / "punto" / "tournament" / "formats"


def raw(format_id: str) -> dict[str, Any]:
    return tomllib.loads((FORMATS / f"{format_id}.toml").read_text("utf-8"))


def test_shipped_formats() -> None:
    assert [f.id for f in all_formats()] == ["championship", "daily", "turbo"]
    daily = get_format("daily")
    assert daily.game.id == "baccarat-tournament"
    assert (daily.starting_chips, daily.chip_unit, daily.decks) == (100000, 500, 8)
    q, final = daily.sessions
    assert (q.hands, q.min_bet, q.max_bet, q.min_hands, q.announce_last, q.advance) == (
        30,
        1000,
        50000,
        20,
        5,
        2,
    )
    assert final.final
    assert not q.final
    assert final.chips is ChipPolicy.RESET
    assert (daily.registration.late_until_hand, daily.registration.reentries) == (10, 1)
    assert daily.prize(1) == Decimal("3000.00")
    assert daily.prize(5) == Decimal("200.00")
    assert daily.prize(7) == 0
    turbo = get_format("turbo")
    assert turbo.sessions[0].max_bet is None
    assert turbo.final.chips is ChipPolicy.CARRY
    champ = get_format("championship")
    assert [s.name for s in champ.sessions] == ["Qualifying", "Semi-final", "Final"]
    assert champ.sessions[1].wildcards == 2
    assert champ.final.seats == 6
    assert champ.final.starting_chips == 100000


def test_every_format_seats_its_range_of_entrants() -> None:
    for f in all_formats():
        for n in range(f.registration.min_entrants, f.registration.max_entrants + 1):
            plans = f.plan(n)
            assert plans[0].entrants == n
            assert plans[-1].tables == 1
            assert plans[-1].session.final
            for p in plans:
                sizes = p.table_sizes
                assert sum(sizes) == p.entrants
                assert max(sizes) - min(sizes) <= 1
                assert max(sizes) <= p.session.seats


def test_plan_refusals() -> None:
    daily = get_format("daily")
    assert [(p.tables, p.advancing) for p in daily.plan(20, tables=3)] == [(3, 6), (1, 0)]
    with pytest.raises(FormatError, match=r"20 entrants need at least 3 tables.*\(T3\.1"):
        daily.plan(20, tables=2)
    with pytest.raises(FormatError, match="would leave a table empty"):
        daily.plan(6, tables=7)
    with pytest.raises(FormatError, match=r"use at most 4 tables"):
        daily.plan(20, tables=5)


def test_balanced_sizes() -> None:
    assert balanced_sizes(20, 3) == (7, 7, 6)
    assert balanced_sizes(24, 3) == (8, 8, 8)
    assert balanced_sizes(5, 1) == (5,)


def test_get_format_unknown_and_from_file(tmp_path: Path) -> None:
    with pytest.raises(UnknownFormatError, match="known formats: championship, daily, turbo"):
        get_format("weekly")
    data = (FORMATS / "daily.toml").read_text("utf-8").replace('id = "daily"', 'id = "house"')
    path = tmp_path / "house.toml"
    path.write_text(data, "utf-8")
    assert get_format(str(path)).id == "house"
    assert load_format_file(path).sessions == get_format("daily").sessions
    bad = tmp_path / "bad.toml"
    bad.write_text("id = [", "utf-8")
    with pytest.raises(FormatError, match=r"bad\.toml: not valid TOML"):
        load_format_file(bad)
    with pytest.raises(FormatError, match="cannot read the format file"):
        load_format_file(tmp_path / "missing.toml")


def test_format_data_round_trips_through_json() -> None:
    """A tournament records its format as JSON; the copy loads to the same format."""
    for f in all_formats():
        again = load_format(json.loads(json.dumps(dict(f.data))), "copy")
        assert again.sessions == f.sessions
        assert again.registration == f.registration
        assert again.prizes == f.prizes
        assert again.to_json() == f.to_json()


def test_variant() -> None:
    daily = get_format("daily")
    v = daily.replace(session_hands=20, session_min_hands=12, id="daily-20")
    assert (v.sessions[0].hands, v.sessions[0].min_hands) == (20, 12)
    assert v.final.hands == 30  # the final is left alone
    assert daily.sessions[0].hands == 30  # and the original untouched
    with pytest.raises(FormatError, match=r"min_hands 20 is more than the 10 hands"):
        daily.replace(session_hands=10)


def edit(format_id: str, path: str, value: Any) -> dict[str, Any]:
    """The format's data with one value set (``a.b.0.c``) or deleted (value None)."""
    data = copy.deepcopy(raw(format_id))
    *parents, last = path.split(".")
    node: Any = data
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    if value is None:
        del node[last]
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return data


@pytest.mark.parametrize(
    ("path", "value", "words"),
    [
        ("colour", "red", r"the format has unknown keys colour"),
        ("sessions.0.min_bett", 5, r"session 1 has unknown keys min_bett"),
        ("registration.late", 5, r"\[registration\] has unknown keys late"),
        ("starting_chips", None, r"starting_chips is missing"),
        ("starting_chips", "lots", r"starting_chips: a whole number is required"),
        ("game", "punto-banco", r"no game 'punto-banco'"),
        ("decks", 3, r"a shoe of 3 decks is not allowed.*clause 2\.1"),
        ("cut_card", 2, r"cut_card 2: the cut card must leave at least six cards"),
        ("wagers", ["banker", "dragon"], r"baccarat-tournament has no wager 'dragon'.*\(T4\.1"),
        ("seats", 1, r"a table needs at least 2 seats"),
        ("sessions.0.max_bet", 500, r"max_bet 500 is under min_bet 1000 \(T4\.3"),
        ("sessions.0.min_bet", 1200, r"min_bet 1200 is not a whole number of chips of 500 \(T1\.2"),
        ("sessions.0.min_bet", 200000, r"min_bet 200000 is more than the starting chips"),
        ("sessions.0.min_hands", 31, r"min_hands 31 is more than the 30 hands \(T5\.2"),
        ("sessions.0.announce_last", 40, r"announce_last 40 is more than the 30 hands \(T5\.4"),
        ("sessions.0.advance", 0, r"advance \(per table\) must be at least 1 \(T6\.2"),
        ("sessions.1.advance", 2, r"session 2 is the final: nobody advances from it \(T8\.1"),
        ("sessions.0.chips", "carry", r"the first session has no chips to carry \(T6\.4"),
        ("sessions.1.chips", "keep", r"'reset' or 'carry', not 'keep'"),
        ("registration.late_until_hand", 31, r"late_until_hand 31 is past the 30 hands"),
        ("registration.reentry_until_hand", 0, r"reentry_until_hand must be a hand of Qualifying"),
        ("registration.min_entrants", 1, r"min_entrants must be at least 2"),
        ("registration.max_entrants", 40, r"send up to 10 entrants to the Final, which seats 8"),
        ("registration.entry_fee", "12.345", r"entry_fee: an amount of money"),
        ("prizes.1.amount", "5000.00", r"place 2 wins more than place 1 \(T8\.3"),
        ("prizes.3.places", [5, 6], r"places must follow on from place 4 without gaps"),
        ("prizes.3.places", [4, 9], r"prizes go down to place 9, but the final seats 8"),
        ("sessions", [], r"at least one \[\[sessions\]\]"),
    ],
)
def test_bad_formats_are_refused(path: str, value: Any, words: str) -> None:
    with pytest.raises(FormatError, match=words):
        load_format(edit("daily", path, value), "daily.toml")


def test_floats_are_refused_for_money() -> None:
    data = edit("daily", "registration.entry_fee", 12.5)
    with pytest.raises(FormatError, match="entry_fee"):
        load_format(data, "daily.toml")


def test_registry_files_are_the_formats() -> None:
    assert set(_registry()) == {p.stem for p in FORMATS.glob("*.toml")}


@pytest.mark.parametrize("fee", ["1_000", "١٠٠", "1E+2", "12.500", True, "-5"])
def test_t2_entry_fee_is_money_written_as_money(fee: Any) -> None:
    """Fees and prizes are read as every amount is (punto.money.parse_amount):
    Decimal() alone read "1_000" and "١٠٠" as fees of 1,000 and 100."""
    with pytest.raises(FormatError, match=r'entry_fee: an amount of money such as "100.00"'):
        load_format(edit("daily", "registration.entry_fee", fee), "daily.toml")
    free = load_format(edit("daily", "registration.entry_fee", "0"), "daily.toml")
    paid = load_format(edit("daily", "registration.entry_fee", "12.50"), "daily.toml")
    assert (free.registration.entry_fee, paid.registration.entry_fee) == (
        Decimal("0.00"),
        Decimal("12.50"),
    )
