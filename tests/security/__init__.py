"""The table server's security regression suite (issue 12; docs/security.md)."""
