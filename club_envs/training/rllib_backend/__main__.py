"""``python -m club_envs.training.rllib_backend --config CONFIG`` (or ``--resume RUN_DIR``); from a checkout
also ``python -m training.rllib_backend``."""

import sys

from club_envs.training.rllib_backend.run import main

sys.exit(main())
