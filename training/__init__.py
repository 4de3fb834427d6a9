"""Training entry points for a checkout of this repository.

Each module here is a few lines that hand over to the implementation in :mod:`club_envs.training`,
which is what the wheel installs; this folder is not installed. From the repository root::

    python -m training.train --config configs/members_only_4p.yaml    # = club-envs train CONFIG
    python -m training.train --resume runs/<run>
    python -m training.throughput configs/members_only_4p.yaml
    python -m training.curves runs/<run>
    python -m training.ship runs/<run> --side player --name members_only
    python -m training.rllib_backend --config configs/members_only_rllib_smoke.yaml
    python -m training.rllib_backend.export runs/<run>/checkpoints/rllib exported/

After ``pip install club-envs`` the same commands are ``club-envs train`` and
``python -m club_envs.training.<module>``.
"""
