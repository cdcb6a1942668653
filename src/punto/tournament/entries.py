"""Entering a tournament and leaving it: registration, withdrawal, re-entry
(T2) and cancellation (a part of :class:`punto.tournament.tournament.Tournament`).
"""

from __future__ import annotations

import random

from punto.money import format_money
from punto.tournament.core import TournamentCore
from punto.tournament.errors import (
    RegistrationError,
    TournamentError,
    TournamentPhaseError,
    can,
)
from punto.tournament.events import (
    EntrantReentered,
    EntrantRegistered,
    EntrantWithdrawn,
    Refund,
    TournamentCancelled,
)
from punto.tournament.names import DisplayNameError, check_not_staff, display_name, name_key
from punto.tournament.state import (
    Phase,
    Stage,
    TableState,
    chips_text,
)


class TournamentEntries(TournamentCore):
    """Registration, withdrawal, re-entry and cancellation."""

    # -- registration (T2) ---------------------------------------------------------------

    def check_register(self, name: str, entrant: str | None = None) -> None:
        fmt = self.fmt
        if not name.strip():
            raise RegistrationError("an entrant needs a name", clause=fmt.rule("registration"))
        if entrant is not None and (not entrant or any(c.isspace() for c in entrant)):
            raise RegistrationError(f"entrant id {entrant!r} must be non-empty with no spaces")
        if entrant is not None and entrant in self.entrants:
            raise RegistrationError(
                f"entrant {entrant!r} is already registered", clause=fmt.rule("registration")
            )
        try:  # one spelling, nothing hidden, not the staff's, nobody else's (punto.tournament.names)
            shown = display_name(name, clause=fmt.rule("registration"))
            check_not_staff(shown, clause=fmt.rule("registration"))
        except DisplayNameError as error:
            raise RegistrationError(error.message, clause=error.clause, hint=error.hint) from None
        key = name_key(shown)
        taken = next((e.name for e in self.entrants.values() if name_key(e.name) == key), None)
        if taken is not None:
            looks = "" if taken == shown else f" ({shown!r} reads as {taken!r})"
            raise RegistrationError(
                f"an entrant is already called {taken!r}{looks}",
                clause=fmt.rule("registration"),
                hint="choose a name of your own",
            )
        if len(self.entrants) >= fmt.registration.max_entrants:
            raise RegistrationError(
                f"the tournament is full: {fmt.registration.max_entrants} entrants",
                clause=fmt.rule("registration"),
            )
        if self.stage is Stage.REGISTRATION:
            return
        self._late_table()

    def _late_table(self) -> tuple[int, int]:
        """The table and hands missed for a late entrant (T2.2), or why not."""
        fmt = self.fmt
        until = fmt.registration.late_until_hand
        if self.stage is not Stage.PLAYING or self.session_number != 1 or not until:
            raise RegistrationError(
                "registration is closed",
                clause=fmt.rule("late"),
                hint=f"late registration runs until hand {until} of the first session"
                if until
                else "this format has no late registration",
            )
        s = self._current()
        open_tables = [
            t
            for t in self.tables.values()
            if len(t.seats) < s.seats and self._next_bettable(t) <= until
        ]
        if not open_tables:
            raise RegistrationError(
                f"late registration is closed: every table is past hand {until} or full",
                clause=fmt.rule("late"),
            )
        chosen = min(open_tables, key=lambda t: (len(t.seats), t.number))
        missed = self._next_bettable(chosen) - 1
        return chosen.number, missed

    @staticmethod
    def _next_bettable(t: TableState) -> int:
        """The first hand a newcomer at the table could still bet on."""
        if t.phase is Phase.DONE:
            return t.settled + 1_000_000
        return t.settled + (2 if t.phase is Phase.CLOSED else 1)

    def can_register(self, name: str, entrant: str | None = None) -> bool:
        return can(self.check_register, name, entrant)

    def register(
        self,
        name: str,
        controller: str = "human",
        entrant: str | None = None,
        *,
        wallet: str | None = None,
        fee: str | None = None,
    ) -> str:
        """Enter ``name``; after the first session has started, a late entry
        seated at the table with the fewest entrants (T2.2).  Returns the
        entrant id (``e1``, ``e2``, ... unless given)."""
        with self._lock:
            event = self.registration(name, controller, entrant, wallet=wallet, fee=fee)
            self._emit(event)
            return event.entrant

    def registration(
        self,
        name: str,
        controller: str = "human",
        entrant: str | None = None,
        *,
        wallet: str | None = None,
        fee: str | None = None,
    ) -> EntrantRegistered:
        """The event :meth:`register` would write, checked, written nowhere:
        for a caller that stores it in its own transaction together with the
        entry fee, then calls :meth:`adopt`."""
        with self._lock:
            self.check_register(name, entrant)
            eid = entrant or self._next_id()
            if self.stage is Stage.REGISTRATION:
                return EntrantRegistered(
                    eid, display_name(name), controller, wallet=wallet, fee=fee
                )
            table, missed = self._late_table()
            taken = set(self.tables[table].seats)
            free = [n for n in range(1, self._current().seats + 1) if n not in taken]
            seat = random.Random(f"punto-tournament:{self.seed}:late:{eid}").choice(free)
            return EntrantRegistered(
                eid, display_name(name), controller, table, seat, missed, wallet=wallet, fee=fee
            )

    def _next_id(self) -> str:
        n = len(self.entrants) + 1
        while f"e{n}" in self.entrants:
            n += 1
        return f"e{n}"

    def check_withdraw_entry(self, entrant: str) -> None:
        e = self.entrant(entrant)
        if self.stage is not Stage.REGISTRATION:
            raise RegistrationError(
                f"{e.name} can take the entry back only before the first session starts; "
                f"the tournament is {self.stage.value}",
                clause=self.fmt.rule("withdraw_entry"),
            )

    def can_withdraw_entry(self, entrant: str) -> bool:
        return can(self.check_withdraw_entry, entrant)

    def withdraw_entry(self, entrant: str) -> None:
        """Take an entry back before the first session starts; its fee is refunded."""
        with self._lock:
            self._emit(self.entry_withdrawal(entrant))

    def entry_withdrawal(self, entrant: str) -> EntrantWithdrawn:
        """The event :meth:`withdraw_entry` would write, checked, written nowhere
        (as :meth:`registration`: the caller refunds the fee in the same
        transaction)."""
        with self._lock:
            self.check_withdraw_entry(entrant)
            fees = self.entrants[entrant].fees
            return EntrantWithdrawn(entrant, format_money(fees) if fees else None)

    def check_reenter(self, entrant: str) -> None:
        fmt = self.fmt
        e = self.entrant(entrant)
        reg = fmt.registration
        if not reg.reentries:
            raise RegistrationError("this format has no re-entry", clause=fmt.rule("reentry"))
        if self.stage is not Stage.PLAYING or self.session_number != 1 or e.table is None:
            raise RegistrationError(
                "re-entry is only during the first session", clause=fmt.rule("reentry")
            )
        if not self.out_of_chips(entrant):
            raise RegistrationError(
                f"{e.name} still has {chips_text(e.chips)} chips: only an entrant out of chips "
                f"may re-enter",
                clause=fmt.rule("reentry"),
            )
        if e.entry > reg.reentries:
            raise RegistrationError(
                f"{e.name} has re-entered {e.entry - 1} time(s), the most allowed",
                clause=fmt.rule("reentry"),
            )
        t = self.tables[e.table]
        if self._next_bettable(t) > reg.reentry_until_hand:
            raise RegistrationError(
                f"re-entry closed after hand {reg.reentry_until_hand}",
                clause=fmt.rule("reentry"),
            )

    def can_reenter(self, entrant: str) -> bool:
        return can(self.check_reenter, entrant)

    def reenter(self, entrant: str, *, fee: str | None = None) -> None:
        """A new starting stack for an entrant out of chips, in the same seat (T2.3)."""
        with self._lock:
            self._emit(self.reentry(entrant, fee=fee))

    def reentry(self, entrant: str, *, fee: str | None = None) -> EntrantReentered:
        """The event :meth:`reenter` would write, checked, written nowhere (as
        :meth:`registration`)."""
        with self._lock:
            self.check_reenter(entrant)
            e = self.entrants[entrant]
            return EntrantReentered(entrant, e.entry + 1, self._current().starting_chips, fee)

    # -- cancellation --------------------------------------------------------------------

    def check_cancel(self, reason: str) -> None:
        if not reason.strip():
            raise TournamentError(
                "a cancellation needs a reason", hint="say why, for the entrants and the audit"
            )
        if self.stage is Stage.FINISHED:
            raise TournamentPhaseError(
                "the tournament has finished: its places and prizes stand",
                clause=self.fmt.rule("cancel"),
            )
        if self.stage is Stage.CANCELLED:
            raise TournamentPhaseError(
                f"the tournament was already cancelled: {self.cancelled}",
                clause=self.fmt.rule("cancel"),
            )

    def can_cancel(self, reason: str) -> bool:
        return can(self.check_cancel, reason)

    def cancel(self, reason: str) -> None:
        """Call the tournament off: no more hands, no places, every entry fee
        paid given back (the event lists them; the caller pays them)."""
        with self._lock:
            self._emit(self.cancellation(reason))

    def cancellation(self, reason: str) -> TournamentCancelled:
        """The event :meth:`cancel` would write, checked, written nowhere."""
        with self._lock:
            self.check_cancel(reason)
            refunds = tuple(
                Refund(e.id, format_money(e.fees)) for e in self.entrants.values() if e.fees
            )
            return TournamentCancelled(reason.strip(), refunds)
