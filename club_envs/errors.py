"""Errors shared by every game, so callers can catch one type whatever the game."""

import reprlib


class IllegalActionError(ValueError):
    """An action that is not legal for the seat to move; the state is left unchanged."""


class ConfigError(ValueError):
    """An option value outside what the game allows; the message names the allowed values."""


def check_choice(option: str, value: object, allowed: tuple) -> None:
    """Raise :class:`ConfigError` naming ``option``, its bad ``value`` and the allowed values."""
    if value not in allowed:
        names = ", ".join("None" if a is None else str(a) for a in allowed)
        raise ConfigError(f"{option}={reprlib.repr(value)} is not allowed; expected one of {names}")
