"""Warm start: imitate a baseline bot before self-play (behaviour cloning).

With ``pretrain.games > 0`` a new run first plays that many games of the bot named in
``pretrain.imitate`` against itself on the bare engine, records every decision of the seats the
side plays (observation, legal-action mask, the bot's action, and how the game ended for that seat),
and fits the learner to them for ``pretrain.epochs`` epochs: the actor by masked cross-entropy on
the bot's actions, the critic by squared error on the final outcome (+1 win, -1 loss). Self-play
then starts from a policy that already plays like the bot instead of from uniform random play,
which matters for games whose reward is rare for a random player (an Arkham team of random players
almost never wins).
"""

from __future__ import annotations

import sys
import time

import numpy as np
import torch

from training import games


class Recorder:
    """Plays like ``inner`` and remembers each decision (for the seats it is asked to record)."""

    def __init__(self, inner, sink: list, record: bool) -> None:
        self.inner, self.sink, self.record = inner, sink, record
        self.name = getattr(inner, "name", "bot")
        self.seat = 0

    def reset(self, seat: int, seed: int | None = None) -> None:
        self.seat = seat
        self.inner.reset(seat, seed)

    def act(self, decision) -> int:
        action = int(self.inner.act(decision))
        if self.record:
            self.sink.append((self.seat, decision.observation.copy(), np.asarray(decision.action_mask, bool), action))
        return action


def collect(cfg: dict, side: str, n_games: int, seed: int) -> tuple[np.ndarray, ...]:
    """(observations, masks, actions, outcomes) of the side's seats over ``n_games`` bot games."""
    from club_envs.agents.registry import load as load_agent

    game = games.game_module(cfg)
    roles = games.side_roles(cfg, side)
    bot = cfg["pretrain"]["imitate"]
    obs, masks, actions, outcomes = [], [], [], []
    for g in range(n_games):
        n = cfg["game"]["num_players"][g % len(cfg["game"]["num_players"])]
        config = game.Config(num_players=n)
        sink: list = []

        def make(seat, role=None, config=config, sink=sink, g=g):
            inner = load_agent(bot, game=game, config=config, seed=seed * 100_003 + g * 11 + seat)
            return Recorder(inner, sink, record=roles is None or role in roles)

        players = [make(s) for s in range(n)] if roles is None else make
        record = game.play_match(config, players, seed=seed * 1_000_003 + g)
        won = {row.seat: row.win > 0 for row in game.outcomes(record)}
        for seat, o, m, a in sink:
            obs.append(o)
            masks.append(m)
            actions.append(a)
            outcomes.append(1.0 if won[seat] else -1.0)
    return (np.asarray(obs, np.float32), np.asarray(masks, bool), np.asarray(actions, np.int64),
            np.asarray(outcomes, np.float32))


def imitate(model, cfg: dict, side: str, seed: int, log=print) -> dict:
    """Collect the bot's games and fit ``model``'s policy to them; returns the final figures."""
    pre = cfg["pretrain"]
    t0 = time.perf_counter()
    obs, masks, actions, outcomes = collect(cfg, side, pre["games"], seed)
    log(f"pretrain {side}: {len(actions)} decisions from {pre['games']} {pre['imitate']} games "
        f"in {time.perf_counter() - t0:.0f}s")
    policy = model.policy
    optimizer = torch.optim.Adam(policy.parameters(), lr=pre["learning_rate"])
    rng = np.random.default_rng(seed)
    batch = 512
    figures = {}
    for epoch in range(pre["epochs"]):
        order = rng.permutation(len(actions))
        losses, hits = [], 0
        for start in range(0, len(order), batch):
            idx = order[start:start + batch]
            o = torch.as_tensor(obs[idx])
            dist = policy.get_distribution(o, action_masks=masks[idx])
            a = torch.as_tensor(actions[idx])
            actor_loss = -dist.log_prob(a).mean()
            critic_loss = torch.nn.functional.mse_loss(policy.predict_values(o).flatten(), torch.as_tensor(outcomes[idx]))
            loss = actor_loss + 0.5 * critic_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(float(actor_loss.detach()))
            hits += int((dist.distribution.probs.argmax(dim=1) == a).sum())
        figures = {"pretrain/cross_entropy": float(np.mean(losses)), "pretrain/agreement": hits / len(actions)}
        log(f"pretrain {side}: epoch {epoch + 1}/{pre['epochs']} cross-entropy {figures['pretrain/cross_entropy']:.3f}, "
            f"agrees with the bot on {figures['pretrain/agreement']:.1%} of decisions")
    return figures


def stderr_log(message: str) -> None:
    print(message, file=sys.stderr)
