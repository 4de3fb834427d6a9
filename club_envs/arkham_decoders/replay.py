"""replay(record): rebuild a game from its recorded setup and reshuffled decks, re-apply every
action, and check that the engine reproduces every event and the result."""

from __future__ import annotations

from typing import Any

from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.engine import State
from club_envs.arkham_decoders.rules import Config, parse_card
from club_envs.errors import ConfigError, IllegalActionError
from club_envs.records import RecordError


def replay(record: dict[str, Any]) -> dict[str, Any]:
    """Re-play ``record`` and return the result; :class:`RecordError` at the first disagreement."""
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
                _apply(state, event)
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
    return state.result if state.result is not None else {}


def _apply(state: State, event: dict[str, Any]) -> None:
    """Re-apply an event that is a decision; engine-made events (draw, reshuffle, peek, ...) are
    produced by the engine itself and only compared."""
    kind = event["type"]
    if kind == "reveal":
        _check_seat(state, event["seat"])
        state.apply_action(A.REVEAL + parse_card(event["card"]))
    elif kind == "pass":
        _check_seat(state, event["seat"])
        state.apply_action(A.PASS)
    elif kind == "vote":
        _check_seat(state, event["seat"])
        state.apply_action(A.AGREE if event["vote"] == "agree" else A.OPPOSE)
    elif kind == "decode" and event["chooser"] is not None:
        _check_seat(state, event["chooser"])
        if len(event["decoded"]) != 1:
            raise ValueError("a chosen decode holds exactly one card")
        card = parse_card(event["decoded"][0]["card"])
        slots = [i for i, (_, c) in enumerate(state.table) if c == card]
        if not slots:
            raise ValueError(f"{event['decoded'][0]['card']} is not face up")
        state.apply_action(A.DECODE + slots[0])
    elif kind == "game_end" and event["reason"] == "illegal_action":
        state.forfeit(state.current_player)
    else:
        raise ValueError(f"the engine did not produce this {kind!r} event here")


def _check_seat(state: State, seat: int) -> None:
    if seat != state.current_player:
        raise ValueError(f"seat {seat} acts but seat {state.current_player} is to move")
