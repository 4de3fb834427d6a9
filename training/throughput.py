"""Measure training throughput: environment steps per second with N parallel environments.

    python -m training.throughput configs/members_only_4p.yaml --n-envs 1 2 4 8 --steps 4000

For each N, in one process (``DummyVecEnv``) and in subprocesses (``SubprocVecEnv``), a fresh
learner (the config's network) collects ``--steps`` steps through the self-play environments of the
config's first side (opponents drawn from a pool holding one frozen snapshot and the config's
bots, or ``--bots``), then runs one PPO update over them. Printed: steps per second of the rollout, and the share
of wall time spent in the environments, in the learner choosing actions, and in the update.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

from training import config as configs
from training import games
from training.callbacks import TimedVecEnv
from training.selfplay import SnapshotPool
from training.train import export_policy, make_selfplay_env


def measure(cfg: dict, side: str, n_envs: int, subprocess: bool, steps: int, run_dir: Path) -> dict:
    import functools

    fns = [functools.partial(make_selfplay_env, cfg, side, str(run_dir), 1000 + i) for i in range(n_envs)]
    venv = TimedVecEnv((SubprocVecEnv if subprocess else DummyVecEnv)(fns))
    n_steps = max(8, steps // n_envs)
    model = MaskablePPO("MlpPolicy", venv, n_steps=n_steps, batch_size=min(256, n_steps * n_envs), n_epochs=1,
                        device="cpu", seed=0,
                        policy_kwargs={"net_arch": {"pi": cfg["network"]["hidden"], "vf": cfg["network"]["hidden"]}})
    venv.reset()
    model._last_obs = None
    venv.env_seconds = 0.0
    t0 = time.perf_counter()
    model.learn(total_timesteps=n_steps * n_envs, progress_bar=False)
    total = time.perf_counter() - t0
    # the update of one rollout, timed separately
    t1 = time.perf_counter()
    model.train()
    update = time.perf_counter() - t1
    venv.close()
    rollout = total - update
    return {"n_envs": n_envs, "subprocess": subprocess, "steps": n_steps * n_envs,
            "steps_per_second": n_steps * n_envs / rollout, "env_share": venv.env_seconds / total,
            "act_share": max(0.0, rollout - venv.env_seconds) / total, "update_share": update / total}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.throughput", description=__doc__.splitlines()[0])
    p.add_argument("config", type=Path)
    p.add_argument("--n-envs", type=int, nargs="+", default=[1, 2, 4, 8])
    p.add_argument("--steps", type=int, default=4000)
    p.add_argument("--no-subprocess", action="store_true", help="measure in-process environments only")
    p.add_argument("--bots", nargs="*", default=None, help="override the pool's bots (e.g. random, or none)")
    args = p.parse_args(argv)
    cfg = configs.load(args.config)
    if args.bots is not None:
        cfg["selfplay"]["bots"] = args.bots
    torch.set_num_threads(1)
    side = configs.SIDES[cfg["game"]["name"]][0]
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp)
        # a pool with one frozen (untrained) snapshot per side plus the config's bots
        for s in configs.SIDES[cfg["game"]["name"]]:
            pool = SnapshotPool(run_dir / "pool" / s, cfg["selfplay"]["scheme"], cfg["selfplay"]["bots"],
                                cfg["selfplay"]["bot_share"], cfg["selfplay"]["pool_size"])
            env = games.make_view(cfg, cfg["game"]["num_players"][0], (games.side_roles(cfg, s) or [None])[0])
            model = MaskablePPO("MlpPolicy", env, device="cpu",
                                policy_kwargs={"net_arch": {"pi": cfg["network"]["hidden"], "vf": cfg["network"]["hidden"]}})
            pool.add_snapshot(0, lambda path, m=model, s=s: export_policy(m, cfg, s, path, 0))
        print(f"{'n_envs':>6} {'subprocess':>10} {'steps/s':>9} {'env':>6} {'acting':>7} {'update':>7}")
        for subprocess in ([False] if args.no_subprocess else [False, True]):
            for n in args.n_envs:
                r = measure(cfg, side, n, subprocess, args.steps, run_dir)
                print(f"{r['n_envs']:>6} {str(r['subprocess']):>10} {r['steps_per_second']:>9.0f} "
                      f"{r['env_share']:>6.0%} {r['act_share']:>7.0%} {r['update_share']:>7.0%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
