"""``python -m training.curves``: the learning curve of a run folder as a PNG;
see :mod:`club_envs.training.curves`.
"""

from club_envs.training.curves import main

if __name__ == "__main__":
    raise SystemExit(main())
