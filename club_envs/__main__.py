import sys

from club_envs.cli import main

sys.exit(main())
