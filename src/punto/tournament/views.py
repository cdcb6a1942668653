"""What people see of a tournament: the leaderboard, a snapshot and the results
(a part of :class:`punto.tournament.tournament.Tournament`).
"""

from __future__ import annotations

from typing import Any

from punto.rules.coup import Coup
from punto.tournament.entries import TournamentEntries
from punto.tournament.events import (
    HandSettled,
    Placing,
    TournamentEvent,
    event_to_json,
)
from punto.tournament.standings import (
    Entry,
    rank,
    table_scope,
)
from punto.tournament.state import (
    EntrantState,
    Phase,
    Stage,
    announcement,
)


def event_view(event: TournamentEvent) -> dict[str, Any]:
    """An event as a page shows it: its JSON and, for a settled hand, the coup
    by side as the table shows it -- each hand's cards in the order dealt,
    its total, and whether a two-card eight or nine ended the deal.

    >>> view = event_view(HandSettled(1, 1, 3, "9H 2C 9D 6S", "player", ()))
    >>> view["coup"]["player"], view["coup"]["banker"], view["coup"]["natural"]
    ({'cards': ['9H', '9D'], 'total': 8}, {'cards': ['2C', '6S'], 'total': 8}, True)
    """
    data = event_to_json(event)
    if isinstance(event, HandSettled):
        coup = Coup.parse(event.cards)
        data["coup"] = {
            side: {"cards": [str(c) for c in hand.cards], "total": hand.total}
            for side, hand in (("player", coup.player), ("banker", coup.banker))
        }
        data["coup"]["natural"] = coup.natural
    return data


class TournamentViews(TournamentEntries):
    """The tournament as JSON for the pages and exports."""

    # -- what people see -------------------------------------------------------------------

    def leaderboard(self) -> dict[str, Any]:
        """Standings per table and overall, as JSON (updated as every hand settles)."""
        fmt = self.fmt
        s = self.session
        tables = []
        overall: list[Entry] = []
        for n, t in sorted(self.tables.items()):
            entries = self._entries(t) if s is not None else []
            overall.extend(entries)
            ranked = rank(entries, self.keys.get(table_scope(n)))
            cut = s.advance if s is not None and not s.final else 1
            rows = []
            for r in ranked:
                e = self.entrants[r.entry.entrant]
                rows.append(
                    {
                        **self._entrant_json(e),
                        "rank": r.rank,
                        "tied": r.tied,
                        "advancing": r.entry.eligible and r.rank <= cut,
                    }
                )
            tables.append(
                {
                    "table": n,
                    "phase": t.phase.value,
                    "hand": t.hand,
                    "hands": s.hands if s else 0,
                    "settled": t.settled,
                    "remaining": t.remaining if t.phase in (Phase.BETTING, Phase.CLOSED) else None,
                    "announcement": announcement(t.remaining, s.announce_last)
                    if s is not None and t.phase in (Phase.BETTING, Phase.CLOSED)
                    else None,
                    "standings": rows,
                }
            )
        overall_rows = [
            {**self._entrant_json(self.entrants[r.entry.entrant]), "rank": r.rank, "tied": r.tied}
            for r in rank(overall)
        ]
        eliminated = [
            {
                **self._entrant_json(e),
                "session": e.eliminated_in,
                "chips": e.session_chips.get(e.eliminated_in or 0, 0),
            }
            for e in self.entrants.values()
            if e.eliminated_in is not None
        ]
        return {
            "tournament": self.id,
            "format": fmt.id,
            "title": fmt.title,
            "stage": self.stage.value,
            "cancelled": None
            if self.cancelled is None
            else {
                "reason": self.cancelled,
                "refunds": [{"entrant": r.entrant, "amount": r.amount} for r in self.refunds],
            },
            "seq": self.seq,
            "session": None
            if s is None
            else {
                "number": s.number,
                "name": s.name,
                "hands": s.hands,
                "min_bet": s.min_bet,
                "max_bet": s.max_bet,
                "min_hands": s.min_hands,
                "advance": s.advance,
                "wildcards": s.wildcards,
                "final": s.final,
            },
            "tables": tables,
            "overall": overall_rows,
            "eliminated": eliminated,
            "tiebreak": None if self.tiebreak is None else self._tiebreak_json(),
            "results": [self._place_json(p) for p in self.results] if self.results else None,
        }

    def snapshot(self) -> dict[str, Any]:
        """Everything a lobby page shows: the leaderboard, every table's hand in
        progress (bets on the layout, who is still to act), its shoe and last
        coup, and the registered entrants.  Never the shoe's order or the seed."""
        board = self.leaderboard()
        for row in board["tables"]:
            t = self.tables[row["table"]]
            row["bets"] = {
                e: [{"wager": x.wager, "stake": x.stake} for x in lines]
                for e, lines in t.bets.items()
            }
            row["passed"] = sorted(t.passed)
            row["awaiting"] = self.awaiting(t.number)
            row["shoe"] = (
                None
                if t.shoe is None
                else {"number": t.shoes, "commitment": t.commitment, "cards_left": len(t.shoe)}
            )
            row["last_hand"] = None if t.last is None else event_view(t.last)
            # the last void (5.1-5.5) and the irregularity of the hand in play, if any
            row["voided"] = None if t.voided is None else event_to_json(t.voided)
            row["irregularity"] = None if t.noted is None else event_to_json(t.noted)
        board["live"] = (
            {"betting_seconds": self.betting_ms / 1000, "pause_seconds": self.pause_ms / 1000}
            if self.live
            else None
        )
        board["format_rules"] = self.fmt.to_json()
        board["entrants"] = [self._entrant_json(e) for e in self.entrants.values()]
        return board

    def _status(self, e: EntrantState) -> str:
        if e.place is not None:
            return "finished"
        if self.stage is Stage.CANCELLED:
            return "cancelled"
        if e.eliminated_in is not None:
            return "eliminated"
        if self.stage is Stage.REGISTRATION:
            return "registered"
        if self.stage is Stage.BETWEEN:
            return "advanced"
        if self.out_of_chips(e.id):
            return "out_of_chips"
        return "playing"

    def _entrant_json(self, e: EntrantState) -> dict[str, Any]:
        playing = self.stage is Stage.PLAYING and e.active
        return {
            "entrant": e.id,
            "name": e.name,
            "controller": e.controller,
            "entry": e.entry,
            "table": e.table if e.active else None,
            "seat": e.seat if e.active else None,
            "chips": e.chips,
            "hands_bet": e.hands_bet,
            "hands_required": e.required,
            "must_bet": playing and self.must_bet(e.id),
            # what the entrant may do now, as the checks say (pages ask, not re-judge)
            "may_reenter": self.can_reenter(e.id),
            "may_take_back": self.can_withdraw_entry(e.id),
            "penalties": e.penalties,
            "late": e.late,
            "status": self._status(e),
            "place": e.place,
        }

    def _tiebreak_json(self) -> dict[str, Any]:
        tb = self.tiebreak
        assert tb is not None
        return {
            "scope": tb.scope,
            "table": tb.table,
            "entrants": list(tb.entrants),
            "attempt": tb.attempt,
            "reason": tb.reason,
            "chosen": sorted(tb.choices),
        }

    def _place_json(self, p: Placing) -> dict[str, Any]:
        e = self.entrants[p.entrant]
        return {
            "place": p.place,
            "entrant": e.id,
            "name": e.name,
            "controller": e.controller,
            "prize": p.prize,
            "reached": self.fmt.final.name
            if e.eliminated_in is None
            else self.fmt.session(e.eliminated_in).name,
            "chips": e.chips if e.eliminated_in is None else e.session_chips.get(e.eliminated_in),
            "entries": e.entry,
        }

    def result_rows(self) -> list[dict[str, Any]]:
        """The final places, one row per entrant (for CSV and JSON)."""
        return [self._place_json(p) for p in self.results]
