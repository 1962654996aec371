"""Thirty-One Arena: a referee, bot sandbox and tournament runner for the Thirty-One family."""

__version__ = "0.1.0"
