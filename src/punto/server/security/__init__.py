"""Who is asking, and how much they may ask: sessions and roles, the guard
against other sites and against too many sockets or requests from one
address, the login limits, the connection limits and a log without secrets."""
