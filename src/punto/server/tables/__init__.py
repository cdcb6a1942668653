"""The parts of a table running on the server, which
:class:`punto.server.runtime.TableRuntime` coordinates: its JSON views and
published snapshot, ..."""
