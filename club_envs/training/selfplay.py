"""Self-play: a pool of opponents on disk, and the environment that samples from it.

The learner never leaves the training process. What its opponents play lives in files:

``<run>/pool/<side>/pool.json``
    the members of the pool -- baseline bots by name, frozen snapshots by file -- each with its
    sampling probability and the learner's results against it;
``<run>/pool/<side>/snap-<step>.pt``
    frozen snapshots, weights-only policy files (:mod:`club_envs.agents.policy`).

:class:`SnapshotPool` (training process) adds snapshots, keeps the results and rewrites
``pool.json``; :class:`SelfPlayEnv` (inside each environment, also in a subprocess) re-reads
``pool.json`` when it changes, samples the opponents of every episode from it, and loads their
weights from the snapshot files. Nothing is pickled across processes after start-up.

Sampling schemes (``selfplay.scheme``), for the share of games not given to baseline bots:

``latest``   always the newest snapshot;
``uniform``  every snapshot alike (fictitious self-play);
``recent``   newer snapshots more often: weight 0.7**k for the k-th newest;
``loss``     snapshots the learner still loses to more often: weight (1 - p)**2 where p is the
             learner's smoothed win share against it (prioritised fictitious self-play).

Baseline bots (``selfplay.bots``) together get ``selfplay.bot_share`` of the draws.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from club_envs.agents.features import get as get_features
from club_envs.agents.base import play_through
from club_envs.agents.policy import PolicyAgent, PolicyFileError, load_policy_file

RECENT_DECAY = 0.7


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1))
    os.replace(tmp, path)


class SnapshotPool:
    """The opponents one side of the game trains against (training process only)."""

    def __init__(self, folder: Path, scheme: str, bots: Sequence[str], bot_share: float, max_size: int) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.scheme, self.bot_share, self.max_size = scheme, bot_share, max_size
        self.members: list[dict[str, Any]] = [
            {"id": f"bot:{name}", "kind": "bot", "name": name, "games": 0, "learner_wins": 0.0} for name in bots
        ]
        if (self.folder / "pool.json").exists():
            self._load()

    @property
    def path(self) -> Path:
        return self.folder / "pool.json"

    def _load(self) -> None:
        """Resume: read the members back, skipping (and reporting) snapshots that no longer load.
        A damaged ``pool.json`` stops the resume with one ``ValueError`` line naming it."""
        from club_envs import records
        from club_envs.limits import read_bytes

        what = "self-play pool file"
        try:
            data = records.parse(read_bytes(self.path, 2**24, what, ValueError), str(self.path))
        except records.RecordError as exc:  # plain JSON within the same limits as a record
            raise ValueError(str(exc).replace("not a JSON record", f"not a {what}")) from None

        def sound(m: Any) -> bool:
            number = all(isinstance(m.get(k), (int, float)) and not isinstance(m.get(k), bool)
                         for k in ("games", "learner_wins"))
            kind = (m.get("kind") == "bot" and isinstance(m.get("name"), str)) or (
                m.get("kind") == "snapshot" and isinstance(m.get("path"), str) and Path(m["path"]).name == m["path"]
                and m["path"] not in ("", ".", ".."))
            return isinstance(m.get("id"), str) and number and kind

        entries = data.get("members") if isinstance(data, dict) else None
        if not isinstance(entries, list) or not all(isinstance(m, dict) and sound(m) for m in entries):
            raise ValueError(f"{self.path}: not a {what}; it holds {{\"members\": [...]}}, each a bot or a snapshot "
                             "file of this folder with its games and wins (move it away to start the pool afresh)")
        members = []
        for m in entries:
            if m["kind"] == "snapshot":
                try:
                    PolicyAgent.from_file(self.folder / m["path"])
                except (PolicyFileError, FileNotFoundError) as exc:
                    print(f"self-play pool: skipping snapshot {m['id']}: {str(exc).split('. ')[0]}", file=sys.stderr)
                    bad = self.folder / m["path"]
                    if bad.exists():  # kept for inspection, out of the pool's way
                        os.replace(bad, bad.with_name(bad.name + ".corrupt"))
                    continue
            members.append(m)
        self.members = members

    def snapshots(self) -> list[dict[str, Any]]:
        return [m for m in self.members if m["kind"] == "snapshot"]

    def add_snapshot(self, step: int, save: Callable[[Path], Any], prefix: str = "snap") -> Path:
        """Freeze the learner: ``save(path)`` writes its policy file; the oldest beyond the size goes.
        (``prefix``: what the member is, in its file name -- ``exploiter`` for a responder that
        hunted the learner at ``step``.)"""
        name = f"{prefix}-{step:09d}.pt"
        save(self.folder / name)
        self.members = [m for m in self.members if m["id"] != name]
        self.members.append({"id": name, "kind": "snapshot", "path": name, "step": step, "games": 0, "learner_wins": 0.0})
        snaps = self.snapshots()
        for old in snaps[: max(0, len(snaps) - self.max_size)]:
            self.members.remove(old)
            (self.folder / old["path"]).unlink(missing_ok=True)
        self.write()
        return self.folder / name

    def record(self, opponent_ids: Sequence[str], learner_win: float) -> None:
        """The learner's result in one game against these pool members."""
        by_id = {m["id"]: m for m in self.members}
        for oid in set(opponent_ids):
            if oid in by_id:
                by_id[oid]["games"] += 1
                by_id[oid]["learner_wins"] += float(learner_win)

    def probabilities(self) -> dict[str, float]:
        bots = [m for m in self.members if m["kind"] == "bot"]
        snaps = self.snapshots()
        probs: dict[str, float] = {}
        snap_share = 1.0 - self.bot_share if bots else 1.0
        if not snaps:
            snap_share = 0.0
        for b in bots:
            probs[b["id"]] = (1.0 - snap_share) / len(bots)
        if snaps:
            if self.scheme == "latest":
                weights = np.zeros(len(snaps))
                weights[-1] = 1.0
            elif self.scheme == "uniform":
                weights = np.ones(len(snaps))
            elif self.scheme == "recent":
                weights = RECENT_DECAY ** np.arange(len(snaps))[::-1].astype(float)
            else:  # loss
                p = np.array([(s["learner_wins"] + 1.0) / (s["games"] + 2.0) for s in snaps])
                weights = (1.0 - p) ** 2 + 1e-3
            weights = weights / weights.sum() * snap_share
            for s, w in zip(snaps, weights):
                probs[s["id"]] = float(w)
        return probs

    def write(self) -> None:
        probs = self.probabilities()
        for m in self.members:
            m["prob"] = probs.get(m["id"], 0.0)
        _write_json(self.path, {"scheme": self.scheme, "bot_share": self.bot_share, "members": self.members})

    def table(self) -> list[tuple[str, int, float, float]]:
        """(member, games, learner win share, sampling probability) for logs."""
        probs = self.probabilities()
        return [
            (m["id"], m["games"], m["learner_wins"] / m["games"] if m["games"] else float("nan"), probs.get(m["id"], 0.0))
            for m in self.members
        ]


_LOADED: dict[tuple[str, int], tuple[Any, dict]] = {}


def load_shared(path: Path) -> tuple[Any, dict]:
    """A snapshot's network, loaded once per process: every environment of a vector environment
    then holds the same network object, so their opponents' decisions can share a forward pass."""
    key = (str(Path(path).resolve()), Path(path).stat().st_mtime_ns)
    if key not in _LOADED:
        if len(_LOADED) > 64:  # old snapshots leave the pool; so do their networks
            _LOADED.clear()
        _LOADED[key] = load_policy_file(path)
    return _LOADED[key]


class PoolReader:
    """The environment's side of a pool: samples members and loads their policies (cached)."""

    def __init__(self, folder: str | Path, rng: np.random.Generator) -> None:
        self.folder = Path(folder)
        self.rng = rng
        self._mtime: float | None = None
        self._ids: list[str] = []
        self._probs = np.zeros(0)
        self._members: dict[str, dict[str, Any]] = {}
        self._agents: dict[str, Any] = {}
        self._broken: set[str] = set()

    def _refresh(self) -> None:
        try:
            mtime = (self.folder / "pool.json").stat().st_mtime_ns
        except FileNotFoundError:
            return
        if mtime == self._mtime:
            return
        try:
            data = json.loads((self.folder / "pool.json").read_text())
        except (OSError, ValueError):
            return  # being rewritten: keep the previous members this episode
        self._mtime = mtime
        members = [m for m in data["members"] if m["id"] not in self._broken and m.get("prob", 0) > 0]
        self._members = {m["id"]: m for m in members}
        self._ids = [m["id"] for m in members]
        probs = np.array([m["prob"] for m in members], dtype=float)
        self._probs = probs / probs.sum() if probs.sum() > 0 else probs
        self._agents = {k: v for k, v in self._agents.items() if k in self._members}

    def sample(self, fallback: str = "random") -> tuple[str, Any]:
        """A pool member's id and what plays for it: a bot name, or a loaded PolicyAgent."""
        self._refresh()
        while self._ids:
            oid = self._ids[int(self.rng.choice(len(self._ids), p=self._probs))]
            member = self._members[oid]
            if member["kind"] == "bot":
                return oid, member["name"]
            if oid not in self._agents:
                try:
                    net, meta = load_shared(self.folder / member["path"])
                    self._agents[oid] = PolicyAgent(net, name=oid, deterministic=bool(meta.get("deterministic", False)),
                                                    meta=meta)
                except (PolicyFileError, FileNotFoundError, OSError) as exc:
                    print(f"self-play: snapshot {oid} cannot be loaded, skipped ({str(exc).split('. ')[0]})",
                          file=sys.stderr)
                    self._broken.add(oid)
                    self._mtime = None
                    self._refresh()
                    continue
            return oid, self._agents[oid]
        return f"bot:{fallback}", fallback


class SelfPlayEnv(gym.Env):
    """The learner's seat in a game whose other seats are drawn from self-play pools.

    ``variants`` are factories of the game's Gymnasium view (e.g. one per player count, or one per
    team role); every episode picks one at random, samples opponents for it, and plays it through.
    ``opponents_for(num_players, readers, rng)`` returns ``(opponents, member_ids)``: what to pass to the
    variant's ``set_opponents`` and which pool members were drawn. At the end of an episode
    ``info["selfplay"]`` holds those ids and the learner's result, ``win_share(info, return)``
    (default: 1 for a positive return).
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        variants: Sequence[Callable[[], gym.Env]],
        pools: dict[str, str | Path],
        opponents_for: Callable[[int, dict[str, PoolReader], np.random.Generator], tuple[Any, list[str]]],
        seed: int | None = None,
        win_share: Callable[[dict, float], float] | None = None,
    ) -> None:
        self._win_share = win_share or (lambda info, episode_return: float(episode_return > 0))
        self._factories = list(variants)
        self._envs: list[gym.Env | None] = [None] * len(self._factories)
        self._rng = np.random.default_rng(seed)
        self._pools = {side: Path(folder) for side, folder in pools.items()}
        self._readers = {side: PoolReader(folder, self._rng) for side, folder in self._pools.items()}
        self._opponents_for = opponents_for
        first = self._variant(0)
        self.observation_space = first.observation_space
        self.action_space = first.action_space
        self._current = first
        self._drawn: list[str] = []
        self._return = 0.0

    def _variant(self, i: int) -> gym.Env:
        if self._envs[i] is None:
            self._envs[i] = self._factories[i]()
        return self._envs[i]

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        return play_through(self.reset_moves(seed=seed, options=options))

    def step(self, action):
        return play_through(self.step_moves(action))

    def reset_moves(self, *, seed: int | None = None, options: dict | None = None):
        """:meth:`reset` as a generator of the opponents' moves (``club_envs.agents.base.play_through``)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            for reader in self._readers.values():
                reader.rng = self._rng
        self._current = self._variant(int(self._rng.integers(len(self._factories))))
        opponents, self._drawn = self._opponents_for(self._current.unwrapped.num_players, self._readers, self._rng)
        self._current.unwrapped.set_opponents(opponents)
        self._return = 0.0
        return (yield from self._current.unwrapped.reset_moves(seed=int(self._rng.integers(2**31)), options=options))

    def step_moves(self, action):
        """:meth:`step` as a generator of the opponents' moves."""
        obs, reward, terminated, truncated, info = yield from self._current.unwrapped.step_moves(action)
        self._return += float(reward)
        if terminated or truncated:
            info = dict(info)
            info["selfplay"] = {"opponents": list(self._drawn), "win": self._win_share(info, self._return)}
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self._current.unwrapped.action_masks()

    def learner_view(self):
        """The learner's view of the current game (for extra policy inputs)."""
        return self._current.unwrapped.learner_view()

    @property
    def privileged_size(self) -> int:
        """The length of :meth:`privileged_state` (the same for every variant of a game)."""
        return self._current.unwrapped.privileged_size

    def privileged_state(self) -> np.ndarray:
        """What the learner may not see in the current game, for a privileged critic (training only)."""
        return self._current.unwrapped.privileged_state()

    def close(self) -> None:
        for env in self._envs:
            if env is not None:
                env.close()


class FeatureObservation(gym.ObservationWrapper):
    """The learner's observation followed by the policy's extra inputs (:mod:`club_envs.agents.features`)."""

    def __init__(self, env: gym.Env, name: str) -> None:
        super().__init__(env)
        self.features = get_features(name)
        size = self.features.obs_size + self.features.extra
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, (size,), np.float32)

    def observation(self, observation: np.ndarray) -> np.ndarray:
        base = self.env.unwrapped
        return self.features.transform(observation, base.learner_view(), base.action_masks())

    def action_masks(self) -> np.ndarray:
        return self.env.action_masks()


class PrivilegedObservation(gym.ObservationWrapper):
    """The learner's inputs followed by what it may not see (``privileged_state()``), for the
    privileged critic of :mod:`club_envs.training.privileged`, which hides that tail from the actor."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        size = env.observation_space.shape[0] + env.unwrapped.privileged_size
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, (size,), np.float32)

    def observation(self, observation: np.ndarray) -> np.ndarray:
        return np.concatenate([observation, self.env.unwrapped.privileged_state()]).astype(np.float32)

    def action_masks(self) -> np.ndarray:
        return self.env.action_masks()
