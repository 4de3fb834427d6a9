"""Self-play training on Ray RLlib: the same YAML configs as stable-baselines3, with ``backend: rllib``.

When one machine is not enough, the env runners (the processes that play the games) spread over a
Ray cluster while the same configs, run folders and exported policies stay as they are:

* :mod:`.options`      the ``rllib:`` block of a config (where Ray runs, how RLlib samples);
* :mod:`.env_adapter`  our PettingZoo games as RLlib multi-agent environments;
* :mod:`.league`       who plays which seat: the learners and a league of their frozen snapshots;
* :mod:`.algorithm`    the RLlib PPO config, with RLlib's action-masking RL module;
* :mod:`.run`          the training loop, checkpoints, evaluation and the run folder;
* :mod:`.export`       RLlib modules -> the project's weights-only policy files.

Only :mod:`.options` can be imported without Ray (it is what config validation needs).
"""
