"""Self-play training from YAML configs: stable-baselines3 / sb3-contrib ``MaskablePPO`` on one
machine (:mod:`.train`), Ray RLlib on a cluster (:mod:`.rllib_backend`). Needs the ``train`` extra,
except :mod:`.examples` (the example configs by name), which ``club-envs configs`` uses.

The repository's top-level ``training/`` folder holds only ``python -m training.<module>`` entry
points for a checkout; they hand over to the modules here.
"""
