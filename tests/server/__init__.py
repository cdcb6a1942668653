"""The table server: its HTTP API, WebSockets, processes and leases, recovery and tournaments."""
