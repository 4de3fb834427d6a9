"""``python -m training.throughput``: ``club-envs bench``, training throughput of a config's learner per
vectorisation mode; see :mod:`club_envs.cli.bench`.
"""

import sys

from club_envs.cli import main

if __name__ == "__main__":
    raise SystemExit(main(["bench", *sys.argv[1:]]))
