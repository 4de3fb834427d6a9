"""replay(record): rebuild a game from its recorded setup and reshuffled decks, re-apply every
action, and check that the engine reproduces every event and the result."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.engine import State
from club_envs.arkham_decoders.rules import Config, parse_card
from club_envs.errors import ConfigError, IllegalActionError
from club_envs.records import RecordError


def replay_steps(record: dict[str, Any]) -> Iterator[tuple[State, int | None, int | None]]:
    """Walk ``record`` on the engine, checking every event as it comes: yields ``(state, seat,
    action)`` just before each engine action (``action`` is ``None`` for a forfeit after an
    illegal move), and ``(state, None, None)`` once the whole record is checked. The state is the
    engine's own: a caller reads it and must not change it. :class:`RecordError` at the first
    disagreement."""
    try:
        config = Config.from_record(record["config"])
    except (ConfigError, KeyError, TypeError) as exc:
        raise RecordError(f"bad config in record: {exc}") from None
    events = record["events"]
    if not events or events[0].get("type") != "setup":
        raise RecordError("the first event of an arkham_decoders_club record must be 'setup'")
    decks = [(e["flipped"], e["deck"]) for e in events if e["type"] == "reshuffle"]
    try:
        state = State(config, seed=record.get("seed"), setup=events[0], reshuffle_decks=decks)
    except (ValueError, KeyError) as exc:
        raise RecordError(f"event 0 (setup) cannot start a game: {exc}") from None

    for index, event in enumerate(events):
        if index >= len(state.events):  # not yet produced by the engine: it must be a decision
            try:
                seat, action = _decision(state, event)
            except (ValueError, KeyError) as exc:
                raise RecordError(f"event {index} ({event.get('type')}) cannot be replayed: {exc}") from None
            yield state, seat, action
            try:
                if action is None:
                    state.forfeit(seat)
                else:
                    state.apply_action(action)
            except (IllegalActionError, ValueError, KeyError) as exc:
                raise RecordError(f"event {index} ({event.get('type')}) cannot be replayed: {exc}") from None
        if index >= len(state.events) or state.events[index] != event:
            produced = state.events[index] if index < len(state.events) else None
            raise RecordError(f"event {index} differs on replay: recorded {event!r}, engine produced {produced!r}")
    if len(state.events) != len(events):
        extra = state.events[len(events)] if len(state.events) > len(events) else None
        raise RecordError(
            f"the record has {len(events)} events but the replay produced {len(state.events)}"
            + (f" (next: {extra!r})" if extra else "")
        )
    if "result" in record and state.result != record["result"]:
        raise RecordError(f"result differs on replay: recorded {record['result']!r}, engine {state.result!r}")
    yield state, None, None


def replay(record: dict[str, Any]) -> dict[str, Any]:
    """Re-play ``record`` and return the result; :class:`RecordError` at the first disagreement."""
    state = None
    for state, _, _ in replay_steps(record):
        pass
    return state.result if state.result is not None else {}


def _decision(state: State, event: dict[str, Any]) -> tuple[int, int | None]:
    """The seat and engine action an event that is a decision stands for (``None``: a forfeit);
    engine-made events (draw, reshuffle, peek, ...) are produced by the engine itself and only compared."""
    kind = event["type"]
    if kind == "reveal":
        _check_seat(state, event["seat"])
        return state.current_player, A.REVEAL + parse_card(event["card"])
    if kind == "pass":
        _check_seat(state, event["seat"])
        return state.current_player, A.PASS
    if kind == "vote":
        _check_seat(state, event["seat"])
        return state.current_player, A.AGREE if event["vote"] == "agree" else A.OPPOSE
    if kind == "decode" and event["chooser"] is not None:
        _check_seat(state, event["chooser"])
        if len(event["decoded"]) != 1:
            raise ValueError("a chosen decode holds exactly one card")
        card = parse_card(event["decoded"][0]["card"])
        slots = [i for i, (_, c) in enumerate(state.table) if c == card]
        if not slots:
            raise ValueError(f"{event['decoded'][0]['card']} is not face up")
        return state.current_player, A.DECODE + slots[0]
    if kind == "game_end" and event["reason"] == "illegal_action":
        return state.current_player, None
    raise ValueError(f"the engine did not produce this {kind!r} event here")


def _check_seat(state: State, seat: int) -> None:
    if seat != state.current_player:
        raise ValueError(f"seat {seat} acts but seat {state.current_player} is to move")
