"""PPO of our own on the batched multi-agent engine: every seat of every game is a decision to learn from.

    club-envs train configs/members_only_table_ppo.yaml
    club-envs train --resume runs/members_only_table_ppo-<stamp>

The stable-baselines3 trainer (:mod:`club_envs.training.train`) sees one seat per game: the other
seats are environment. Here the games are :class:`~club_envs.vector_game.VectorGame` tables
(``club_envs.make_vector_game``), every seat played by the learner or by a member of its league,
and every decision the learner makes -- in every seat -- is a sample. One file, top to bottom:

0. **Imitation** (``imitation.decisions`` > 0): first the learner's seats play the anchor bot's
   choices and each rollout fits the actor to them by cross-entropy and the critic to the returns of
   that play (``imitation.epochs`` passes at ``imitation.learning_rate``); the league's first snapshot is the imitated policy.
   These decisions are counted apart (``imitated``), not in the PPO budget or the anchor's anneal.
1. **Tables.** ``ppo.games`` games split over the table sizes. When a game starts, with probability
   ``league.share`` the learner takes one seat (at random) and each other seat draws a league member
   (a frozen snapshot, chosen as ``selfplay.scheme: loss`` does: the ones it still loses to more
   often, or a bot of ``league.bots`` with ``league.bot_share``); otherwise it holds every seat.
2. **Rollout.** ``ppo.steps`` moves of every game. The learner's decisions are answered by one
   forward pass per table; a member's by one per member. Each seat's decisions form its own chain:
   the rewards the table hands a seat between two of its decisions belong to the first; a game's
   end closes the chain; a chain cut by the rollout's end is bootstrapped from the critic's value of
   that seat's position.
3. **Advantages** by GAE along each chain (``ppo.gamma`` and ``ppo.gae_lambda`` per own decision).
4. **Update**: ``ppo.epochs`` passes of clipped PPO over minibatches of ``ppo.minibatch``, advantages
   normalised over the rollout, entropy bonus ``ppo.entropy``, value loss ``ppo.value_coef``, step size
   ``ppo.learning_rate`` (or, with ``ppo.learning_rate_final``, moving linearly to that over the budget); with
   ``anchor.coef`` > 0 also the cross-entropy to the anchor bot's choice (the exact heuristic's or the
   belief agent's), its
   weight falling linearly to 0 over ``anchor.anneal_steps`` learner decisions (a pull that keeps the
   policy near a known-good one while its critic is still poor, then lets go).
5. **League, evaluation, checkpoint** when due: snapshots into ``pool/player/`` (the pool file of the
   stable-baselines3 trainer's format); evaluation games on the batched engine against
   ``evaluation.opponents`` (``evaluations.csv``, ``best/policy.pt``); a checkpoint
   (``checkpoint.pt``: networks, optimiser, counters, generators) and ``latest/policy.pt``. With
   ``exploiters.every`` > 0, every so many decisions an **exploiter** joins the league: a best
   responder (the ``club-envs exploit`` trainer) trained against the policy as it is then, drawn
   as every member is -- the more often, the more the learner loses to it.

The actor reads the seat's observation and ``network.features``; with ``ppo.critic: privileged``
the critic also reads the hidden state (every hand, discard and the cards out of play, seat by seat
from the deciding seat's, :mod:`club_envs.members_only.vector_privileged`). Exported policies are
ordinary policy files (:mod:`club_envs.agents.policy`). A resumed run starts new games (the tables'
positions are not kept); the same seed and budget give the same run.
"""

from __future__ import annotations

import copy
import csv
import json
import os
import shutil
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from threadpoolctl import threadpool_limits

from club_envs.agents.batched import GameRows
from club_envs.agents.features import get as get_features
from club_envs.agents.policy import BatchedPolicyAgent, PolicyAgent, load_policy_file
from club_envs.compiled import compiled
from club_envs.games import get_spec
from club_envs.members_only.vector_features import HeuristicRows
from club_envs.members_only.vector_heuristic import Scratch, choose
from club_envs.members_only.bots import HeuristicAgent
from club_envs.members_only.vector_privileged import SIZE as HIDDEN_SIZE
from club_envs.members_only.vector_privileged import privileged_rows
from club_envs.training import evaluations
from club_envs.training.config import ConfigFileError
from club_envs.training.policy_meta import write_policy
from club_envs.training.progress import Reporter
from club_envs.training.run_folder import append_csv, save_state
from club_envs.training.selfplay import SnapshotPool
from club_envs.training.settings import START_FROM_POLICY, WARM_START_RECIPE, ExploitSettings, TablePpoConfig
from club_envs.training.torch_mlp import activation_class, announce_precision, run_in
from club_envs.vector_game import make_vector_game

SIDE = "player"
LEARNER = -1  # a seat's controller: the learner, or a league member's index
BOTS = {"heuristic": HeuristicAgent(), "heuristic_bold": HeuristicAgent(chip_cost=(0.25, 0.5), rival_weight=0.0)}
PROGRESS_FILE = "progress.csv"
PROGRESS_COLUMNS = ["advantage_std", "anchor_coef", "anchor_loss", "approx_kl", "clip_fraction", "decisions", "entropy",
                    "explained_variance", "imitated", "learning_rate", "policy_loss", "rollout_seconds", "steps",
                    "steps_per_second", "update_seconds", "value_loss"]


# --------------------------------------------------------------------------- the networks

def mlp(inputs: int, hidden: tuple[int, ...], activation: str) -> torch.nn.Sequential:
    layers: list[torch.nn.Module] = []
    for width in hidden:
        layers += [torch.nn.Linear(inputs, width), activation_class(activation)()]
        inputs = width
    return torch.nn.Sequential(*layers)


class Actor(torch.nn.Module):
    """Inputs -> hidden layers -> logits, named as the policy files name them (``policy_net``,
    ``action_net``), so the weights export as they are."""

    def __init__(self, inputs: int, actions: int, hidden: tuple[int, ...], activation: str,
                 precision: str = "float32") -> None:
        super().__init__()
        # ``ppo.precision``: the hidden layers' arithmetic; the logits stay float32 (PPO's ratios divide
        # their exponentials), and so do the weights and the files they are exported to
        self.policy_net = run_in(mlp(inputs, hidden, activation), precision)
        self.action_net = torch.nn.Linear(hidden[-1], actions)
        torch.nn.init.orthogonal_(self.action_net.weight, gain=0.01)  # near-uniform at the start
        torch.nn.init.zeros_(self.action_net.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.action_net(self.policy_net(x))

    def file_weights(self) -> dict[str, torch.Tensor]:
        """The weights under the names of a policy file (``mlp_extractor.policy_net.*``, ``action_net.*``)."""
        out = {f"mlp_extractor.policy_net.{k}": v.detach().clone() for k, v in self.policy_net.state_dict().items()}
        out.update({f"action_net.{k}": v.detach().clone() for k, v in self.action_net.state_dict().items()})
        return out


class Critic(torch.nn.Module):
    def __init__(self, inputs: int, hidden: tuple[int, ...], activation: str, precision: str = "float32") -> None:
        super().__init__()
        self.body = run_in(mlp(inputs, hidden, activation), precision)
        self.head = torch.nn.Linear(hidden[-1], 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x)).squeeze(-1)


def masked_logits(logits: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    return torch.where(masks, logits, torch.full_like(logits, -1e9))


def anchor_policy(bot: str):
    """The anchor's choices as a batched policy (rows of the batched engine -> actions): the exact
    heuristic's (compiled, its near-ties settled by the reference bot) or the belief agent's (the
    heuristic's rule on the frozen belief model the ``members_only_belief_inputs`` read)."""
    if bot == "belief":
        from club_envs.members_only.belief_agent import BeliefAgent
        from club_envs.members_only.features import belief_model

        return BeliefAgent(belief_model(), name="anchor").batched()
    rows = HeuristicRows()
    return lambda observations, masks, state: rows(state.games, state.rows, state.seats)[:, -masks.shape[1]:].argmax(1)


# --------------------------------------------------------------------------- the rollout buffer

@dataclass
class Rollout:
    """The learner's decisions of one rollout, in the order they were made."""

    inputs: list[np.ndarray] = field(default_factory=list)
    critic: list[np.ndarray] = field(default_factory=list)
    masks: list[np.ndarray] = field(default_factory=list)
    actions: list[np.ndarray] = field(default_factory=list)
    logp: list[np.ndarray] = field(default_factory=list)
    values: list[np.ndarray] = field(default_factory=list)
    anchors: list[np.ndarray] = field(default_factory=list)
    size: int = 0

    def add(self, inputs, critic, masks, actions, logp, values, anchors) -> np.ndarray:
        """Append a batch of decisions; returns their indices."""
        for name, value in zip(("inputs", "critic", "masks", "actions", "logp", "values", "anchors"),
                               (inputs, critic, masks, actions, logp, values, anchors)):
            getattr(self, name).append(value)
        start = self.size
        self.size += len(actions)
        return np.arange(start, self.size)

    def arrays(self) -> dict[str, np.ndarray]:
        return {name: np.concatenate(getattr(self, name)) for name in
                ("inputs", "critic", "masks", "actions", "logp", "values", "anchors")}


@dataclass
class Chains:
    """What a rollout collects: the decisions, and per decision the index of the same seat's next
    one (-1: none yet), the rewards that followed it and whether its game ended after it."""

    buffer: Rollout = field(default_factory=Rollout)
    next_index: list[int] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    done: list[bool] = field(default_factory=list)


@compiled
def chain_advantages(rewards: np.ndarray, values: np.ndarray, next_index: np.ndarray, done: np.ndarray,
                     bootstrap: np.ndarray, gamma: float, lam: float, out: np.ndarray) -> None:
    """GAE along each seat's chain of decisions (``next_index``: the same seat's next decision in
    the rollout, -1 for the last; ``done``: the game ended after it; ``bootstrap``: the value after
    a chain's last decision that the rollout cut)."""
    for i in range(rewards.shape[0] - 1, -1, -1):
        nxt = next_index[i]
        if done[i]:
            out[i] = rewards[i] - values[i]
        elif nxt >= 0:
            out[i] = rewards[i] + gamma * values[nxt] - values[i] + gamma * lam * out[nxt]
        else:
            out[i] = rewards[i] + gamma * bootstrap[i] - values[i]


# --------------------------------------------------------------------------- the tables

class Table:
    """One table size's games, who controls each seat, and each seat's open chain of decisions."""

    def __init__(self, settings: TablePpoConfig, num_players: int, games: int, seed: int) -> None:
        self.game = make_vector_game(settings.game.name, games, num_players=num_players, **settings.game.options)
        self.num_players, self.num_games = num_players, games
        self.step = self.game.reset(seed=seed)
        self.controllers = np.full((games, num_players), LEARNER, np.int64)
        self.drawn: list[list[str]] = [[] for _ in range(games)]
        self.last = np.full((games, num_players), -1, np.int64)  # the seat's last decision in this rollout
        self.pending = np.zeros((games, num_players), np.float64)  # rewards since that decision


class TablePpo:
    """The trainer (see the module docstring); :meth:`run` trains up to the budget."""

    NAME = "table PPO"  # in the progress bar and in errors
    COLUMNS = PROGRESS_COLUMNS

    def __init__(self, settings: TablePpoConfig, run_dir: Path, state: dict, report: Reporter) -> None:
        self.settings, self.run_dir, self.report = settings, run_dir, report
        loop = self.loop = self.loop_settings(settings)
        torch.manual_seed(settings.seed)
        torch.set_num_threads(loop.threads)
        self.features = get_features(settings.network.features)
        spec = get_spec(settings.game.name)
        observation_size = int(spec.hook("observer")(spec.module.Config()).size)
        self.actions = int(spec.hook("actions").NUM_ACTIONS)
        self.input_size = observation_size if self.features is None else self.features.obs_size + self.features.extra
        self.privileged = False
        self.networks = self._make_networks()  # by checkpoint key
        self.optimizer = torch.optim.Adam([p for net in self.networks.values() for p in net.parameters()],
                                          lr=loop.learning_rate, eps=1e-5)
        self.steps, self.updates, self.imitated = 0, 0, 0
        self.best = state.get("best", {})
        self.seconds_before, self.started = float(state.get("seconds", 0.0)), time.perf_counter()
        self.rng = np.random.default_rng([settings.seed, 1])  # the tables' draws (the rollout's)
        self.update_rng = np.random.default_rng([settings.seed, 2])  # the minibatches' order (the update's)
        # the networks the rollout plays with: the learner's own, or with ``ppo.overlap`` a copy
        # taken before each update, so the next rollout can be played while the update runs
        self.acting = {k: copy.deepcopy(v) for k, v in self.networks.items()} if loop.overlap else self.networks
        self._load(state)
        self.progress_columns = self._progress_columns()
        league = settings.league
        self.pool = SnapshotPool(run_dir / "pool" / SIDE, "loss", [f for f in league.bots], league.bot_share,
                                 league.pool_size)
        if not self.pool.snapshots() and not self.imitating:
            self.pool.add_snapshot(self.steps, self._export)
        self.members: dict[str, Any] = {}
        sizes = settings.game.num_players
        counts = [loop.games // len(sizes) + (k < loop.games % len(sizes)) for k in range(len(sizes))]
        table_seed = np.random.SeedSequence([settings.seed, self.updates])
        self.tables = [Table(settings, n, c, int(s.generate_state(1)[0]))
                       for n, c, s in zip(sizes, counts, table_seed.spawn(len(sizes)))]
        for table in self.tables:
            self._draw(table, np.arange(table.num_games))
        wanted = settings.anchor.coef > 0 or settings.imitation.decisions > 0
        self.anchor = anchor_policy(settings.anchor.bot) if wanted else None
        self.scratch = Scratch()
        self.marks = {name: self.steps // every for name, every in (
            ("snapshot", league.snapshot_every), ("eval", settings.evaluation.every),
            ("checkpoint", settings.checkpoint_every), ("exploiter", settings.exploiters.every)) if every > 0}
        self.stop = False

    @staticmethod
    def loop_settings(settings: TablePpoConfig) -> Any:
        """The section holding what the table loop shares between learners (games, steps, threads,
        learning rate, overlap): ``ppo`` here."""
        return settings.ppo

    def _make_networks(self) -> dict[str, torch.nn.Module]:
        """The actor and the critic (it reads the hidden state too with ``ppo.critic: privileged``)."""
        net = self.settings.network
        self.privileged = self.loop.critic == "privileged"
        precision = self.loop.precision
        announce_precision("ppo.precision", precision)
        return {"actor": Actor(self.input_size, self.actions, net.hidden, net.activation, precision),
                "critic": Critic(self.input_size + (HIDDEN_SIZE if self.privileged else 0), net.hidden, net.activation,
                                 precision)}

    @property
    def actor(self) -> Actor:
        return self.networks["actor"]

    @property
    def critic(self) -> Critic:
        return self.networks["critic"]

    @property
    def acting_actor(self) -> Actor:
        return self.acting["actor"]

    @property
    def acting_critic(self) -> Critic:
        return self.acting["critic"]

    @property
    def imitating(self) -> bool:
        """Still in the imitation warm start (step 0 of the module docstring)."""
        return self.imitated < self.settings.imitation.decisions

    # ------------------------------------------------------------------ 1. who sits where
    def _draw(self, table: Table, games: np.ndarray) -> None:
        """New controllers for ``games`` of ``table`` (their games have just started)."""
        probs = self.pool.probabilities()
        ids = list(probs)
        p = np.array([probs[i] for i in ids])
        for g in games.tolist():
            table.controllers[g] = LEARNER
            table.drawn[g] = []
            if self.rng.random() < self.settings.league.share and ids:
                mine = int(self.rng.integers(table.num_players))
                for seat in range(table.num_players):
                    if seat != mine:
                        member = ids[int(self.rng.choice(len(ids), p=p / p.sum()))]
                        table.controllers[g, seat] = self._member_index(member)
                        table.drawn[g].append(member)

    def _member_index(self, member: str) -> int:
        order = list(self.members)
        if member not in self.members:
            if member.startswith("bot:"):
                self.members[member] = member[4:]
            else:
                agent = PolicyAgent.from_file(self.pool.folder / member, name=member)
                self.members[member] = BatchedPolicyAgent(agent, int(self.rng.integers(2**31)))
            order = list(self.members)
        return order.index(member)

    # ------------------------------------------------------------------ 2. the rollout
    def inputs(self, table: Table, rows: np.ndarray, seats: np.ndarray, observations: np.ndarray,
               masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(actor inputs, critic inputs) of seats ``seats`` in games ``rows``."""
        x = observations.astype(np.float32)
        if self.features is not None:
            x = self.features.state_inputs(x, masks, GameRows(table.game.games, rows, seats)).astype(np.float32)
        c = np.concatenate([x, privileged_rows(table.game.games, rows, seats)], axis=1) if self.privileged else x
        return x, c

    def rollout(self) -> tuple[Rollout, dict[str, np.ndarray]]:
        chains = Chains()
        for _ in range(self.loop.steps):
            for table in self.tables:
                self._move(table, chains)
        bootstrap = np.zeros(chains.buffer.size)
        for table in self.tables:
            self._cut(table, bootstrap, chains.rewards)
        links = {"next": np.array(chains.next_index, np.int64), "done": np.array(chains.done, np.bool_),
                 "reward": np.array(chains.rewards, np.float64), "bootstrap": bootstrap}
        return chains.buffer, links

    def _move(self, table: Table, sink: Any) -> None:
        """One move of every game of ``table``: the learner's seats answered by :meth:`_learner_moves`
        (which records them in ``sink``), the league's by their members; the rewards credited."""
        step = table.step
        current = step.current_player
        games = np.arange(table.num_games)
        who = table.controllers[games, current]
        actions = np.zeros(table.num_games, np.int64)
        mine = np.flatnonzero(who == LEARNER)
        if len(mine):
            actions[mine] = self._learner_moves(table, mine, current[mine], step, sink)
        members = np.unique(who[who != LEARNER])
        shared = self._shared_inputs(table, who, members, current, step)
        for member in members:
            rows = np.flatnonzero(who == member)
            actions[rows] = self._member_actions(table, int(member), rows, current[rows], step, shared)
        table.step = step = table.game.step(actions)
        table.pending += step.rewards
        ended = np.flatnonzero(step.terminated | step.truncated)
        if len(ended):
            self._ended(table, ended, step, sink)

    def _learner_moves(self, table: Table, mine: np.ndarray, seats: np.ndarray, step: Any, sink: Chains) -> np.ndarray:
        """The learner's moves in games ``mine`` (seats ``seats``), sampled from the playing actor and
        stored with their log-probabilities and values, each linked to its seat's previous decision."""
        buffer, next_index, rewards, done = sink.buffer, sink.next_index, sink.rewards, sink.done
        masks = step.action_mask[mine]
        x, c = self.inputs(table, mine, seats, step.observation[mine], masks)
        anchors = np.full(len(mine), -1, np.int64) if self.anchor is None else np.asarray(
            self.anchor(step.observation[mine], masks, GameRows(table.game.games, mine, seats)), np.int64)
        with torch.no_grad():
            logits = masked_logits(self.acting_actor(torch.from_numpy(x)), torch.from_numpy(masks))
            dist = torch.distributions.Categorical(logits=logits)
            chosen = torch.from_numpy(anchors) if self.imitating else dist.sample()
            logp = dist.log_prob(chosen).numpy()
            values = self.acting_critic(torch.from_numpy(c)).numpy()
        index = buffer.add(x, c, masks, chosen.numpy(), logp, values, anchors)
        next_index.extend([-1] * len(mine))
        rewards.extend([0.0] * len(mine))
        done.extend([False] * len(mine))
        previous = table.last[mine, seats]
        linked = previous >= 0
        for i, prev in zip(index[linked], previous[linked]):
            next_index[prev] = int(i)
        for prev, g, s in zip(previous[linked], mine[linked], seats[linked]):
            rewards[prev] += table.pending[g, s]
        table.pending[mine, seats] = 0.0
        table.last[mine, seats] = index
        return chosen.numpy()

    def _close(self, table: Table, ended: np.ndarray, sink: Chains) -> None:
        """Every seat's chain in the games that ended gets its last rewards and is closed."""
        for g in ended.tolist():
            for s in range(table.num_players):
                prev = table.last[g, s]
                if prev >= 0:
                    sink.rewards[prev] += table.pending[g, s]
                    sink.done[prev] = True
            table.last[g] = -1

    def _ended(self, table: Table, ended: np.ndarray, step: Any, sink: Any) -> None:
        """Close the learner's decisions in the games that ended; hand the league its results; draw anew."""
        self._close(table, ended, sink)
        table.pending[ended] = 0.0
        for g in ended.tolist():
            if table.drawn[g]:
                winners = step.info["final_info"]["winners"][g]
                mine = int(np.flatnonzero(table.controllers[g] == LEARNER)[0])
                win = 1.0 / int(winners.sum()) if winners[mine] else 0.0
                self.pool.record(table.drawn[g], win)
        self._draw(table, ended)

    def _cut(self, table: Table, bootstrap: np.ndarray, rewards: list[float]) -> None:
        """The rollout ends: every open chain gets its rewards so far and the value of its seat's position."""
        for s in range(table.num_players):
            games = np.flatnonzero(table.last[:, s] >= 0)
            if not len(games):
                continue
            seats = np.full(len(games), s, np.int64)
            observations = table.game.observe(np.full(table.num_games, s))[games]
            masks = np.zeros((len(games), self.actions), bool)  # not this seat's turn (or no decision)
            _, c = self.inputs(table, games, seats, observations, masks)
            with torch.no_grad():
                values = self.acting_critic(torch.from_numpy(c)).numpy()
            for g, value in zip(games.tolist(), values):
                prev = table.last[g, s]
                rewards[prev] += table.pending[g, s]
                bootstrap[prev] = value
        table.last[:] = -1
        table.pending[:] = 0.0

    def _shared_inputs(self, table: Table, who: np.ndarray, members: np.ndarray, current: np.ndarray,
                       step: Any) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """The network inputs of the snapshots' rows, computed once for all the snapshots that read the
        same inputs (``inputs_key``), by inputs key: (their rows, the inputs). A league seats up to
        ``league.pool_size`` snapshots of one network with a few rows each per move, so one call per
        snapshot was mostly call overhead (the frozen belief model's forward pass of
        ``members_only_belief_inputs`` among it). A row's inputs are those it gets alone to float32
        rounding (a matrix product sums a batch's rows in blocks), as in
        :func:`club_envs.agents.batched.ask_groups`."""
        opponents = list(self.members.values())
        groups: dict[int, list[int]] = {}
        for member in members.tolist():
            key = getattr(opponents[member], "inputs_key", None)
            if key is not None:
                groups.setdefault(key, []).append(member)
        shared = {}
        for key, group in groups.items():
            rows = np.flatnonzero(np.isin(who, group))
            shared[key] = (rows, opponents[group[0]].inputs(step.observation[rows], step.action_mask[rows],
                                                             GameRows(table.game.games, rows, current[rows])))
        return shared

    def _member_actions(self, table: Table, member: int, rows: np.ndarray, seats: np.ndarray, step: Any,
                        shared: dict[int, tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
        opponent = list(self.members.values())[member]
        masks = step.action_mask[rows]
        if opponent == "random":
            return np.argmax(np.where(masks, self.rng.random(masks.shape), -1.0), axis=1)
        if isinstance(opponent, str):
            bot = BOTS[opponent]
            return np.array([choose(table.game.games, int(g), bot, self.scratch)[0] for g in rows], np.int64)
        group_rows, inputs = shared[opponent.inputs_key]
        return opponent.choose(inputs[np.searchsorted(group_rows, rows)], masks)

    # ------------------------------------------------------------------ 3-4. advantages and the update
    def update(self, buffer: Rollout, links: dict[str, np.ndarray]) -> dict[str, float]:
        ppo = self.settings.ppo
        data = buffer.arrays()
        advantages = np.zeros(buffer.size)
        chain_advantages(links["reward"], data["values"].astype(np.float64), links["next"], links["done"],
                         links["bootstrap"], ppo.gamma, ppo.gae_lambda, advantages)
        returns = advantages + data["values"]
        tensors = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in data.items()}
        # normalised over the whole rollout (a minibatch's own spread is undefined for the odd one of a single row)
        normalised = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        adv_t, ret_t = torch.from_numpy(normalised.astype(np.float32)), torch.from_numpy(returns.astype(np.float32))
        imitating = self.imitating
        anchor_coef = 1.0 if imitating else self._anchor_coef()
        learning_rate = self.settings.imitation.learning_rate if imitating else self._learning_rate()
        for group in self.optimizer.param_groups:
            group["lr"] = learning_rate
        figures: dict[str, list[float]] = {k: [] for k in ("policy_loss", "value_loss", "entropy", "approx_kl",
                                                            "clip_fraction", "anchor_loss")}
        for _ in range(self.settings.imitation.epochs if imitating else ppo.epochs):
            order = torch.from_numpy(self.update_rng.permutation(buffer.size))
            for start in range(0, buffer.size, ppo.minibatch):
                idx = order[start:start + ppo.minibatch]
                logits = masked_logits(self.actor(tensors["inputs"][idx]), tensors["masks"][idx])
                dist = torch.distributions.Categorical(logits=logits)
                logp = dist.log_prob(tensors["actions"][idx])
                ratio = torch.exp(logp - tensors["logp"][idx])
                adv = adv_t[idx]
                policy_loss = -torch.min(ratio * adv, torch.clamp(ratio, 1 - ppo.clip, 1 + ppo.clip) * adv).mean()
                value_loss = ((self.critic(tensors["critic"][idx]) - ret_t[idx]) ** 2).mean()
                entropy = dist.entropy().mean()
                # imitating: the anchor's cross-entropy and the critic alone (the play is the anchor's, not the policy's)
                loss = ppo.value_coef * value_loss if imitating else \
                    policy_loss + ppo.value_coef * value_loss - ppo.entropy * entropy
                anchors = tensors["anchors"][idx]
                if anchor_coef > 0:
                    anchored = anchors >= 0
                    anchor_loss = -dist.log_prob(anchors.clamp(min=0))[anchored].mean() if anchored.any() else \
                        torch.zeros(())
                    loss = loss + anchor_coef * anchor_loss
                    figures["anchor_loss"].append(float(anchor_loss.detach()))
                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_([*self.actor.parameters(), *self.critic.parameters()], ppo.max_grad_norm)
                self.optimizer.step()
                with torch.no_grad():
                    figures["approx_kl"].append(float(((ratio - 1) - torch.log(ratio)).mean()))
                    figures["clip_fraction"].append(float(((ratio - 1).abs() > ppo.clip).float().mean()))
                figures["policy_loss"].append(float(policy_loss.detach()))
                figures["value_loss"].append(float(value_loss.detach()))
                figures["entropy"].append(float(entropy.detach()))
        self.updates += 1
        variance = float(np.var(returns))
        explained = 1.0 - float(np.var(returns - data["values"])) / variance if variance > 0 else float("nan")
        out = {k: float(np.mean(v)) if v else float("nan") for k, v in figures.items()}
        out.update({"explained_variance": explained, "anchor_coef": anchor_coef, "decisions": float(buffer.size),
                    "learning_rate": learning_rate,
                    "advantage_std": float(advantages.std())})
        return out

    def _learning_rate(self) -> float:
        """PPO's step size at the learner's decision count: ``ppo.learning_rate``, or with
        ``ppo.learning_rate_final`` set the straight line from it to that rate over the budget (a
        long run's late updates then move the policy less; by decision count, so a resumed run
        takes up the line where it stopped)."""
        ppo = self.settings.ppo
        if ppo.learning_rate_final is None:
            return ppo.learning_rate
        done = min(1.0, self.steps / self.settings.total_steps)
        return ppo.learning_rate + (ppo.learning_rate_final - ppo.learning_rate) * done

    def _anchor_coef(self) -> float:
        anchor = self.settings.anchor
        if anchor.coef <= 0:
            return 0.0
        if anchor.anneal_steps <= 0:
            return anchor.coef
        return anchor.coef * max(0.0, 1.0 - self.steps / anchor.anneal_steps)

    # ------------------------------------------------------------------ 5. the loop, and what falls due
    def imitate(self) -> None:
        """Step 0: rollouts of the anchor's play, each fitted at once, until ``imitation.decisions``;
        then the imitated policy becomes the league's first snapshot and is evaluated."""
        total = self.settings.imitation.decisions
        bar = self.report.phase(f"imitate the {self.settings.anchor.bot} bot", total, unit="decision",
                                initial=min(total, self.imitated), unit_scale=True, mininterval=1.0)
        try:
            while self.imitating and not self.stop:
                self._refresh_acting()
                buffer, links = self.rollout()
                figures = self.update(buffer, links)
                self.imitated += buffer.size
                bar.update(buffer.size)
                figures.update({"steps": self.steps, "imitated": self.imitated})
                self._log(figures)
                bar.set_postfix({"agreement": f"{np.exp(-figures['anchor_loss']):.3f}",
                                 "ev": f"{figures['explained_variance']:.2f}"}, refresh=True)
        finally:
            bar.close()
        if self.imitating:
            return
        self.pool.add_snapshot(self.steps, self._export)
        self.pool.write()
        self.evaluate()
        self.checkpoint()

    def run(self) -> None:
        """Imitation if due, then PPO to the budget; SIGTERM/SIGINT stop at the next update with a checkpoint."""
        handlers = {sig: signal.signal(sig, lambda *_: setattr(self, "stop", True)) for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            if self.imitating:
                self.imitate()
            if not self.stop:
                self._train()
        finally:
            for sig, handler in handlers.items():
                signal.signal(sig, handler)
            self.checkpoint()
        if self.stop:
            print(f"stopped at {self.steps} steps ({self.imitated} imitated); continue with --resume {self.run_dir}",
                  file=sys.stderr)

    def _train(self) -> None:
        """PPO to the budget. With ``ppo.overlap`` the next rollout is played (on a copy of the
        networks taken before the update) while the update runs in a second thread: the rollout
        then lags the learner by one update, as asynchronous PPO's do, and its ratios and clipping
        are taken against the copy that played it. The last rollout collected when the budget or
        a stop is reached is dropped unused."""
        total = self.settings.total_steps
        bar = self.report.phase(f"train {self.settings.game.name} ({self.NAME})", total, unit="step",
                                initial=min(total, self.steps), unit_scale=True, mininterval=1.0, smoothing=0.05)
        started, done_before = time.perf_counter(), self.steps
        overlap = self.loop.overlap
        try:
            collected = None
            while self.steps < total and not self.stop:
                t0 = time.perf_counter()
                if collected is None:
                    self._refresh_acting()
                    collected = self.rollout()
                buffer, links = collected
                t1 = time.perf_counter()
                if overlap:
                    self._refresh_acting()
                    figures, collected = self._update_while_playing(buffer, links)
                else:
                    figures, collected = self.update(buffer, links), None
                t2 = time.perf_counter()
                self.steps += buffer.size
                bar.update(buffer.size)
                rate = (self.steps - done_before) / max(1e-9, time.perf_counter() - started)
                figures.update({"steps": self.steps, "imitated": self.imitated, "steps_per_second": rate,
                                "rollout_seconds": t1 - t0, "update_seconds": t2 - t1})
                self._log(figures)
                bar.set_postfix({"fps": f"{rate:,.0f}", "ev": f"{figures['explained_variance']:.2f}",
                                 **{k: v for k, v in self.best.get("live", {}).items()}}, refresh=True)
                self._due()
        finally:
            bar.close()

    def _refresh_acting(self) -> None:
        """The playing copy takes the learner's current weights (with ``ppo.overlap``; else it is them)."""
        if self.acting is not self.networks:
            for name, net in self.networks.items():
                self.acting[name].load_state_dict(net.state_dict())

    def _update_while_playing(self, buffer: Rollout, links: dict[str, np.ndarray]):
        """The update of ``buffer`` in a thread of its own while this one plays the next rollout
        (the engine's compiled steps and torch's operations leave the interpreter lock to the other)."""
        done: dict[str, Any] = {}

        def work() -> None:
            try:
                done["figures"] = self.update(buffer, links)
            except BaseException as exc:  # noqa: BLE001 -- re-raised in the training thread below
                done["error"] = exc

        thread = threading.Thread(target=work, name="table-ppo-update")
        thread.start()
        try:
            following = self.rollout() if self.steps + buffer.size < self.settings.total_steps else None
        finally:
            thread.join()
        if "error" in done:
            raise done["error"]
        return done["figures"], following

    def _due(self) -> None:
        league, ev, total = self.settings.league, self.settings.evaluation, self.settings.total_steps
        last = self.steps >= total
        if self.steps // league.snapshot_every > self.marks["snapshot"] or last:
            self.marks["snapshot"] = self.steps // league.snapshot_every
            self.pool.add_snapshot(self.steps, self._export)
        self.pool.write()
        hunt = self.settings.exploiters.every
        if hunt > 0 and self.steps // hunt > self.marks["exploiter"] and not last and not self.stop:
            self.marks["exploiter"] = self.steps // hunt
            self.hunt()
        if (self.steps // ev.every > self.marks["eval"] or last) and not self.stop:
            self.marks["eval"] = self.steps // ev.every
            self.evaluate()
        if self.steps // self.settings.checkpoint_every > self.marks["checkpoint"]:
            self.marks["checkpoint"] = self.steps // self.settings.checkpoint_every
            self.checkpoint()

    def hunt(self) -> None:
        """An exploiter joins the league: a best responder trained (``exploiters.steps``, from an
        imitation of ``exploiters.warm_start``) against the current policy, at the table sizes in
        turn, in ``exploiters/<step>/``. A failure is reported and skipped, never fatal to the run.
        A stop asked for (SIGTERM, Ctrl-C) during a hunt lets it finish, so the exploiter joins before
        the run's last checkpoint; a run killed outright during one hunts anew when its resumed
        decisions pass the mark again (a new folder: the step differs)."""
        from club_envs.training.exploit import train_responder

        hunt, sizes = self.settings.exploiters, self.settings.game.num_players
        count = self.marks["exploiter"]
        folder = self.run_dir / "exploiters" / f"{self.steps:09d}"
        try:
            target = self._export(folder / "target.pt")
            settings = ExploitSettings(agent=str(target), game=self.settings.game.name,
                                       players=sizes[count % len(sizes)], steps=hunt.steps, eval_games=1,
                                       seed=self.settings.seed * 1000 + count, baseline=None, sides=[SIDE],
                                       warm_start=hunt.warm_start, warm_start_recipe=self._hunt_recipe(target))
            self.report.say(f"exploiter {count}: a responder to the policy at {self.steps:,} decisions, "
                            f"{settings.players} players, {hunt.steps:,} steps")
            policy = train_responder(settings, str(target), SIDE, folder / "responder", log=lambda *_: None,
                                     report=self.report, label=f"the policy at {self.steps:,} decisions")
            self.pool.add_snapshot(self.steps, lambda path: shutil.copyfile(policy, path), prefix="exploiter")
        except Exception as exc:  # noqa: BLE001 -- hours of training must survive a failed hunt
            print(f"exploiter at step {self.steps} failed and was skipped: {exc.__class__.__name__}: {exc}",
                  file=sys.stderr)
        finally:
            torch.set_num_threads(self.loop.threads)  # the responder's trainer sets its own

    def _hunt_recipe(self, target: Path) -> dict | None:
        """An exploiter that starts as a copy of the policy (``target``, the exported policy file)
        gets that file's network and the game's critic warm-up, at most a quarter of its steps (the
        actor needs no fitting); one that imitates a bot, the game's imitation recipe (None)."""
        hunt = self.settings.exploiters
        if hunt.warm_start != START_FROM_POLICY:
            return None
        _, meta = load_policy_file(target)
        critic_steps = min(WARM_START_RECIPE[self.settings.game.name]["critic_steps"], hunt.steps // 4)
        return {"hidden": list(meta["hidden"]), "activation": meta["activation"],
                "features": meta.get("features", "none"), "critic_steps": critic_steps}

    def _export(self, path: Path, **extra: Any) -> Path:
        return write_policy(path, self.policy_weights(), self.settings.game.name, SIDE, self.settings.network,
                            self.steps, backend=self.settings.RECIPE, **extra)

    def _export_judged(self, path: Path) -> Path:
        """``eval/`` (kept as ``best/``) and ``latest/``: the file acts by default as the run's
        evaluation played it (``evaluation.greedy``), so evaluating the file repeats the run's figures;
        snapshots keep sampling, as the league plays them."""
        return self._export(path, deterministic=bool(self.settings.evaluation.greedy))

    def policy_weights(self) -> dict[str, torch.Tensor]:
        """The exported policy's weights, under a policy file's names: the actor's."""
        return self.actor.file_weights()

    def evaluate(self) -> None:
        """The current policy on the batched engine against every evaluation bot at every table size;
        a failure is reported and skipped, never fatal to the run."""
        ev = self.settings.evaluation
        if ev.games <= 0:
            return
        try:
            path = self._export_judged(self.run_dir / "eval" / "policy.pt")
            rows = evaluations.evaluate_policy(path, SIDE, self.settings.game, ev, self.settings.seed,
                                               f"{SIDE}@{self.steps}", ev.greedy, self.report, batched=True)
            evaluations.write(self.run_dir, rows, total_step=self.steps, side_step=self.steps)
            evaluations.keep_best(self.run_dir, path, "policy.pt", evaluations.judged_share(rows, ev), self.best, SIDE,
                                  step=self.steps)
            self.best["live"] = {f"eval_{r.opponent}_{r.players}p": f"{r.win_share:.3f}" for r in rows}
        except Exception as exc:  # noqa: BLE001 -- hours of training must survive a broken evaluation
            print(f"evaluation at step {self.steps} failed and was skipped: {exc.__class__.__name__}: {exc}",
                  file=sys.stderr)

    def _progress_columns(self) -> list[str]:
        """The columns of ``progress.csv``: a run folder's existing header is kept (folders from
        before the ``imitated`` column resume without it), read once when the trainer starts."""
        path = self.run_dir / PROGRESS_FILE
        if not path.is_file():
            return self.COLUMNS
        with path.open(newline="") as f:
            return next(csv.reader(f), self.COLUMNS)

    def _log(self, figures: dict[str, float]) -> None:
        """One row per update; imitation rows leave the PPO-only columns empty."""
        keys = self.progress_columns
        append_csv(self.run_dir / PROGRESS_FILE, [[figures.get(k, "") for k in keys]], keys)

    # ------------------------------------------------------------------ checkpoints
    def checkpoint(self) -> None:
        """Networks, optimiser, counters and the generator, written whole then renamed; ``latest/``."""
        path = self.run_dir / "checkpoint.pt"
        tmp = path.with_name("checkpoint.pt.tmp")
        torch.save({**{name: net.state_dict() for name, net in self.networks.items()},
                    "optimizer": self.optimizer.state_dict(), "steps": self.steps, "updates": self.updates,
                    "imitated": self.imitated,
                    "rng": self.rng.bit_generator.state, "update_rng": self.update_rng.bit_generator.state,
                    "torch_rng": torch.get_rng_state()}, tmp)
        os.replace(tmp, path)
        self._export_judged(self.run_dir / "latest" / "policy.pt")
        save_state(self.run_dir, {"steps": {SIDE: self.steps}, "updates": self.updates, "imitated": self.imitated,
                                  "seconds": self.seconds(),
                                  "best": {k: v for k, v in self.best.items() if k != "live"}})

    def describe_learner(self) -> str:
        precision = self.loop.precision
        return (f"learner inputs {self.input_size}, critic {'privileged' if self.privileged else 'observation'}"
                + (f", hidden layers in {precision}" if precision != "float32" else ""))

    def seconds(self) -> float:
        """Wall time of the run so far, every resumed part included."""
        return self.seconds_before + time.perf_counter() - self.started

    def _load(self, state: dict) -> None:
        path = self.run_dir / "checkpoint.pt"
        if not path.is_file():
            return
        try:
            saved = torch.load(path, map_location="cpu", weights_only=False)
            for name, net in self.networks.items():
                net.load_state_dict(saved[name])
            self.optimizer.load_state_dict(saved["optimizer"])
        except Exception as exc:  # noqa: BLE001 -- one line naming the file, not a traceback
            raise ValueError(f"{path}: not a {self.NAME} checkpoint this config can resume ({exc.__class__.__name__}: "
                             f"{str(exc).splitlines()[0][:200]}); move it away to start afresh") from None
        self.steps, self.updates = int(saved["steps"]), int(saved["updates"])
        self.imitated = int(saved.get("imitated", 0))  # checkpoints from before the imitation section: none
        self.rng.bit_generator.state = saved["rng"]
        if "update_rng" in saved:  # checkpoints from before the update's own generator: it starts from the seed
            self.update_rng.bit_generator.state = saved["update_rng"]
        torch.set_rng_state(saved["torch_rng"])
        print(f"resumed at step {self.steps} from {path.name}", file=sys.stderr)


def check_before_run(settings: TablePpoConfig, resuming: bool) -> None:
    """The rule options, checked by building one game before a run folder exists."""
    try:
        make_vector_game(settings.game.name, 1, num_players=settings.game.num_players[0], **settings.game.options)
    except (TypeError, ValueError) as exc:
        raise ConfigFileError(f"game.options: {exc}") from None


def train(settings: TablePpoConfig, run_dir: Path, state: dict, progress: bool | Reporter = True) -> Path:
    """Train in ``run_dir`` up to ``budget.total_steps`` learner decisions, from its checkpoint if any."""
    return train_with(TablePpo, settings, run_dir, state, progress)


def train_with(trainer_class: type[TablePpo], settings: Any, run_dir: Path, state: dict,
               progress: bool | Reporter = True) -> Path:
    """Train ``run_dir`` with a table trainer (this module's PPO, or another learner built on its
    tables: :mod:`club_envs.training.table_dmc`)."""
    report = Reporter.of(progress)
    threadpool_limits(1, user_api="blas")  # small matrix products: one thread (the update may use more)
    trainer = trainer_class(settings, run_dir, state, report)
    report.say(f"{sum(t.num_games for t in trainer.tables)} games at {'/'.join(str(t.num_players) for t in trainer.tables)} "
               f"players; {trainer.describe_learner()}")
    trainer.run()
    (run_dir / "summary.json").write_text(json.dumps({"steps": trainer.steps, "updates": trainer.updates,
                                                       "seconds": trainer.seconds(), "best": trainer.best.get(SIDE)},
                                                      indent=2))
    print(f"run folder: {run_dir}", file=sys.stderr)
    return run_dir
