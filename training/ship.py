"""``python -m training.ship``: ``club-envs ship``, a run's policy copied into club_envs/agents/shipped with
its model card; see :mod:`club_envs.cli.ship`.
"""

import sys

from club_envs.cli import main

if __name__ == "__main__":
    raise SystemExit(main(["ship", *sys.argv[1:]]))
