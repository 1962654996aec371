"""Tournaments and leagues: files, schedules, referee workers, the results store, ratings."""
