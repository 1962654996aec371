"""Thirty-One Arena: a referee, bot sandbox and tournament runner for the Thirty-One family."""

__version__ = "0.1.0"

PROTOCOL_VERSION = 1
"""The version of the bot protocol (docs/PROTOCOL.md) this arena speaks."""
