"""Hand-set positions for the rule tests: a chosen deal, then scripted play."""

from __future__ import annotations

from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.engine import PROPOSAL, VOTE, State
from club_envs.arkham_decoders.rules import BOOKS, NUM_CARDS, Config, card_name, parse_card

# 5 players: seat 0 leader, 1 member, 2 advisor, 3 member, 4 advisor (clockwise order of play
# from the leader: 0, 1, 3 reveal; advisors vote 2 then 4).
ROLES_5 = ("leader", "member", "advisor", "member", "advisor")
ROLES_4 = ("advisor", "leader", "advisor", "member")


def c(text: str) -> int:
    """Card id from a short name like ``"eibon:-3"``."""
    return parse_card(text)


def make_state(
    roles=ROLES_5,
    *,
    black_man: int | None = None,
    grimoires: dict[int, str] | None = None,
    hands: dict[int, list[str]] | None = None,
    deck_top: list[str] = (),
    insanity_penalty: int | None = None,
    reshuffle_decks=None,
) -> State:
    """A game with the given deal; unspecified hands/deck cards follow in ascending card order.

    Defaults: the first advisor clockwise from the leader is the Black Man holding ``eibon``
    (the true book); the other holds ``cthaat``; ``necronomicon`` and ``nameless_cults`` unowned.
    """
    roles = tuple(roles)
    n = len(roles)
    config = Config(num_players=n, roles=roles, insanity_penalty=insanity_penalty)
    leader = roles.index("leader")
    order = [(leader + k) % n for k in range(n)]
    advisors = [s for s in order if roles[s] == "advisor"]
    proposers = [s for s in order if roles[s] != "advisor"]
    if black_man is None:
        black_man = advisors[0]
    investigator = advisors[1] if black_man == advisors[0] else advisors[0]
    grimoires = grimoires or {black_man: "eibon", investigator: "cthaat"}
    unowned = [b for b in BOOKS if b not in grimoires.values()]
    hands = {s: list(v) for s, v in (hands or {}).items()}
    used = {c(x) for v in hands.values() for x in v} | {c(x) for x in deck_top}
    rest = [card for card in range(NUM_CARDS) if card not in used]
    for s in sorted(proposers):
        hands.setdefault(s, [])
        while len(hands[s]) < config.hand_size:
            hands[s].append(card_name(rest.pop(0)))
    setup = {
        "type": "setup",
        "roles": list(roles),
        "identities": {str(black_man): "black_man", str(investigator): "investigator"},
        "grimoires": {str(s): b for s, b in grimoires.items()},
        "unowned": unowned,
        "hands": {str(s): hands[s] for s in sorted(proposers)},
        "deck": list(deck_top) + [card_name(x) for x in rest],
    }
    return State(config, seed=0, setup=setup, reshuffle_decks=reshuffle_decks)


def reveal(state: State, card: str) -> None:
    state.apply_action(A.REVEAL + c(card))


def reveal_any(state: State) -> int:
    """The player to move reveals its lowest card id; returns it."""
    card = state.legal_actions()[0]
    state.apply_action(card)
    return card


def vote(state: State, first: str, second: str) -> None:
    assert state.phase == VOTE
    state.apply_action(A.AGREE if first == "agree" else A.OPPOSE)
    state.apply_action(A.AGREE if second == "agree" else A.OPPOSE)


def play_round(state: State, first: str = "oppose", second: str = "oppose") -> None:
    """Three reveals (lowest card each) by whoever is to move, then the given votes."""
    assert state.phase == PROPOSAL
    while state.phase == PROPOSAL and not state.is_terminal:
        reveal_any(state)
    if not state.is_terminal:
        vote(state, first, second)


def events_of(state: State, kind: str) -> list[dict]:
    return [e for e in state.events if e["type"] == kind]
