"""Replaying a record on the engine: rebuild each heat from its recorded deal, re-apply the
recorded actions, and check that every event and the result come out the same."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from club_envs.members_only import actions as A
from club_envs.members_only.engine import State, deals_from_record
from club_envs.members_only.rules import Config, parse_card, parse_category, parse_space, CHIP_TYPES
from club_envs.records import RecordError

_ACTION_EVENTS = ("bet", "no_bet", "reveal", "discard")


def actions_of(event: dict[str, Any]) -> list[int]:
    """The engine actions a recorded action event stands for (a reveal is two card decisions)."""
    kind = event["type"]
    if kind == "bet":
        chip = CHIP_TYPES.index(event["chip"])
        return [A.encode_bet(parse_category(event["category"]), parse_space(event["space"]), chip)]
    if kind == "no_bet":
        return [A.NO_BET]
    if kind == "reveal":
        return [A.encode_reveal(parse_card(card)) for card in event["cards"]]
    if kind == "discard":
        return [A.encode_discard(parse_card(event["card"]))]
    raise RecordError(f"event type {kind!r} is not an action")


def _same(engine_event: dict[str, Any], recorded: dict[str, Any]) -> bool:
    # Records may carry extra keys; every key the engine writes must match.
    return all(k in recorded and recorded[k] == v for k, v in engine_event.items())


def replay_steps(record: dict[str, Any]) -> Iterator[tuple[State, int | None, int | None]]:
    """Walk ``record`` on the engine, checking every event as it comes: yields ``(state, seat,
    action)`` just before each engine action (``action`` is ``None`` for a forfeit after an
    illegal move), and ``(state, None, None)`` once the whole record is checked. The state is the
    engine's own: a caller reads it (views, legal actions) and must not change it. Raises
    :class:`RecordError` at the first event that differs from what the engine produces."""
    try:
        config = Config.from_record(record["config"])
        events = record["events"]
        state = State(config, seed=record.get("seed"), deals=deals_from_record(events))
    except (KeyError, ValueError, TypeError) as exc:
        raise RecordError(f"cannot rebuild the game from the record: {exc}") from None
    checked = 0
    while True:
        while checked < len(state.events):
            if checked >= len(events):
                raise RecordError(f"the engine produced event {state.events[checked]} after the record's last event")
            if not _same(state.events[checked], events[checked]):
                raise RecordError(
                    f"event {checked} differs: the record has {events[checked]}, the engine {state.events[checked]}"
                )
            checked += 1
        if checked == len(events):
            break
        event = events[checked]
        kind = event.get("type")
        if kind in _ACTION_EVENTS:
            if event.get("seat") != state.current_player:
                raise RecordError(
                    f"event {checked} ({kind}) is by seat {event.get('seat')}, but seat {state.current_player} is to move"
                )
            try:
                for action in actions_of(event):
                    yield state, state.current_player, action
                    state.apply_action(action)
            except ValueError as exc:
                raise RecordError(f"event {checked} ({kind}) is not legal here: {exc}") from None
        elif kind == "game_end" and event.get("reason") == "illegal_action":
            offender = event.get("offender", state.current_player)
            yield state, offender, None
            state.forfeit(offender)
        else:
            raise RecordError(f"event {checked} is {kind!r}, but the engine expects an action by seat {state.current_player}")
    if "result" in record:
        if state.result is None or not _same(state.result, record["result"]):
            raise RecordError(f"the result differs: the record has {record['result']}, the engine {state.result}")
    yield state, None, None


def replay(record: dict[str, Any]) -> dict[str, Any] | None:
    """Re-play ``record`` and return its result (``None`` for an abandoned game); raise
    :class:`RecordError` at the first event that differs from what the engine produces."""
    state = None
    for state, _, _ in replay_steps(record):
        pass
    return state.result
