"""A table running on the server, in parts that
:class:`punto.server.tables.runtime.TableRuntime` coordinates (each under the
table's lock, unless it says otherwise), each naming its host by a protocol
of :mod:`~punto.server.tables.host`:

* :mod:`~punto.server.tables.views` -- the immutable snapshot every read is
  answered from, without the lock, and the JSON of the table's state;
* :mod:`~punto.server.tables.forms` -- the JSON of money, cards, bets and
  settlements (one form each);
* :mod:`~punto.server.tables.publishing` -- the watchers told what happened;
* :mod:`~punto.server.tables.intake` -- bets taken, in flight and answered;
* :mod:`~punto.server.tables.answers` -- the answers to keyed requests;
* :mod:`~punto.server.tables.keyed` -- keyed actions other than bets (the
  differential's changes, card handling);
* :mod:`~punto.server.tables.books` -- the ledger kept in step with the rounds;
* :mod:`~punto.server.tables.procedures` -- the irregularity procedures;
* :mod:`~punto.server.tables.moves` -- the automatic dealer's moves;
* :mod:`~punto.server.tables.figures` -- the pit's figures;
* :mod:`~punto.server.tables.refusals` -- the runtime's own refusals.

Around it: the journal that writes the tables' events and postings, the hub
that fans their messages out, the automatic dealer, the valuation of bets and
the advantage-play watch over it, the card handling and the differential.
"""
