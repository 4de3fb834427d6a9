"""The browser front end of human play (``club-envs serve``): see :mod:`club_envs.web.app`."""
