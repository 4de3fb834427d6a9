"""Self-play training from YAML configs: stable-baselines3 / sb3-contrib ``MaskablePPO`` on one
machine (:mod:`.train`), Ray RLlib on a cluster (:mod:`.rllib_backend`). Needs the ``train`` extra,
except :mod:`.examples` (the example configs by name), which ``club-envs configs`` uses.

Its command lines are ``club-envs`` sub-commands (:mod:`club_envs.cli`): ``train`` (every trainer;
the config picks it), ``configs``, ``curves``, ``export`` (RLlib checkpoints), ``bench`` (training
throughput), ``exploit``, ``ship`` and ``card`` (model cards). The modules here are the library they
call. The repository's top-level ``training/`` folder holds only ``python -m training.<module>``
scripts for a checkout, each running one of those commands.
"""
