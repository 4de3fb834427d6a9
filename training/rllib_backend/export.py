"""``python -m training.rllib_backend.export CHECKPOINT OUT_DIR``: an RLlib checkpoint as policy files
(:mod:`club_envs.training.rllib_backend.export`)."""

from club_envs.training.rllib_backend.export import main

if __name__ == "__main__":
    raise SystemExit(main())
