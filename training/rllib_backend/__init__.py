"""Entry points of the Ray RLlib backend for a checkout (:mod:`club_envs.training.rllib_backend`)."""
