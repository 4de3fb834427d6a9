"""Training scripts for a checkout of this repository.

Each module here is a few lines that run a ``club-envs`` sub-command (:mod:`club_envs.cli`), which is
what the wheel installs; this folder is not installed. From the repository root::

    python -m training.train --config configs/members_only_4p.yaml    # = club-envs train CONFIG
    python -m training.train --resume runs/<run>                      # = club-envs train --resume RUN_DIR
    python -m training.belief --config configs/members_only_belief.yaml   # = club-envs train CONFIG
    python -m training.throughput configs/members_only_4p.yaml        # = club-envs bench CONFIG
    python -m training.curves runs/<run>                              # = club-envs curves RUN_DIR
    python -m training.ship runs/<run> --side player --name members_only   # = club-envs ship ...
    python -m training.rllib_backend --config configs/members_only_rllib_smoke.yaml   # = club-envs train CONFIG
    python -m training.rllib_backend.export runs/<run>/checkpoints/rllib exported/   # = club-envs export ...

After ``pip install club-envs`` the same commands are ``club-envs train``, ``bench``, ``curves``,
``ship`` and ``export``.
"""
