"""``python -m training.throughput``: training throughput of a config's learner, per vectorisation mode;
see :mod:`club_envs.training.throughput`.
"""

from club_envs.training.throughput import main

if __name__ == "__main__":
    raise SystemExit(main())
