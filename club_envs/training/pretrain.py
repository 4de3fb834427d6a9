"""Warm start: imitate a baseline bot before self-play (behaviour cloning).

With ``pretrain.games > 0`` a new run first plays that many games of the bot named in
``pretrain.imitate`` against itself on the bare engine, records every decision of the seats the
side plays (observation, legal-action mask, the bot's action, and how the game ended for that seat),
and fits the learner to them for ``pretrain.epochs`` epochs: the actor by masked cross-entropy on
the bot's actions, the critic by squared error on the final outcome (+1 win, -1 loss). Self-play
then starts from a policy that already plays like the bot instead of from uniform random play,
which matters for games whose reward is rare for a random player (an Arkham team of random players
almost never wins).

``pretrain.validation_share`` keeps that share of the games out of the fit and reports, after every
epoch, how often the policy's likeliest action is the teacher's on them: the agreement a copy has on
positions it has not seen, which the agreement on its own training decisions overstates.
``pretrain.lr_decay`` lowers the learning rate after every epoch, ``pretrain.batch_size`` sets the
minibatch. A run whose budget the critic warm-up alone spends is a copy of the teacher and nothing
more (``budget.total_steps`` at most twice ``pretrain.critic_steps`` for Arkham's two sides).
"""

from __future__ import annotations

import sys
import time
from typing import NamedTuple

import numpy as np
import torch

from club_envs.agents.features import get as get_features
from club_envs.games import get_spec
from club_envs.training import games
from club_envs.training.progress import Reporter
from club_envs.training.settings import GameSettings, PretrainSettings


class Recorder:
    """Plays like ``inner`` and remembers each decision (for the seats it is asked to record)."""

    def __init__(self, inner, sink: list, record: bool, features=None) -> None:
        self.inner, self.sink, self.record, self.features = inner, sink, record, features
        self.name = getattr(inner, "name", "bot")
        self.seat = 0

    def reset(self, seat: int, seed: int | None = None) -> None:
        self.seat = seat
        self.inner.reset(seat, seed)

    def act(self, decision) -> int:
        action = int(self.inner.act(decision))
        if self.record:
            mask = np.asarray(decision.action_mask, bool)
            obs = decision.observation.copy()
            if self.features is not None:  # the policy's own inputs, built from this seat's view
                obs = self.features.transform(obs, decision.view, mask)
            self.sink.append((self.seat, obs, mask, action))
        return action


OTHER_SIDE = "heuristic"  # the other side's seats when a trained agent is imitated


class Decisions(NamedTuple):
    """The recorded decisions, one row each: what the seat saw (with the policy's extra inputs),
    what it could do, what the teacher did, how the game ended for it, and which game it was."""

    obs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    outcomes: np.ndarray  # +1 won, -1 lost
    games: np.ndarray  # the game's number, 0 .. n_games - 1

    def rows(self, keep: np.ndarray) -> Decisions:
        return Decisions(*(column[keep] for column in self))


def collect(game_settings: GameSettings, side: str, bot: str, features: str, n_games: int,
            seed: int, report: Reporter | None = None) -> Decisions:
    """The decisions of the side's seats over ``n_games`` games of the bot ``bot``; the
    observations carry the policy's extra inputs ``features``. A bot plays every seat; a trained
    agent (a shipped name) plays the side's seats and :data:`OTHER_SIDE` the rest, since it need
    not play the other side's roles."""
    from club_envs.agents.registry import load as load_agent

    game = games.game_module(game_settings.name)
    roles, spec = games.side_roles(game_settings.name, side), get_spec(game_settings.name)
    extra = get_features(features)
    counts = game_settings.num_players
    obs, masks, actions, outcomes, game_of = [], [], [], [], []
    phase = (report or Reporter.quiet()).phase(f"imitation {side}: {bot} games", n_games, summary=False)
    for g in range(n_games):
        n = counts[g % len(counts)]
        config = game.Config(num_players=n)
        sink: list = []

        def make(seat, role=None, config=config, sink=sink, g=g):
            mine = roles is None or role in roles
            inner = load_agent(bot if mine or bot in spec.bots else OTHER_SIDE, game=game, config=config,
                               seed=seed * 100_003 + g * 11 + seat)
            return Recorder(inner, sink, record=mine, features=extra)

        players = [make(s) for s in range(n)] if roles is None else make
        record = game.play_match(config, players, seed=seed * 1_000_003 + g)
        won = {row.seat: row.win > 0 for row in game.outcomes(record)}
        for seat, o, m, a in sink:
            obs.append(o)
            masks.append(m)
            actions.append(a)
            outcomes.append(1.0 if won[seat] else -1.0)
            game_of.append(g)
        phase.update()
    phase.close()
    return Decisions(np.asarray(obs, np.float32), np.asarray(masks, bool), np.asarray(actions, np.int64),
                     np.asarray(outcomes, np.float32), np.asarray(game_of, np.int64))


def split_games(decisions: Decisions, share: float, seed: int) -> tuple[Decisions, Decisions | None]:
    """(fit, validation): ``share`` of the games, drawn at random, kept out of the fit. Whole games,
    not single decisions: the decisions of one game share a deal, so a split by decision would
    measure the fit on positions it has all but seen."""
    n_games = int(decisions.games.max()) + 1 if len(decisions.games) else 0
    n_held = int(round(share * n_games))
    if n_held == 0:
        return decisions, None
    held = np.random.default_rng(seed + 1).choice(n_games, size=n_held, replace=False)
    out = np.isin(decisions.games, held)
    return decisions.rows(~out), decisions.rows(out)


def _agreement(policy, decisions: Decisions, batch: int) -> tuple[float, float]:
    """(cross-entropy, share of the teacher's choices the policy's likeliest action matches) on ``decisions``."""
    losses, hits = 0.0, 0
    with torch.no_grad():
        for start in range(0, len(decisions.actions), batch):
            part = slice(start, start + batch)
            dist = policy.get_distribution(torch.as_tensor(decisions.obs[part]), action_masks=decisions.masks[part])
            a = torch.as_tensor(decisions.actions[part])
            losses -= float(dist.log_prob(a).sum())
            hits += int((dist.distribution.probs.argmax(dim=1) == a).sum())
    n = max(1, len(decisions.actions))
    return losses / n, hits / n


def imitate(model, game: GameSettings, side: str, pre: PretrainSettings, features: str, seed: int,
            log=print, report: Reporter | None = None) -> dict:
    """Collect the bot's games and fit ``model``'s policy to them; returns the final figures.
    ``log`` gets a line per finished part, ``report`` shows the bars of the games and the epochs."""
    t0 = time.perf_counter()
    teacher = pre.teacher(side)
    decisions = collect(game, side, teacher, features, pre.games, seed, report)
    # With a critic warm-up to follow (warm_up_critic), the critic is left alone here: final
    # outcomes of +-1 are not the discounted returns of the configured reward that PPO computes.
    critic_weight = 0.0 if pre.critic_steps > 0 else 0.5
    seconds = time.perf_counter() - t0
    log(f"pretrain {side}: {len(decisions.actions)} decisions from {pre.games} {teacher} games "
        f"in {seconds:.0f}s ({pre.games / max(seconds, 1e-9):.3g} games/s)")
    policy = model.policy
    hidden = int(model.observation_space.shape[0]) - decisions.obs.shape[1]
    if hidden > 0:  # a privileged critic's rows end with the hidden state: the actor never reads it, and
        # the critic is fitted afterwards on the real one (warm_up_critic; the config requires it)
        decisions = decisions._replace(obs=np.concatenate(
            [decisions.obs, np.zeros((len(decisions.obs), hidden), np.float32)], axis=1))
    fit, held = split_games(decisions, pre.validation_share, seed)
    obs, masks, actions, outcomes = fit.obs, fit.masks, fit.actions, fit.outcomes
    if held is not None:
        log(f"pretrain {side}: {len(held.actions)} decisions of {len(np.unique(held.games))} games kept out of the fit")
    optimizer = torch.optim.Adam(policy.parameters(), lr=pre.learning_rate)
    rng = np.random.default_rng(seed)
    batch = pre.batch_size
    figures = {}
    phase = (report or Reporter.quiet()).phase(f"imitation {side}: fit", pre.epochs * -(-len(actions) // batch),
                                               unit="batch", units="batches", summary=False)
    for epoch in range(pre.epochs):
        for group in optimizer.param_groups:
            group["lr"] = pre.learning_rate * pre.lr_decay ** epoch
        order = rng.permutation(len(actions))
        losses, hits = [], 0
        for start in range(0, len(order), batch):
            idx = order[start:start + batch]
            o = torch.as_tensor(obs[idx])
            dist = policy.get_distribution(o, action_masks=masks[idx])
            a = torch.as_tensor(actions[idx])
            actor_loss = -dist.log_prob(a).mean()
            critic_loss = torch.nn.functional.mse_loss(policy.predict_values(o).flatten(), torch.as_tensor(outcomes[idx]))
            loss = actor_loss + critic_weight * critic_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(float(actor_loss.detach()))
            hits += int((dist.distribution.probs.argmax(dim=1) == a).sum())
            phase.update()
        figures = {"pretrain/cross_entropy": float(np.mean(losses)), "pretrain/agreement": hits / len(actions)}
        line = (f"pretrain {side}: epoch {epoch + 1}/{pre.epochs} cross-entropy {figures['pretrain/cross_entropy']:.3f}, "
                f"agrees with the bot on {figures['pretrain/agreement']:.1%} of decisions")
        if held is not None:
            cross_entropy, agreement = _agreement(policy, held, batch)
            figures |= {"pretrain/validation_cross_entropy": cross_entropy, "pretrain/validation_agreement": agreement}
            line += f"; on the games kept out: cross-entropy {cross_entropy:.3f}, agreement {agreement:.1%}"
        log(line)
    phase.close()
    return figures


def stderr_log(message: str) -> None:
    print(message, file=sys.stderr)


def warm_up_critic(model, steps: int, callback=None, log=print, report: Reporter | None = None) -> None:
    """Fit the critic to the warm-started policy's own returns before the policy may change.

    An imitated policy comes with a critic that knows nothing of the configured reward (its scale,
    shaping, discount). PPO's first updates would then follow advantages made of noise and undo
    the imitation. Here the actor's parameters are frozen while PPO runs ``steps`` environment
    steps: only the value network learns, from exactly the returns PPO will compute afterwards.
    """
    policy = model.policy
    actor = [p for name, p in policy.named_parameters()
             if name.startswith("mlp_extractor.policy_net.") or name.startswith("action_net.")]
    for p in actor:
        p.requires_grad_(False)
    t0 = time.perf_counter()
    phase = None
    if callback is None and report is not None:  # a given callback shows the steps on its own bar
        from club_envs.training.callbacks import PhaseCallback

        phase = report.phase("critic warm-up", steps, unit="step", summary=False)
        callback = PhaseCallback(phase)
    try:
        model.learn(total_timesteps=steps, reset_num_timesteps=False, callback=callback, progress_bar=False)
    finally:
        for p in actor:
            p.requires_grad_(True)
        if phase is not None:
            phase.close()
    log(f"critic warm-up: {steps} steps with the actor frozen in {time.perf_counter() - t0:.0f}s")
