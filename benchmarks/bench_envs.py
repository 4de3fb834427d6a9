"""How fast are the environments, as a learner uses them?

Plays uniformly random legal games through the AEC interface exactly as a user gets it from
``env()`` (standard wrappers on, an observation built at every step) and prints agent-steps per
second and games per second for each club-envs game, beside, in the same run:

* PettingZoo classic environments (``leduc_holdem_v4``, ``connect_four_v3``);
* a *trivial ceiling* per game: an AEC environment with the same spaces, the same wrappers and
  about the same game length that does no game work -- the speed of the API itself;
* the raw engine: decisions per second with legal-action lists and no observations.

Rates are per CPU-second of the benchmark process (``time.process_time``), so other work on a
shared machine does not distort them; each environment is timed in several short rounds,
interleaved, and its best round is kept.

    python benchmarks/bench_envs.py [--seconds 1] [--rounds 5] [--wrappers]

Adding a game is one :class:`Game` entry in :data:`GAMES` (an env factory and a raw-engine timer).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers


# --------------------------------------------------------------------------- the timed loop


def time_aec(make_env: Callable[[], AECEnv], seconds: float, seed: int = 0) -> tuple[float, float]:
    """(agent-steps, games) per CPU-second of random legal play, sampling each action under the mask."""
    env = make_env()
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed + games)
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                action = None
            else:
                legal = np.flatnonzero(observation["action_mask"])
                action = int(legal[rng.integers(len(legal))])
                steps += 1
            env.step(action)
        games += 1
    elapsed = time.process_time() - cpu_start
    env.close()
    return steps / elapsed, games / elapsed


def classic_wrappers(env: AECEnv) -> AECEnv:
    """PettingZoo's standard wrappers, in the order classic environments use them."""
    env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


class TrivialAECEnv(AECEnv):
    """An AEC environment that does no game work: the spaces and agent count of a template
    environment, every action legal, the game over after ``length`` steps."""

    metadata = {"name": "trivial_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self, template: AECEnv, length: int) -> None:
        super().__init__()
        self.possible_agents = list(template.possible_agents)
        agent = self.possible_agents[0]
        self._observation_space = template.observation_space(agent)
        self._action_space = template.action_space(agent)
        self._observation = self._observation_space["observation"].sample() * 0
        self._mask = np.ones(self._observation_space["action_mask"].shape, dtype=np.int8)
        self.length = length

    def observation_space(self, agent):
        return self._observation_space

    def action_space(self, agent):
        return self._action_space

    def observe(self, agent):
        return {"observation": self._observation.copy(), "action_mask": self._mask.copy()}

    def reset(self, seed=None, options=None):
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._steps = 0
        self._turn = 0
        self.agent_selection = self.agents[0]

    def step(self, action):
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[self.agent_selection] = 0.0
        self._steps += 1
        self._turn = (self._turn + 1) % len(self.agents)
        self.agent_selection = self.agents[self._turn]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self._steps >= self.length:
            self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()


# --------------------------------------------------------------------------- the games


def members_only_env() -> AECEnv:
    from club_envs import members_only_v0

    return members_only_v0.env(num_players=4)


def members_only_raw(seconds: float) -> float:
    from club_envs.members_only.engine import State
    from club_envs.members_only.rules import Config

    return raw_engine_rate(State, Config(num_players=4), seconds)


def arkham_decoders_env() -> AECEnv:
    from club_envs import arkham_decoders_v0

    return arkham_decoders_v0.env(num_players=5)


def arkham_decoders_raw(seconds: float) -> float:
    from club_envs.arkham_decoders.engine import State
    from club_envs.arkham_decoders.rules import Config

    return raw_engine_rate(State, Config(num_players=5), seconds)


def raw_engine_rate(state_class, config, seconds: float) -> float:
    """Raw engine: decisions per CPU-second with legal-action lists, no observations."""
    rng = random.Random(0)
    decisions = games = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    while time.perf_counter() - start < seconds:
        state = state_class(config, seed=games)
        while not state.is_over:
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            decisions += 1
        games += 1
    return decisions / (time.process_time() - cpu_start)


@dataclass(frozen=True)
class Game:
    label: str
    make_env: Callable[[], AECEnv]
    raw_engine: Callable[[float], float]
    game_length: int  # typical agent-steps per random game, for the trivial ceiling


GAMES: list[Game] = [
    Game("members_only_v0 (4 players)", members_only_env, members_only_raw, game_length=550),
    Game("arkham_decoders_v0 (5 players)", arkham_decoders_env, arkham_decoders_raw, game_length=70),
]


def classic_baselines() -> list[tuple[str, Callable[[], AECEnv]]]:
    from pettingzoo.classic import connect_four_v3, leduc_holdem_v4

    return [("leduc_holdem_v4", leduc_holdem_v4.env), ("connect_four_v3", connect_four_v3.env)]


def wrapper_breakdown(game: Game) -> list[tuple[str, Callable[[], AECEnv]]]:
    """The game's raw env with PettingZoo's standard wrappers added one at a time."""
    raw = lambda: game.make_env().unwrapped  # noqa: E731

    return [
        (f"{game.label}: raw_env, no wrappers", raw),
        (f"{game.label}: + TerminateIllegal", lambda: wrappers.TerminateIllegalWrapper(raw(), illegal_reward=-1)),
        (
            f"{game.label}: + AssertOutOfBounds",
            lambda: wrappers.AssertOutOfBoundsWrapper(wrappers.TerminateIllegalWrapper(raw(), illegal_reward=-1)),
        ),
        (f"{game.label}: + OrderEnforcing (= env())", lambda: classic_wrappers(raw())),
    ]


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> dict[str, tuple[float, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one timing round (default 1)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds per environment; best kept (default 5)")
    parser.add_argument("--wrappers", action="store_true", help="also time each standard wrapper's cost")
    args = parser.parse_args(argv)

    entries: list[tuple[str, Callable[[], AECEnv]]] = []
    ceilings: dict[str, str] = {}
    for game in GAMES:
        ceiling = f"trivial ceiling for {game.label}"
        entries.append((game.label, game.make_env))
        entries.append(
            (ceiling, lambda g=game: classic_wrappers(TrivialAECEnv(g.make_env().unwrapped, g.game_length)))
        )
        ceilings[game.label] = ceiling
        if args.wrappers:
            entries.extend(wrapper_breakdown(game))
    entries.extend(classic_baselines())

    best: dict[str, tuple[float, float]] = {}
    for _ in range(args.rounds):
        for label, make in entries:
            steps, games = time_aec(make, args.seconds)
            if label not in best or steps > best[label][0]:
                best[label] = (steps, games)
    raw = {}
    for _ in range(args.rounds):
        for game in GAMES:
            raw[game.label] = max(raw.get(game.label, 0.0), game.raw_engine(args.seconds))

    print(f"\n{'environment (random legal play, env() as users get it)':<58} {'steps/cpu-s':>14} {'games/cpu-s':>11}")
    for label, _ in entries:
        steps, games = best[label]
        print(f"{label:<58} {steps:>14,.0f} {games:>11,.1f}")
    print(f"\n{'raw engine (legal-action lists, no observations)':<58} {'decisions/cpu-s':>15}")
    for game in GAMES:
        print(f"{game.label:<58} {raw[game.label]:>14,.0f}")
    print()
    leduc = best["leduc_holdem_v4"][0]
    for game in GAMES:
        steps = best[game.label][0]
        ceiling = best[ceilings[game.label]][0]
        print(f"{game.label}: {steps / leduc:.2f}x leduc_holdem_v4, {steps / ceiling:.2f}x its trivial ceiling")
    return best


if __name__ == "__main__":
    main()
