"""The table server's security regression suite (docs/security.md)."""
