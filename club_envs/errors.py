"""Errors shared by every game, so callers can catch one type whatever the game."""


class IllegalActionError(ValueError):
    """An action that is not legal for the seat to move; the state is left unchanged."""


class ConfigError(ValueError):
    """An option value outside what the game allows; the message names the allowed values."""
