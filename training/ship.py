"""``python -m training.ship``: a run's policy copied into club_envs/agents/shipped with its model card;
see :mod:`club_envs.training.ship`.
"""

from club_envs.training.ship import main

if __name__ == "__main__":
    raise SystemExit(main())
