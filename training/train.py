"""``python -m training.train``: self-play training from a YAML config, or --resume a run folder;
see :mod:`club_envs.training.train`.
"""

from club_envs.training.train import main

if __name__ == "__main__":
    raise SystemExit(main())
