"""Records for the viewer's tests, made on the engines (seeded, so each run sees the same games),
and twins of them that differ only in what some seats cannot know."""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any

from club_envs.agents.registry import load
from club_envs.games import get_spec, load_game

MEMBERS_ONLY = ("members_only", ("heuristic", "members_only", "random"), 11)
ARKHAM = ("arkham_decoders_club", ("heuristic", "arkham_decoders", "heuristic", "random"), 13)  # no one peeks


@lru_cache(maxsize=None)
def _made(game_name: str, agents: tuple[str, ...], seed: int) -> dict[str, Any]:
    game = load_game(game_name)
    config = game.Config(num_players=len(agents))
    players = [load(name, game, config, seed=i) for i, name in enumerate(agents)]
    return game.play_match(config, players, seed=seed)


def record(which: tuple = MEMBERS_ONLY) -> dict[str, Any]:
    """A fresh copy of one of the made records."""
    return copy.deepcopy(_made(*which))


def moves_of(rec: dict[str, Any]) -> list[tuple[int, int | None]]:
    """Every ``(seat, action)`` of a record, in order (``None``: a forfeit)."""
    walk = get_spec(rec["game"]).hook("replay_steps")(rec)
    return [(seat, action) for _, seat, action in walk if seat is not None]


def _replayed(state, rec: dict[str, Any], moves) -> dict[str, Any]:
    for _, action in moves:
        state.apply_action(action)
    twin = state.record([s["controller"] for s in rec["seats"]])
    return twin


def members_only_twin(rec: dict[str, Any], seat: int = 1) -> dict[str, Any]:
    """The same game in which ``seat``'s face-down discard of the first heat was another card, one
    that lay out of play: no other seat, nor a spectator, can tell the two apart."""
    from club_envs.members_only.engine import State, deals_from_record
    from club_envs.members_only.rules import Config, parse_card

    moves = moves_of(rec)
    deals = deals_from_record(rec["events"])
    discard = next(e for e in rec["events"] if e["type"] == "discard" and e["seat"] == seat)
    card = parse_card(discard["card"])
    other = next(c for c in deals[0]["out_of_play"] if c != card)
    deals[0]["hands"][seat][deals[0]["hands"][seat].index(card)] = other
    deals[0]["out_of_play"].remove(other)
    deals[0]["out_of_play"] = sorted([*deals[0]["out_of_play"], card])
    from club_envs.members_only import actions as A

    index = moves.index((seat, A.encode_discard(card)))
    moves[index] = (seat, A.encode_discard(other))
    state = State(Config.from_record(rec["config"]), seed=rec["seed"], deals=deals)
    return _replayed(state, rec, moves)


def arkham_twin(rec: dict[str, Any]) -> dict[str, Any]:
    """The same game with the advisors' identities (and so the true grimoire) swapped: a leader
    or member who never looked at the identity cards cannot tell the two apart until the end."""
    from club_envs.arkham_decoders.engine import State
    from club_envs.arkham_decoders.rules import Config

    moves = moves_of(rec)
    setup = copy.deepcopy(rec["events"][0])
    a, b = sorted(setup["identities"], key=int)
    setup["identities"][a], setup["identities"][b] = setup["identities"][b], setup["identities"][a]
    decks = [(e["flipped"], e["deck"]) for e in rec["events"] if e["type"] == "reshuffle"]
    state = State(Config.from_record(rec["config"]), seed=rec["seed"], setup=setup, reshuffle_decks=decks)
    return _replayed(state, rec, moves)
