"""Monte-Carlo Q learning with action features on the batched engine (DouZero's method).

    club-envs train configs/members_only_dmc.yaml
    club-envs train --resume runs/members_only_dmc-<stamp>

DouZero (Zha et al., 2021) learned DouDizhu from self-play where policy-gradient methods stalled:
a network estimates Q(s, a) -- the seat's return after taking action ``a`` in state ``s`` -- and is
fitted by plain regression to the returns the games actually gave (Monte-Carlo targets: no
bootstrapping, no critic to trust, no advantage estimate), while the seats play ε-greedy on it. It
reads the action as features, so what it learns of one action carries over to similar ones. Here
the same, on the tables of :mod:`club_envs.training.table_ppo` (the league of snapshots and compiled
bots, the evaluations, checkpoints and ``--resume`` are that module's):

1. **Play.** ``dmc.steps`` moves of every game; each learner decision is the legal action of
   highest Q, or with probability ``dmc.epsilon`` a legal action drawn uniformly. The decision is
   kept, open, with the seat's reward total at that moment.
2. **Targets.** When a game ends, each of its open decisions gets its target: the rewards its seat
   received from that decision to the end (undiscounted, as DouZero's). Decisions of games still
   running wait for their ends (a rollout's end cuts nothing).
3. **Update.** ``dmc.epochs`` passes over the decisions whose games ended, minibatches of
   ``dmc.minibatch``, mean squared error of Q(s, a) to the target.

Q(s, a) = <f(s), g(φ(a))> + b(φ(a)): a state tower f over the seat's inputs (the observation and
``network.features``, as table_ppo's actor reads them) and an action tower g over the action's
features φ (:mod:`club_envs.members_only.action_features`). DouZero concatenates state and action
and runs one MLP per action; the dot product instead gives every action's Q in one pass, and a
policy file: the state tower is an ordinary actor's body and the action tower, applied to the
fixed features, its output layer -- so snapshots, evaluation, shipping and play read the exported
Q network as any policy (logits = Q / ``dmc.temperature``; greedy play takes the highest Q).
A resumed run starts new games: the decisions of games still open at the checkpoint are dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from club_envs.members_only.action_features import action_features
from club_envs.training.progress import Reporter
from club_envs.training.settings import TableDmcConfig
from club_envs.training.table_ppo import TablePpo, Table, check_before_run, mlp, train_with

__all__ = ["QNet", "TableDmc", "check_before_run", "train"]


class QNet(torch.nn.Module):
    """Q of every action: the state tower's encoding dotted with each action's, plus its bias."""

    def __init__(self, inputs: int, features: np.ndarray, hidden: tuple[int, ...], action_hidden: int,
                 activation: str) -> None:
        super().__init__()
        self.policy_net = mlp(inputs, hidden, activation)  # named as an actor's body: it exports as one
        self.register_buffer("phi", torch.from_numpy(np.ascontiguousarray(features, np.float32)))
        self.action_tower = torch.nn.Sequential(mlp(features.shape[1], (action_hidden,), activation),
                                                torch.nn.Linear(action_hidden, hidden[-1] + 1))

    def action_layer(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The output layer the action tower gives: weights ``(actions, hidden)`` and biases."""
        out = self.action_tower(self.phi)
        return out[:, :-1], out[:, -1]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weight, bias = self.action_layer()
        return self.policy_net(x) @ weight.T + bias


@dataclass
class Finished:
    """The learner's decisions whose games have ended since the last update, with their returns."""

    inputs: list[np.ndarray] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    returns: list[float] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.actions)

    def add(self, inputs: np.ndarray, action: int, ret: float) -> None:
        self.inputs.append(inputs)
        self.actions.append(action)
        self.returns.append(ret)


class TableDmc(TablePpo):
    """The table trainer with a Q network in place of actor and critic (see the module docstring)."""

    NAME = "table DMC"
    COLUMNS = ["decisions", "epsilon", "explained_variance", "imitated", "mean_return", "q_loss", "rollout_seconds",
               "steps", "steps_per_second", "update_seconds"]

    def __init__(self, settings: TableDmcConfig, run_dir: Path, state: dict, report: Reporter) -> None:
        super().__init__(settings, run_dir, state, report)
        for table in self.tables:
            # per game and seat, the learner's decisions still waiting for the game's end:
            # (inputs, action, the seat's reward total when it decided)
            table.open = [[[] for _ in range(table.num_players)] for _ in range(table.num_games)]

    @staticmethod
    def loop_settings(settings: TableDmcConfig) -> Any:
        return settings.dmc

    def _make_networks(self) -> dict[str, torch.nn.Module]:
        net = self.settings.network
        return {"q": QNet(self.input_size, action_features(), net.hidden, self.loop.action_hidden, net.activation)}

    @property
    def q(self) -> QNet:
        return self.networks["q"]

    def describe_learner(self) -> str:
        return (f"learner inputs {self.input_size}, Q over {self.q.phi.shape[1]} action features, "
                f"epsilon {self.loop.epsilon}")

    def policy_weights(self) -> dict[str, torch.Tensor]:
        """A policy file's weights: the state tower as the actor's body, the action tower's layer
        over the fixed action features as its output layer, divided by the temperature."""
        out = {f"mlp_extractor.policy_net.{k}": v.detach().clone() for k, v in self.q.policy_net.state_dict().items()}
        with torch.no_grad():
            weight, bias = self.q.action_layer()
        out["action_net.weight"] = (weight / self.loop.temperature).detach().clone()
        out["action_net.bias"] = (bias / self.loop.temperature).detach().clone()
        return out

    # ------------------------------------------------------------------ 1-2. play, and the targets
    def rollout(self) -> tuple[Finished, dict[str, np.ndarray]]:
        finished = Finished()
        for _ in range(self.loop.steps):
            for table in self.tables:
                self._move(table, finished)
        return finished, {}

    def _learner_moves(self, table: Table, mine: np.ndarray, seats: np.ndarray, step: Any, sink: Finished) -> np.ndarray:
        """ε-greedy on the playing copy's Q; each decision left open until its game ends."""
        masks = step.action_mask[mine]
        x, _ = self.inputs(table, mine, seats, step.observation[mine], masks)
        with torch.no_grad():
            q = self.acting["q"](torch.from_numpy(x)).numpy()
        chosen = np.where(masks, q, -np.inf).argmax(axis=1)
        explore = np.flatnonzero(self.rng.random(len(mine)) < self.loop.epsilon)
        if len(explore):
            noise = self.rng.random((len(explore), masks.shape[1]))
            chosen[explore] = np.where(masks[explore], noise, -1.0).argmax(axis=1)
        for k, (g, s) in enumerate(zip(mine.tolist(), seats.tolist())):
            table.open[g][s].append((x[k], int(chosen[k]), float(table.pending[g, s])))
        return chosen

    def _close(self, table: Table, ended: np.ndarray, sink: Finished) -> None:
        """Each open decision of the games that ended: its target is what its seat received after it."""
        for g in ended.tolist():
            for s in range(table.num_players):
                total = float(table.pending[g, s])
                for inputs, action, before in table.open[g][s]:
                    sink.add(inputs, action, total - before)
                table.open[g][s] = []

    # ------------------------------------------------------------------ 3. the update
    def update(self, buffer: Finished, links: dict[str, np.ndarray]) -> dict[str, float]:
        """Regression of Q(s, a) on the returns; the explained variance is the Q before the update's."""
        loop = self.loop
        figures = {"decisions": float(buffer.size), "epsilon": loop.epsilon}
        if not buffer.size:  # no game ended in this rollout (the first ones, with long games)
            return {**figures, "q_loss": float("nan"), "explained_variance": float("nan"), "mean_return": float("nan")}
        x = torch.from_numpy(np.stack(buffer.inputs))
        actions = torch.from_numpy(np.array(buffer.actions, np.int64))
        returns = torch.from_numpy(np.array(buffer.returns, np.float32))
        with torch.no_grad():
            before = self.q(x).gather(1, actions[:, None]).squeeze(1)
        variance = float(returns.var(unbiased=False))
        explained = 1.0 - float((returns - before).var(unbiased=False)) / variance if variance > 0 else float("nan")
        losses = []
        for _ in range(loop.epochs):
            order = torch.from_numpy(self.update_rng.permutation(buffer.size))
            for start in range(0, buffer.size, loop.minibatch):
                idx = order[start:start + loop.minibatch]
                predicted = self.q(x[idx]).gather(1, actions[idx, None]).squeeze(1)
                loss = ((predicted - returns[idx]) ** 2).mean()
                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.q.parameters(), loop.max_grad_norm)
                self.optimizer.step()
                losses.append(float(loss.detach()))
        self.updates += 1
        return {**figures, "q_loss": float(np.mean(losses)), "explained_variance": explained,
                "mean_return": float(returns.mean())}


def train(settings: TableDmcConfig, run_dir: Path, state: dict, progress: bool | Reporter = True) -> Path:
    """Train in ``run_dir`` up to ``budget.total_steps`` learner decisions, from its checkpoint if any."""
    return train_with(TableDmc, settings, run_dir, state, progress)
