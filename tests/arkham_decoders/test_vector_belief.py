"""The learned agents on the batched engine decide as the reference agents, position by position:
:class:`~club_envs.arkham_decoders.vector_belief.BatchedBeliefAgent` as
:class:`~club_envs.arkham_decoders.belief_agent.BeliefAgent` and
:class:`~club_envs.arkham_decoders.vector_belief.BatchedBlackManAgent` as
:class:`~club_envs.arkham_decoders.vote_value.BlackManAgent` (exploring too: the same random numbers,
the same votes), and the models' inputs built from the arrays are the reference's, byte for byte,
for every seat at every position.

Games are played on the batched engine with every seat decided by the batched agents for all
games at once -- so each row's forward pass shares its batch with the other games' rows -- and
random moves mixed into half the games so the positions go beyond what the agents reach. They are
then replayed move by move on the reference engine from the same deals and reshuffles, where the
reference agents decide one position at a time. The team is checked with three models: the untrained
one (zero last layer: the reference's numbers to the bit), the shipped one, and the shipped one with
its logits tripled (sharper beliefs, more choices close to the forward pass's rounding).
``CLUB_ENVS_LONG=1`` plays many more games; the check runs once more with ``NUMBA_DISABLE_JIT=1``
in a subprocess.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from club_envs.agents.base import Decision
from club_envs.agents.batched import GameRows
from club_envs.arkham_decoders.belief_agent import BeliefAgent
from club_envs.arkham_decoders.belief_model import BeliefModel, network_inputs
from club_envs.arkham_decoders.engine import State
from club_envs.arkham_decoders.match import agent_seeds
from club_envs.arkham_decoders.observer import Observer
from club_envs.arkham_decoders.rules import Config
from club_envs.arkham_decoders.vector_belief import BatchedBeliefAgent, BatchedBlackManAgent, belief_inputs, vote_inputs
from club_envs.arkham_decoders.vector_engine import VOTE, VectorGames, apply_action
from club_envs.arkham_decoders.vector_game import ArkhamDecodersVectorGame
from club_envs.arkham_decoders.vector_heuristic import Scratch, choose_rows
from club_envs.arkham_decoders.vector_observer import VectorObserver
from club_envs.arkham_decoders.vote_value import BlackManAgent, VoteValueModel
from club_envs.arkham_decoders.vote_value import network_inputs as reference_vote_inputs
from club_envs.vector_evaluation import policy_win_share
from tests.differential import LONG, NO_JIT, passes_without_jit

SHIPPED = Path(__file__).resolve().parents[2] / "club_envs" / "agents" / "shipped"
GAMES = 600 if LONG else (3 if NO_JIT else 30)  # per case
CASES = {
    "4p": Config(num_players=4),
    "5p": Config(num_players=5),
    "6p": Config(num_players=6),
    "5p-fixed-roles-no-penalty": Config(num_players=5, roles=("member", "advisor", "leader", "advisor", "member"),
                                        insanity_penalty=0),
}


def team_model(kind: str) -> BeliefModel:
    if kind == "untrained":
        return BeliefModel.untrained((32,), seed=1)
    model = BeliefModel.load(SHIPPED / "arkham_team_belief.npz")
    if kind == "sharp":
        (w, b) = model.layers[-1]
        model = BeliefModel([*model.layers[:-1], (3 * w, 3 * b)])
    return model


def black_man_model() -> VoteValueModel:
    return VoteValueModel.load(SHIPPED / "arkham_selfplay_black_man.npz")


def deal_seeds(seed: int, count: int) -> list[int]:
    return [seed * 1_000 + g for g in range(count)]


def play_batched(config: Config, count: int, seed: int, team: BatchedBeliefAgent,
                 black_man: BatchedBlackManAgent | None = None) -> tuple[ArkhamDecodersVectorGame, list, list]:
    """``count`` games on the batched engine, every seat decided by the batched agents for all
    games at once (the Black Man by ``black_man`` if given, else by the team agent, i.e. the
    heuristic), a random move instead in 30% of the decisions of every second game. Returns the
    finished games, each game's moves and the agents' choice at each of them."""
    table = ArkhamDecodersVectorGame(count, num_players=config.num_players, roles=config.roles,
                                     insanity_penalty=config.insanity_penalty, autoreset=False)
    step = table.reset(seed=deal_seeds(seed, count))
    rng = np.random.default_rng(seed)
    moves, chosen = [[] for _ in range(count)], [[] for _ in range(count)]
    while (step.current_player >= 0).any():
        rows = np.flatnonzero(step.current_player >= 0)
        seats = step.current_player[rows]
        actions = np.zeros(count, np.int64)
        by_team = rows if black_man is None else rows[table.games.tables.black_man[rows] != seats]
        by_black_man = np.setdiff1d(rows, by_team)
        for agent, asked in ((team, by_team), (black_man, by_black_man)):
            if len(asked):
                state = GameRows(table.games, asked, step.current_player[asked])
                actions[asked] = agent(step.observation[asked], step.action_mask[asked], state)
        for g in rows:
            chosen[g].append(int(actions[g]))
            if g % 2 and rng.random() < 0.3:
                actions[g] = rng.choice(np.flatnonzero(step.action_mask[g]))
            moves[g].append(int(actions[g]))
        step = table.step(actions)
    return table, moves, chosen


def check_inputs(games: VectorGames, g: int, state: State, observer: Observer, where: str) -> None:
    """Every seat's belief inputs (and the Black Man's vote inputs) from the arrays of ``games``
    (in the position of ``state``) are the reference's on its view."""
    n = state.num_players
    rows, seats = np.full(n, g), np.arange(n)
    observations = VectorObserver(games.config).observe_games(games, rows, seats)
    x, prior = belief_inputs(games, rows, seats, observations)
    views = [state.player_view(seat) for seat in range(n)]
    expected_x, expected_prior = network_inputs(np.stack([observer.observe(v) for v in views]), views)
    assert x.tobytes() == expected_x.tobytes() and prior.tobytes() == expected_prior.tobytes(), where
    bm = state.black_man_seat
    got = vote_inputs(games, np.array([g]), observations[bm:bm + 1])
    assert got.tobytes() == reference_vote_inputs(observations[bm:bm + 1], [views[bm]]).tobytes(), where


@pytest.mark.long
@pytest.mark.parametrize("model", ["untrained", "shipped", "sharp"])
@pytest.mark.parametrize("case", list(CASES))
def test_the_batched_team_decides_as_the_reference_belief_agent_at_every_position(case, model):
    config, seed = CASES[case], 10 * list(CASES).index(case) + ["untrained", "shipped", "sharp"].index(model)
    team = BatchedBeliefAgent(team_model(model))
    table, moves, chosen = play_batched(config, GAMES, seed, team)
    reference, observer = BeliefAgent(team.model), Observer(config)
    replay = VectorGames(config, GAMES, seed=deal_seeds(seed, GAMES))  # in step with the reference, for the inputs
    decisions = 0
    for g in range(GAMES):
        state = State(config, setup=table.games.setup(g), reshuffle_decks=table.games.reshuffle_decks(g))
        for k, action in enumerate(moves[g]):
            seat, where = state.current_player, f"{case}, {model} model, game {g}, decision {k}"
            view = state.player_view(seat)
            observation = observer.observe(view)
            expected = reference.act(Decision(seat, view, state.legal_actions(), lambda o=observation: o, state.legal_mask))
            assert chosen[g][k] == expected, f"{where}, seat {seat} ({state.role_of(seat)}): {chosen[g][k]} != {expected}"
            if k % 5 == 0:
                check_inputs(replay, g, state, observer, where)
            decisions += 1
            state.apply_action(action)
            apply_action(replay.tables[g], replay.rules, action)
        assert state.is_over, f"{case}, game {g}"
    tally = team.tally
    assert decisions > 60 * GAMES and tally["decided"] > 0.6 * decisions
    assert tally["handed_back"] < 0.05 * (tally["decided"] + tally["handed_back"])  # the close calls only


def test_the_same_decisions_with_the_jit_disabled():
    passes_without_jit(__file__, "test_the_batched_team_decides_as_the_reference_belief_agent_at_every_position[5p-shipped]")


@pytest.mark.parametrize("exploration", [0.0, 0.3])
@pytest.mark.parametrize("players", [4, 5, 6])
def test_the_batched_black_man_votes_as_the_reference_one_with_the_same_random_numbers(players, exploration):
    """Each game's generator is seeded as the table seeds a reference Black Man at ``reset``: the
    same votes at every position, the random ones included."""
    config, count = Config(num_players=players), GAMES // 2
    model = black_man_model()
    black_man = BatchedBlackManAgent(model, exploration=exploration)
    seeds = deal_seeds(players, count)
    probe = ArkhamDecodersVectorGame(count, num_players=players, autoreset=False)
    probe.reset(seed=seeds)  # the deals play_batched plays: where each game's Black Man sits
    bm_seats = probe.games.tables.black_man
    black_man.seed_games(range(count), [agent_seeds(seeds[g], players)[bm_seats[g]] for g in range(count)])
    table, moves, chosen = play_batched(config, count, players, BatchedBeliefAgent(team_model("untrained")), black_man)
    votes = 0
    for g in range(count):
        state = State(config, setup=table.games.setup(g), reshuffle_decks=table.games.reshuffle_decks(g))
        reference = BlackManAgent(model, exploration=exploration)
        reference.reset(state.black_man_seat, agent_seeds(seeds[g], players)[state.black_man_seat])
        for k, action in enumerate(moves[g]):
            seat = state.current_player
            if seat == state.black_man_seat:
                view = state.player_view(seat)
                observation = Observer(config).observe(view)
                expected = reference.act(Decision(seat, view, state.legal_actions(), lambda o=observation: o,
                                                  state.legal_mask))
                assert chosen[g][k] == expected, f"{players}p, game {g}, decision {k}"
                votes += 1
            state.apply_action(action)
    tally = black_man.tally
    explored = votes - tally["decided"] - tally["handed_back"]
    assert votes > 5 * count and tally["handed_back"] < 0.02 * votes
    assert (explored > 0) == (exploration > 0)


def test_a_black_man_agent_refuses_other_seats_and_unseeded_exploration():
    config = Config(num_players=5)
    table = ArkhamDecodersVectorGame(2, num_players=5, autoreset=False)
    step = table.reset(seed=[1, 2])
    rows, seats = np.arange(2), step.current_player  # the leaders, proposing
    with pytest.raises(ValueError, match=r"plays the Black Man's votes only; asked to play seat \d of game 0 "
                                         r"\(Black Man: seat \d\) in the proposal phase"):
        BatchedBlackManAgent(black_man_model())(step.observation, step.action_mask, GameRows(table.games, rows, seats))
    while table.games.tables.phase[0] != VOTE or table.games.tables.current[0] != table.games.tables.black_man[0]:
        g0 = table.games.tables[0]
        apply_action(g0, table.games.rules, int(np.flatnonzero(table.games.legal_masks()[0])[0]))
    seat = np.array([table.games.tables.current[0]], np.int64)
    observation = VectorObserver(config).observe_games(table.games, np.array([0]), seat)
    with pytest.raises(ValueError, match="game 0 has no generator; seed it with seed_games first"):
        BatchedBlackManAgent(black_man_model(), exploration=0.5)(observation, table.games.legal_masks()[:1],
                                                                  GameRows(table.games, np.array([0]), seat))
    with pytest.raises(ValueError, match="exploration=2: expected a share between 0 and 1"):
        BatchedBlackManAgent(black_man_model(), exploration=2)


class CompiledHeuristicTeam:
    """The heuristic bot as a batched policy (compiled, near-ties by the reference bot)."""

    reads_state, name = True, "heuristic"

    def __call__(self, observations: np.ndarray, masks: np.ndarray, state: GameRows) -> np.ndarray:
        return choose_rows(state.games, state.rows, Scratch())[0]


def test_the_untrained_belief_team_is_the_heuristic_team_in_an_evaluation_series():
    """A zero last layer leaves the prior as it is: the belief agent's team plays the heuristic's
    team, so a series on the batched engine (the team as the learner) ends with the same wins."""
    team_side = {"leader": "learner", "member": "learner", "investigator": "learner", "black_man": "opponent"}
    for players in (4, 6):
        belief = policy_win_share("arkham_decoders", players, BatchedBeliefAgent(team_model("untrained")), "heuristic",
                                  30, seed=players, role_side=team_side)
        heuristic = policy_win_share("arkham_decoders", players, CompiledHeuristicTeam(), "heuristic", 30, seed=players,
                                     role_side=team_side)
        assert belief == heuristic and 0 < belief[0] < 1
