"""``python -m training.rllib_backend --config CONFIG`` (or ``--resume RUN_DIR``): a run on Ray RLlib
(:mod:`club_envs.training.rllib_backend.run`)."""

from club_envs.training.rllib_backend.run import main

if __name__ == "__main__":
    raise SystemExit(main())
