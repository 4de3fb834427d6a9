"""The RLlib PPO algorithm for a training config: one place where every RLlib setting is made.

The networks are RLlib's default PPO modules with action masking: the
:class:`ActionMaskingTorchRLModule` that RLlib ships among its examples (imported from the installed
``ray`` package) adds ``log(mask)`` to the logits, so an illegal action has probability zero when
sampling and in the PPO loss. Its actor -- an MLP of ``network.hidden`` with ``network.activation``
and one linear layer to the logits, the critic being a separate MLP -- has the same shape as the
stable-baselines3 ``MaskablePPO`` actor, which is what lets :mod:`.export` write it into the same
policy files.
"""

from __future__ import annotations

from typing import Any

from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

from club_envs.training.rllib_backend.env_adapter import ClubMultiAgentEnv
from club_envs.training.rllib_backend.league import LeagueMapping, all_modules, is_snapshot, learner_modules
from club_envs.training.settings import NetworkSettings, RllibConfig

WIN_RATE_WINDOW = 200  # episodes the logged win rates average over


class LearnerWinRate(RLlibCallback):
    """Logs, per learning module, how often the seats it played ended with a positive last reward.

    The figure is measured against the current league (the learner itself and its snapshots), so
    it stays near the fair share (a quarter at a 4-player Members Only table); the evaluations
    against the bots are the measure of strength.
    """

    def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
        for agent_id, rewards in episode.get_rewards().items():
            module = episode.module_for(agent_id)
            if is_snapshot(module) or len(rewards) == 0:
                continue
            metrics_logger.log_value(
                ("league", f"{module}_win_rate"), float(rewards[-1] > 0), reduce="mean", window=WIN_RATE_WINDOW
            )


def model_config(network: NetworkSettings) -> DefaultModelConfig:
    """The network section as RLlib's model config (actor and critic apart, a linear logits head)."""
    return DefaultModelConfig(
        fcnet_hiddens=list(network.hidden),
        fcnet_activation=network.activation,
        head_fcnet_hiddens=[],
        vf_share_layers=False,
    )


def env_config(settings: RllibConfig) -> dict[str, Any]:
    """The adapter's ``env_config`` (:class:`ClubMultiAgentEnv`): what the env runners build their games from."""
    game = settings.game
    return {"game": game.name, "num_players": list(game.num_players), "options": dict(game.options),
            "seed": settings.seed}


def build_config(settings: RllibConfig) -> PPOConfig:
    """A typed training config with ``backend: rllib`` as an RLlib ``PPOConfig``."""
    game, algo, options = settings.game.name, settings.algorithm, settings.rllib
    pool_size = settings.selfplay.pool_size
    spec = RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=model_config(settings.network))
    return (
        PPOConfig()
        .environment(env=ClubMultiAgentEnv, env_config=env_config(settings))
        .env_runners(
            num_env_runners=options.num_env_runners,
            num_envs_per_env_runner=options.num_envs_per_env_runner,
            rollout_fragment_length=options.rollout_fragment_length,
            num_cpus_per_env_runner=1,
        )
        .training(
            lr=algo.learning_rate,
            gamma=algo.gamma,
            lambda_=algo.gae_lambda,
            clip_param=algo.clip_range,
            entropy_coeff=algo.ent_coef,
            vf_loss_coeff=algo.vf_coef,
            grad_clip=algo.max_grad_norm,
            grad_clip_by="global_norm",
            num_epochs=algo.n_epochs,
            minibatch_size=algo.batch_size,
            train_batch_size_per_learner=options.train_batch_size,
        )
        .multi_agent(
            policies=set(all_modules(game, pool_size)),
            policy_mapping_fn=LeagueMapping(game, pool_size, options.self_play_share),
            policies_to_train=list(learner_modules(game)),
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={m: spec for m in all_modules(game, pool_size)}))
        .callbacks(LearnerWinRate)
        .debugging(seed=settings.seed, log_level="ERROR")
        .reporting(metrics_num_episodes_for_smoothing=WIN_RATE_WINDOW)
    )
