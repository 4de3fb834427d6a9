"""``python -m training.curves``: ``club-envs curves``, the learning curve of a run folder as a PNG;
see :mod:`club_envs.cli.curves`.
"""

import sys

from club_envs.cli import main

if __name__ == "__main__":
    raise SystemExit(main(["curves", *sys.argv[1:]]))
