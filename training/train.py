"""``python -m training.train``: ``club-envs train``, self-play training from a YAML config (``--config
CONFIG``), or ``--resume`` a run folder; see :mod:`club_envs.cli.train`.
"""

import sys

from club_envs.cli import main

if __name__ == "__main__":
    raise SystemExit(main(["train", *sys.argv[1:]]))
