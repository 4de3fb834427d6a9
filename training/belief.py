"""``python -m training.belief``: Members Only belief iteration from a YAML config, or --resume a run
folder; see :mod:`club_envs.training.belief`.
"""

from club_envs.training.belief import main

if __name__ == "__main__":
    raise SystemExit(main())
