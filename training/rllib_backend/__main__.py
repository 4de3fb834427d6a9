"""``python -m training.rllib_backend --config CONFIG`` (or ``--resume RUN_DIR``): ``club-envs train``, a run
on Ray RLlib of a config with ``backend: rllib`` (:mod:`club_envs.training.rllib_backend.run`)."""

import sys

from club_envs.cli import main

if __name__ == "__main__":
    raise SystemExit(main(["train", *sys.argv[1:]]))
