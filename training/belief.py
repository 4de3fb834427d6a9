"""``python -m training.belief``: ``club-envs train``, Members Only belief iteration from a YAML config
(``--config CONFIG``), or ``--resume`` a run folder; the config's ``recipe`` picks the trainer.
"""

import sys

from club_envs.cli import main

if __name__ == "__main__":
    raise SystemExit(main(["train", *sys.argv[1:]]))
