"""The host: the door through which authors on other machines enter bots (arena host)."""
