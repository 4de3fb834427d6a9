"""Members Only as a Gymnasium vector environment: N single-agent games on the batched engine.

```python
import gymnasium, club_envs
envs = gymnasium.make_vec("club_envs/MembersOnly-v0", num_envs=256, vectorization_mode="vector_entry_point",
                          num_players=4, opponents="heuristic")
obs, info = envs.reset(seed=0)
masks = envs.action_masks()  # (256, 101) bool
obs, rewards, terminated, truncated, info = envs.step(actions)
```

The same game, per sub-environment, as ``gymnasium.make("club_envs/MembersOnly-v0", ...)``
(:mod:`club_envs.members_only.gym_env`): the learner holds one seat, the observation is its flat
``float32`` vector, the action space is ``Discrete(101)`` per game, and the rewards are the same
(``reward_mode`` "win" or "score", optional ``heat_shaping``), summed over the opponents' moves
that follow the learner's. The games run on :mod:`club_envs.members_only.vector_engine`.

* ``opponents`` (:mod:`club_envs.members_only.vector_lineup`): ``"random"`` (uniformly random legal
  moves, drawn per game), ``"heuristic"`` or ``"heuristic_bold"`` (the bots of
  :mod:`club_envs.members_only.bots`, the same decisions, played in compiled code by
  :mod:`club_envs.members_only.vector_heuristic`), any other built-in bot by name (one per game
  and seat: ``heuristic_sampled``'s draws and choice compiled by
  :mod:`club_envs.members_only.vector_sampled`, the others' reference code on the seat's view; the
  same decisions either way), a
  batched policy (:class:`~club_envs.agents.batched.BatchedPolicy`: ``(observations (K, 510),
  masks (K, 101)) -> actions (K,)``, called once per round of moves for all games where it is to
  move), or a list of those, one per other seat clockwise from the learner.
  ``set_opponents(value, games=None)`` swaps them, in every game or only in the games given (each
  game has its own line-up).
* ``seat``: the learner's seat, or ``"random"`` for a new seat every game.
* Autoreset: ``AutoresetMode.SAME_STEP`` (``metadata["autoreset_mode"]``). The step that ends game
  ``i`` returns the first observation of its next game; the last observation is in
  ``info["final_obs"][i]`` and the final scores in ``info["final_info"]["scores"][i]`` (with the
  ``_final_obs`` and ``_scores`` masks, as Gymnasium's vector infos have them).
* ``before_deal``: a callable a trainer may set, called with the bool mask of the games about to be
  dealt anew (every game at ``reset``, the finished ones at an autoreset) just before the deal: a
  finished game's last position can still be read there, and each new game's opponents seated
  (``set_opponents(value, games=mask)``) before they make the game's first moves.
* ``keep_records=True``: that step also carries the finished game's standard record
  (docs/records.md) in ``info["record"][i]``, with the mask ``info["_record"]``
  (:mod:`club_envs.members_only.vector_records`; the learner's controller is ``"learner"``).
* ``action_masks()``: ``(N, 101)`` bool; every game always has a legal action, since a game is
  only handed back on the learner's turn.
* Bad actions -- a wrong shape, a dtype that is not whole numbers, an illegal action in any game --
  raise one :class:`~club_envs.errors.IllegalActionError` naming the game and its legal actions;
  no game moves. ``reset(options={"decks": ...})`` deals given decks (see
  :meth:`~club_envs.members_only.vector_engine.VectorGames.reset`).
* Same seed, same games: the deals, the random opponents' draws and the seats come from
  ``reset``'s seed; heuristic opponents are deterministic.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from club_envs.agents.base import Decision, act_grouped
from club_envs.agents.batched import ask_groups
from club_envs.errors import ConfigError, IllegalActionError, check_choice
from club_envs.members_only import actions as A
from club_envs.members_only.env import REWARD_MODES
from club_envs.members_only.observer import SIZE
from club_envs.members_only.rules import DEFAULT_REWARDS, DECK_SIZE, Config
from club_envs.members_only.vector_engine import VectorGames, first_illegal
from club_envs.members_only.vector_heuristic import Scratch, reference_choice
from club_envs.members_only.roster import AGENT_NAMES
from club_envs.members_only.vector_lineup import AGENT, POLICY, GameLineups
from club_envs.members_only.vector_views import view_of
from club_envs.members_only.vector_observer import VectorObserver
from club_envs.members_only.vector_records import record_of
from club_envs.members_only.vector_rng import draw, seed_states
from club_envs.members_only.vector_sampled import SampledScratch, answer_compiled
from club_envs.members_only.vector_turns import NOT_WAITING, advance, play_given


class MembersOnlyVectorEnv(VectorEnv):
    """N games of the single-agent Members Only view (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}
    # The bots it seats besides batched policies: every built-in one (NAMED in compiled code)
    OPPONENT_BOTS = AGENT_NAMES

    def __init__(
        self,
        num_envs: int,
        num_players: int = 4,
        opponents: Any = "random",
        seat: int | str = 0,
        rewards: Any = DEFAULT_REWARDS,
        max_heats: int = 30,
        random_start_player: bool = False,
        reward_mode: str = "win",
        heat_shaping: float = 0.0,
        keep_records: bool = False,
    ) -> None:
        self.config = Config(
            num_players=num_players, rewards=rewards, max_heats=max_heats, random_start_player=random_start_player
        )
        n = self.num_players = self.config.num_players
        if not (seat == "random" or (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < n)):
            raise ConfigError(f"seat={seat!r}: expected a seat 0..{n - 1} or 'random'")
        check_choice("reward_mode", reward_mode, tuple(REWARD_MODES))
        self.num_envs = int(num_envs)
        self.seat_option = seat
        self.reward_mode = tuple(REWARD_MODES).index(reward_mode)
        self.heat_shaping = float(heat_shaping)
        self.keep_records = bool(keep_records)
        self.single_observation_space = spaces.Box(low=0.0, high=1.0, shape=(SIZE,), dtype=np.float32)
        self.single_action_space = spaces.Discrete(A.NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.games = VectorGames(self.config, self.num_envs, seed=0)
        self.lineups = GameLineups(opponents, n, self.num_envs)
        self.observer = VectorObserver(self.config)
        self.seats = np.zeros(self.num_envs, np.int64)
        self._states = seed_states(0, self.num_envs)
        self._scratch = Scratch()
        self._sampled = SampledScratch()
        self._winners = np.zeros(n, np.bool_)
        self._rewards = np.zeros(self.num_envs, np.float64)
        # The opening moves score nothing: no heat is settled before the learner's first turn.
        self._opening_rewards = np.zeros(self.num_envs, np.float64)
        self._everywhere = np.ones(self.num_envs, np.bool_)
        self._waiting = np.full(self.num_envs, NOT_WAITING, np.int64)
        self._unclear = np.zeros(self.num_envs, np.bool_)
        self._obs = np.zeros((self.num_envs, SIZE), np.float32)
        # The logs of the records (empty unless keep_records): every action, every heat's deck.
        c = self.config
        per_heat = n * (c.rounds_per_heat - 1) * 3 + 2 * n
        shape = (self.num_envs, c.max_heats * per_heat) if self.keep_records else (self.num_envs, 0)
        self._log = np.zeros(shape, np.int16)
        self._log_lengths = np.zeros(self.num_envs, np.int64)
        self._log_decks = np.zeros((self.num_envs, c.max_heats if self.keep_records else 0, DECK_SIZE), np.int8)
        # Called with the bool mask of the games about to be dealt anew, before the deal: where a trainer
        # reads a finished game's last position and seats the next game's opponents (see the docstring).
        self.before_deal: Callable[[np.ndarray], None] | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """New games everywhere; ``options={"decks": (N, H, 65)}`` deals those decks for heats 1..H."""
        super().reset(seed=seed)
        deals, moves = np.random.SeedSequence(seed).spawn(2)
        decks = (options or {}).get("decks")
        everywhere = np.ones(self.num_envs, np.bool_)
        if self.before_deal is not None:
            self.before_deal(everywhere)
        self.games.reset(seed=deals, decks=decks)
        self._states[:] = seed_states(moves, self.num_envs)
        self._new_games(everywhere)
        return self.observer.observe(self.games, self.seats, self._obs).copy(), {"seat": self.seats.copy()}

    def step(self, actions: Any):
        actions = self._check_actions(actions)
        games = self.games
        self._play_given(self._everywhere, actions, self._rewards, add=False)
        self._drive(self._everywhere, self._rewards)
        terminated, truncated = games.is_terminal.copy(), games.is_truncated.copy()
        obs = self.observer.observe(games, self.seats, self._obs)
        info: dict[str, Any] = {}
        done = terminated | truncated
        if done.any():
            final_obs = np.full(self.num_envs, None, dtype=object)
            for g in np.flatnonzero(done):
                final_obs[g] = obs[g].copy()
            scores, _ = games.scores()
            info = {"final_obs": final_obs, "_final_obs": done, "final_info": {"scores": scores, "_scores": done}}
            if self.keep_records:
                records = np.full(self.num_envs, None, dtype=object)
                for g in np.flatnonzero(done):
                    records[g] = self.record(g)
                info["record"], info["_record"] = records, done.copy()
            if self.before_deal is not None:
                self.before_deal(done)
            games.reset_games(done)
            self._new_games(done)
            obs = self.observer.observe(games, self.seats, self._obs)
        info["seat"] = self.seats.copy()
        return obs.copy(), self._rewards.copy(), terminated, truncated, info

    def set_opponents(self, opponents: Any, games: Any = None) -> None:
        """Replace the opponents (any value ``opponents`` takes) of the games ``games`` (indices or a
        bool mask; ``None``: every game): they make every move from the next ``step`` on, in games
        under way too (``reset`` to start every game with them) -- how a trainer swaps in a new frozen
        snapshot without building a new environment, or seats each new game's draw from its pool."""
        self.lineups.set(opponents, games)

    def action_masks(self) -> np.ndarray:
        """(N, 101) bool: the learner's legal actions in every game."""
        return self.games.legal_masks().copy()

    def record(self, g: int) -> dict[str, Any]:
        """The standard record of game ``g`` so far, once it is over (``keep_records=True``)."""
        if not self.keep_records:
            raise ConfigError("records are kept only with keep_records=True")
        if not self.games.is_over[g]:
            raise ValueError(f"game {g} is still being played; its record comes on the step that ends it")
        t, n = self.games.tables, self.num_players
        heats = int(t.heat[g])
        start = (int(t.start[g]) - (heats - 1)) % n  # heat h starts h - 1 seats clockwise of heat 1
        seat = int(self.seats[g])
        controllers = ["learner" if s == seat else self.lineups.names[g, (s - seat - 1) % n] for s in range(n)]
        scores, _ = self.games.scores()
        return record_of(self.config, start, self._log_decks[g, :heats], self._log[g, : self._log_lengths[g]],
                         controllers, scores[g])

    # ------------------------------------------------------------------ the opponents' moves

    def _new_games(self, which: np.ndarray) -> None:
        """Seat the learner in freshly dealt games and play the opponents' moves before its first turn."""
        if self.seat_option == "random":
            self.seats[which] = self.np_random.integers(self.num_players, size=int(which.sum()))
        else:
            self.seats[which] = self.seat_option
        if self.keep_records:
            self._log_lengths[which] = 0
            self._log_decks[which, 0] = self.games.tables.deck[which]
        self._opening_rewards[which] = 0.0
        if self.lineups.agents:
            self._reset_agents(which)
        self._drive(which, self._opening_rewards)

    def _drive(self, which: np.ndarray, rewards: np.ndarray) -> None:
        """The opponents move in the games of ``which`` until the learner's turn (or the end): the
        compiled ones in :func:`advance`, then every batched policy once for all the games waiting
        on it and the reference bot for the heuristic's near-ties, until no game waits."""
        self._advance(which, rewards)
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
                actions[g] = self._reference_choice(int(g), masks[g])
            self._play_given(waiting, actions, rewards, add=True)
            self._advance(waiting, rewards)

    def _advance(self, which: np.ndarray, rewards: np.ndarray) -> None:
        games, lineups = self.games, self.lineups
        advance(
            games.tables, games.rules, which, self.seats, lineups.kinds, lineups.chip_cost, lineups.rival_weight,
            self._states, self.reward_mode, self.heat_shaping, self._winners, self.keep_records, self._log,
            self._log_lengths, self._log_decks, *self._scratch.arrays(), rewards, self._waiting, self._unclear,
        )

    def _play_given(self, which: np.ndarray, actions: np.ndarray, rewards: np.ndarray, add: bool) -> None:
        games = self.games
        play_given(
            games.tables, games.rules, which, actions, self.seats, self.reward_mode, self.heat_shaping,
            self._winners, self.keep_records, self._log, self._log_lengths, self._log_decks, rewards, add,
        )

    def _ask_agents(self, rows: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The built-in bots' moves in games ``rows``: the sampled heuristic's in compiled code, the
        others each asked on its seat's view (bots of one kind together, as their ``act_batch``
        allows)."""
        current = self.games.tables.current
        agents = [self.lineups.agents[g, (int(current[g]) - int(self.seats[g]) - 1) % self.num_players]
                  for g in rows.tolist()]
        out = np.zeros(len(rows), np.int64)
        fast, chosen = answer_compiled(self.games, rows, agents, self._sampled)  # heuristic_sampled, compiled
        out[fast] = chosen
        decisions = []
        for g in rows[~fast].tolist():
            seat = int(current[g])
            decisions.append(Decision.from_mask(seat, view_of(self.games, g, seat), masks[g].copy(),
                                                lambda g=g, seat=seat: self.observer.observe_games(
                                                    self.games, np.array([g]), np.array([seat]))[0]))
        if decisions:
            out[~fast] = act_grouped([a for a, f in zip(agents, fast) if not f], decisions)
        return out

    def _reset_agents(self, which: np.ndarray) -> None:
        """The reference bots of the games ``which`` start their games (seat, seed from the game's generator)."""
        n = self.num_players
        for (g, slot), agent in self.lineups.agents.items():
            if which[g]:
                agent.reset((int(self.seats[g]) + 1 + slot) % n, seed=int(draw(self._states, g, 2**31 - 1)))

    def _reference_choice(self, g: int, mask: np.ndarray) -> int:
        """The heuristic's choice in game ``g`` where the compiled one found a near-tie."""
        slot = (int(self.games.tables.current[g]) - int(self.seats[g]) - 1) % self.num_players
        return reference_choice(self.games, g, self.lineups.reference_bot(g, slot), mask, self._scratch)

    def _check_actions(self, actions: Any) -> np.ndarray:
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise IllegalActionError(
                f"actions must be {self.num_envs} whole numbers, one per game; got shape {actions.shape}, "
                f"dtype {actions.dtype}"
            )
        actions = actions.astype(np.int64)
        bad = first_illegal(self.games.tables, actions)
        if bad >= 0:
            legal = np.flatnonzero(self.games.legal_masks()[bad])
            raise IllegalActionError(
                f"game {bad}: action {actions[bad]} is not legal for the learner (seat {self.seats[bad]}); "
                f"legal actions: {', '.join(map(str, legal))}"
            )
        return actions


__all__ = ["MembersOnlyVectorEnv"]
