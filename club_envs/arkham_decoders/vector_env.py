"""Arkham Decoders Club as a Gymnasium vector environment: N single-agent games on the batched engine.

```python
import gymnasium, club_envs
envs = gymnasium.make_vec("club_envs/ArkhamDecoders-v0", num_envs=256, vectorization_mode="vector_entry_point",
                          num_players=5, role="black_man", opponents="heuristic")
obs, info = envs.reset(seed=0)
masks = envs.action_masks()  # (256, 30) bool
obs, rewards, terminated, truncated, info = envs.step(actions)
```

The same game, per sub-environment, as ``gymnasium.make("club_envs/ArkhamDecoders-v0", ...)``
(:mod:`club_envs.arkham_decoders.gym_env`): the learner plays one role, the observation is its
seat's flat ``float32`` vector, the action space is ``Discrete(30)`` per game, and the reward is the
same (0 until the end, then ``reward_mode`` "win" +1/-1 or "san", the scaled SAN total, negated for
the Black Man). The games run on :mod:`club_envs.arkham_decoders.vector_engine`.

* ``role``: ``"leader"``, ``"member"``, ``"investigator"``, ``"black_man"`` (the seat dealt that
  role; among several members one at random) or ``"any"`` (a random seat every game); or a sequence
  of those, game ``i`` playing ``role[i % len(role)]`` -- how a trainer holds a side's roles in one
  set of games (``("leader", "member", "investigator")``: the team), not one small set per role,
  whose per-call costs would be paid once per role. ``info["role"]`` says each game's. ``roles``
  fixes the public roles and ``insanity_penalty`` sets the penalty, as in the one-game env.
* ``opponents`` (:mod:`club_envs.arkham_decoders.vector_lineup`): ``"random"`` (uniformly random
  legal moves, drawn per game) or ``"heuristic"`` (the bot of :mod:`club_envs.arkham_decoders.bots`,
  the same decisions, played in compiled code by :mod:`club_envs.arkham_decoders.vector_heuristic`),
  any other built-in bot by name (the style families, the held-out bots: its reference code, a new
  one per game and seat, on the seat's view -- the same decisions at the bot's own speed), a batched
  policy (:class:`~club_envs.agents.batched.BatchedPolicy`: ``(observations (K, 409),
  masks (K, 30)) -> actions (K,)``, or with ``reads_state = True`` also handed the
  :class:`~club_envs.agents.batched.GameRows` of its rows -- e.g. to compute its
  ``arkham_heuristic`` inputs with :func:`club_envs.arkham_decoders.vector_features.heuristic_inputs_rows`;
  called once per round of moves for all games where it is to move), a list of those, one per
  other seat clockwise from the learner, or a dict ``{role: one of those}`` (roles leader, member,
  investigator, black_man; the learner's own may be left out). ``set_opponents(value, games=None)``
  swaps them, in every game or only in the games given (each game has its own line-up), from
  their next move on.
* A game that ends before the learner's first decision (the last member clockwise only acts when
  someone passes) is dealt again, at most 100 times, as in the one-game env.
* Autoreset: ``AutoresetMode.SAME_STEP`` (``metadata["autoreset_mode"]``). The step that ends game
  ``i`` returns the first observation of its next game; the last observation is in
  ``info["final_obs"][i]``, and ``info["final_info"]`` holds the finished games' ``scores`` (N, n),
  ``winners`` (N, n) and SAN ``total`` (N,) (with the ``_final_obs``, ``_scores``, ``_winners`` and
  ``_total`` masks, as Gymnasium's vector infos have them). ``info["seat"]`` and ``info["role"]``
  say where the learner sits in every game.
* ``before_deal``: a callable a trainer may set, called with the bool mask of the games about to be
  dealt anew (every game at ``reset``, the finished ones at an autoreset) just before the deal: a
  finished game's last position can still be read there, and each new game's opponents seated
  (``set_opponents(value, games=mask)``) before they make the game's first moves.
* ``keep_records=True``: the step that ends game ``i`` also gives its standard JSON record
  (docs/records.md; the learner's controller ``"learner"``, each other seat's the name of the
  opponent seated there when the game ended) in ``info["record"][i]``, with the ``info["_record"]``
  mask. It validates against the shipped schema and
  :func:`club_envs.arkham_decoders.replay.replay` reproduces it
  (:mod:`club_envs.arkham_decoders.vector_records`). Its ``seed`` is null: the record holds the deal
  and the reshuffled decks instead. Off by default: building a record replays the game on the
  reference engine.
* ``action_masks()``: ``(N, 30)`` bool; every game always has a legal action, since a game is only
  handed back on the learner's turn.
* Bad actions (wrong shape or dtype, an illegal action in any game) raise
  :class:`~club_envs.errors.IllegalActionError` naming the game and its legal actions; no game
  moves. A batched policy's bad answer raises it too, naming the game, the seat and the legal
  actions.
* Same seed, same games: the deals, the random opponents' draws and the seats come from
  ``reset``'s seed; heuristic opponents are deterministic.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from club_envs.agents.base import Decision, act_grouped
from club_envs.agents.batched import ask_groups
from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.env import REWARD_MODES
from club_envs.arkham_decoders.gym_env import LEARNER_ROLES, MAX_DEALS
from club_envs.arkham_decoders.rules import ROLES, Config
from club_envs.arkham_decoders.vector_engine import VectorGames, check_action_array, describe_illegal, first_illegal
from club_envs.arkham_decoders.vector_heuristic import Scratch, reference_choice
from club_envs.arkham_decoders.roster import AGENT_NAMES, make_agent
from club_envs.arkham_decoders.vector_lineup import AGENT, POLICY, GameLineups
from club_envs.arkham_decoders.vector_views import view_of
from club_envs.arkham_decoders.vector_observer import VectorObserver
from club_envs.arkham_decoders.vector_records import ActionLog, game_record
from club_envs.arkham_decoders.vector_turns import (
    ANY_ROLE,
    DECIDED,
    HANDED_BACK,
    NOT_WAITING,
    advance,
    deal_games,
    learner_rewards,
    play_given,
)
from club_envs.errors import ConfigError, IllegalActionError, check_choice
from club_envs.vector_rng import draw, seed_states


class ArkhamDecodersVectorEnv(VectorEnv):
    """N games of the single-agent Arkham Decoders Club view (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}
    OPPONENT_BOTS = AGENT_NAMES  # the bots it seats besides batched policies (random, heuristic compiled)

    def __init__(
        self,
        num_envs: int,
        num_players: int = 5,
        role: str | Sequence[str] = "any",
        opponents: Any = "random",
        roles: Sequence[str] | None = None,
        insanity_penalty: int | None = None,
        reward_mode: str = "win",
        keep_records: bool = False,
    ) -> None:
        self.config = Config(
            num_players=num_players, roles=tuple(roles) if roles is not None else None, insanity_penalty=insanity_penalty
        )
        self.num_players = self.config.num_players
        learner_roles = (role,) if isinstance(role, str) else tuple(role)
        if not learner_roles:
            raise ConfigError(f"role=(): expected one of {', '.join(LEARNER_ROLES)} or a sequence of them")
        for one in learner_roles:
            check_choice("role", one, tuple(LEARNER_ROLES))
        check_choice("reward_mode", reward_mode, tuple(REWARD_MODES))
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ConfigError(f"num_envs={num_envs!r}: expected a whole number >= 1")
        self.num_envs = int(num_envs)
        if not isinstance(keep_records, bool):
            raise ConfigError(f"keep_records={keep_records!r}: expected True or False")
        self.role = role if isinstance(role, str) else learner_roles
        # a dict line-up may leave out the learner's role only when it is always the same one
        self.lineups = GameLineups(opponents, self.num_players, self.num_envs,
                                   learner_roles[0] if len(set(learner_roles)) == 1 else "any")
        self.keep_records = keep_records
        self._log = ActionLog(self.num_envs, keep_records)
        codes = [ANY_ROLE if one == "any" else ROLES.index(one) for one in learner_roles]
        self._role_codes = np.array([codes[g % len(codes)] for g in range(self.num_envs)], np.int64)
        self.reward_mode = tuple(REWARD_MODES).index(reward_mode)
        self.observer = VectorObserver(self.config)
        self.single_observation_space = spaces.Box(low=0.0, high=1.0, shape=(self.observer.size,), dtype=np.float32)
        self.single_action_space = spaces.Discrete(A.NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.games = VectorGames(self.config, self.num_envs, seed=0)
        self.seats = np.zeros(self.num_envs, np.int64)
        self._states = seed_states(0, self.num_envs)
        self._bot_states = seed_states(1, self.num_envs)
        self._scratch = Scratch()
        self._tally = np.zeros(2, np.int64)
        self._everywhere = np.ones(self.num_envs, np.bool_)
        self._waiting = np.full(self.num_envs, NOT_WAITING, np.int64)
        self._unclear = np.zeros(self.num_envs, np.bool_)
        self._rewards = np.zeros(self.num_envs, np.float64)
        self._obs = np.zeros((self.num_envs, self.observer.size), np.float32)
        self._agents: dict[tuple[int, int], Any] = {}  # (game, seat) -> the reference bot playing it this game
        # Called with the bool mask of the games about to be dealt anew, before the deal: where a trainer
        # reads a finished game's last position and seats the next game's opponents (see the docstring).
        self.before_deal: Callable[[np.ndarray], None] | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """New games everywhere (``seed``: the deals and the opponents' moves of every game)."""
        super().reset(seed=seed)
        deals, moves, bots = np.random.SeedSequence(seed).spawn(3)  # the first two as before reference bots came
        self.games.tables.rng[:] = seed_states(deals, self.num_envs)
        self._states[:] = seed_states(moves, self.num_envs)
        self._bot_states[:] = seed_states(bots, self.num_envs)  # the reference bots' seeds: the moves' own stream untouched
        everywhere = np.ones(self.num_envs, np.bool_)
        if self.before_deal is not None:
            self.before_deal(everywhere)
        self._open(everywhere)
        return self.observer.observe(self.games, self.seats, self._obs).copy(), self._info()

    def step(self, actions: Any):
        actions = self._check_actions(actions)
        games = self.games
        play_given(games.arrays, games.rules, self._everywhere, actions, self._log.actions, self._log.counts)
        self._drive(self._everywhere)
        learner_rewards(games.arrays, games.rules, self.seats, self.reward_mode, self._rewards)
        terminated = games.is_over.copy()
        truncated = np.zeros(self.num_envs, np.bool_)
        obs = self.observer.observe(games, self.seats, self._obs)
        info: dict[str, Any] = {}
        if terminated.any():
            final_obs = np.full(self.num_envs, None, dtype=object)
            for g in np.flatnonzero(terminated):
                final_obs[g] = obs[g].copy()
            totals, scores, winners = games.scores()
            info = {
                "final_obs": final_obs, "_final_obs": terminated,
                "final_info": {
                    "scores": scores.astype(np.float64), "_scores": terminated, "winners": winners,
                    "_winners": terminated, "total": totals, "_total": terminated,
                },
            }
            if self.keep_records:
                info["record"], info["_record"] = self._records(terminated, totals), terminated.copy()
            if self.before_deal is not None:
                self.before_deal(terminated)
            self._open(terminated)
            obs = self.observer.observe(games, self.seats, self._obs)
        info.update(self._info())
        return obs.copy(), self._rewards.copy(), terminated, truncated, info

    def set_opponents(self, opponents: Any, games: Any = None) -> None:
        """Replace the opponents (any value ``opponents`` takes) of the games ``games`` (indices or a
        bool mask; ``None``: every game): they make every move from the next one on, in games under
        way too (``reset`` to start every game with them) -- how a trainer swaps in a new frozen
        snapshot without building a new environment, or seats each new game's draw from its pool.
        The other games keep theirs."""
        self.lineups.set(opponents, games)
        if self._agents:  # reference bots of the games given are built anew, by the new names
            chosen = np.zeros(self.num_envs, np.bool_)
            chosen[np.arange(self.num_envs) if games is None else games] = True
            self._agents = {key: agent for key, agent in self._agents.items() if not chosen[key[0]]}

    def action_masks(self) -> np.ndarray:
        """(N, 30) bool: the learner's legal actions in every game."""
        return self.games.legal_masks().copy()

    @property
    def heuristic_tally(self) -> dict[str, int]:
        """How many decisions the heuristic opponents took since this environment was built: in
        compiled code (``decided``), and near-ties handed back to the reference bot
        (``handed_back``)."""
        return {"decided": int(self._tally[DECIDED]), "handed_back": int(self._tally[HANDED_BACK])}

    # ------------------------------------------------------------------ the opponents' moves

    def _open(self, which: np.ndarray) -> None:
        """New games where ``which`` is set: dealt, the learner seated, the opponents' moves before
        its first turn; dealt again while a game ends before that, at most ``MAX_DEALS`` times."""
        games, todo = self.games, which.copy()
        for _ in range(MAX_DEALS):
            deal_games(games.arrays, games.rules, todo, self._role_codes, self.seats, self._log.counts)
            if self._agents:  # the reference bots of the last games leave with them
                self._agents = {key: agent for key, agent in self._agents.items() if not todo[key[0]]}
            self._drive(todo)
            todo &= games.is_over
            if not todo.any():
                return
        g = int(np.flatnonzero(todo)[0])
        code = int(self._role_codes[g])
        role = "any" if code == ANY_ROLE else ROLES[code]
        raise RuntimeError(
            f"game {g}: {MAX_DEALS} games in a row ended before the {role} learner had a "
            "decision; its seat only acts when the opponents pass (choose another role or other opponents)"
        )

    def _drive(self, which: np.ndarray) -> None:
        """The opponents move in the games of ``which`` until the learner's turn (or the end): the
        compiled ones in :func:`advance`, then every batched policy once for all the games waiting
        on it and the reference bot for the heuristic's near-ties, until no game waits."""
        self._advance(which)
        while True:
            waiting = self._waiting != NOT_WAITING
            if not waiting.any():
                return
            actions = np.zeros(self.num_envs, np.int64)
            masks = self.games.legal_masks()
            asking = np.flatnonzero(waiting & ~self._unclear)
            kinds = self.lineups.kinds[asking, self._waiting[asking]]
            policies = asking[kinds == POLICY]
            groups = self.lineups.group[policies, self._waiting[policies]]
            ask_groups([(self.lineups.groups[int(n)], policies[groups == n]) for n in np.unique(groups)],
                       self.games, self.observer, masks, actions)
            agents = asking[kinds == AGENT]
            if len(agents):
                actions[agents] = self._ask_agents(agents, masks)
            for g in np.flatnonzero(waiting & self._unclear):
                actions[g] = reference_choice(self.games, int(g), masks[g])
            play_given(self.games.arrays, self.games.rules, waiting, actions, self._log.actions, self._log.counts)
            self._advance(waiting)

    def _advance(self, which: np.ndarray) -> None:
        games, lineups = self.games, self.lineups
        advance(
            games.arrays, games.rules, which, self.seats, lineups.by_role, lineups.kinds, self._states,
            *self._scratch.arrays(), self._log.actions, self._log.counts, self._tally, self._waiting, self._unclear,
        )

    def _ask_agents(self, rows: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The reference bots' moves in games ``rows``, each asked on its seat's view (bots of one
        kind together, as their ``act_batch`` allows). A game's bot is built when it first moves --
        one per game and seat, reset with that seat and a seed from the game's generator, as the
        one-game environment seats a new bot every game."""
        agents, decisions = [], []
        for g in rows.tolist():
            seat = int(self.games.tables.current[g])
            agent = self._agents.get((g, seat))
            if agent is None:
                name = self.lineups.names[g, int(self._waiting[g])]
                seed = int(draw(self._bot_states, g, 2**31 - 1))
                agent = self._agents[g, seat] = make_agent(name, self.config, seed=seed)
                agent.reset(seat, seed)
            agents.append(agent)
            decisions.append(Decision.from_mask(seat, view_of(self.games, g, seat), masks[g].copy(),
                                                lambda g=g, seat=seat: self.observer.observe_games(
                                                    self.games, np.array([g]), np.array([seat]))[0]))
        return np.array(act_grouped(agents, decisions), np.int64)

    # ------------------------------------------------------------------ records and infos

    def _records(self, ended: np.ndarray, totals: np.ndarray) -> np.ndarray:
        """The records of the games that just ended (None for the others)."""
        records = np.full(self.num_envs, None, dtype=object)
        roles = self.games.roles()
        for g in np.flatnonzero(ended):
            records[g] = game_record(self.games, int(g), self._log.decisions(g), self.controllers(int(g), roles[g]),
                                     int(totals[g]))
        return records

    def controllers(self, g: int, roles: np.ndarray | None = None) -> list[str]:
        """Who plays each seat of game ``g``: ``"learner"``, or the name of the opponent seated there."""
        roles = self.games.roles()[g] if roles is None else roles
        learner = int(self.seats[g])
        slots = [self.lineups.slot(g, seat, learner, int(roles[seat])) for seat in range(self.num_players)]
        return ["learner" if seat == learner else self.lineups.names[g, slot] for seat, slot in enumerate(slots)]

    def _info(self) -> dict[str, Any]:
        roles = self.games.roles()[np.arange(self.num_envs), self.seats]
        return {"seat": self.seats.copy(), "role": np.array(ROLES, dtype=object)[roles]}

    def _check_actions(self, actions: Any) -> np.ndarray:
        actions = check_action_array(actions, self.num_envs)
        bad = first_illegal(self.games.arrays, actions)
        if bad >= 0:
            who = f"the learner (seat {self.seats[bad]})"
            raise IllegalActionError(
                describe_illegal(self.games.tables, self.games.legal_masks()[bad], bad, actions[bad], who)
            )
        return actions


__all__ = ["ArkhamDecodersVectorEnv"]
