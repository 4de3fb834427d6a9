"""``python -m training.rllib_backend --config CONFIG`` (or ``--resume RUN_DIR``)."""

import sys

from training.rllib_backend.run import main

sys.exit(main())
