"""``python -m training.rllib_backend.export CHECKPOINT OUT_DIR``: ``club-envs export``, an RLlib checkpoint
as policy files; see :mod:`club_envs.cli.export`."""

import sys

from club_envs.cli import main

if __name__ == "__main__":
    raise SystemExit(main(["export", *sys.argv[1:]]))
