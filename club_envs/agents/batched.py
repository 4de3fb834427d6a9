"""The batched opponent contract: one call answers the positions of many games at once.

A vector environment (``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``) plays
N games per step. An opponent that is a neural policy -- a frozen snapshot of the learner, a
belief model's policy -- should see all the games in which it is to move as one batch, so that
each of its moves costs one forward pass for the whole group instead of one per game. A
:class:`BatchedPolicy` is that opponent: any callable

    ``policy(observations, action_masks) -> actions``

with ``observations`` a ``(K, obs_size)`` ``float32`` array (each row the observation of the seat
to move in one game, exactly what that seat would get from the one-game environment),
``action_masks`` a ``(K, num_actions)`` bool array (every row holds at least one legal action) and
the answer ``(K,)`` whole numbers, one legal action per row. ``K`` varies from call to call (the
games where this opponent is to move); rows are independent. An optional ``name`` attribute is
the controller name written in game records (default ``"policy"``).

A policy whose inputs need more than the observation -- extra inputs computed from the seat's
whole view, such as the heuristic's evaluation of the position -- sets ``reads_state = True`` and
is then called ``policy(observations, action_masks, state)``, with ``state`` a :class:`GameRows`:
the environment's batched engine and, per row, the game and the seat to move. It must read only
what that seat may know (the batched engines' compiled feature functions do).

The environment calls the policy once per round of moves for every game where it is to move --
several seats sharing the same object form one group and share the call -- and checks the
answer: a wrong shape or dtype or an illegal action raises one error naming the game and the
legal actions. :func:`from_model` wraps a ``torch`` module or any ``logits(obs)`` function as such a
policy (greedy or sampled, masked).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np

from club_envs.compiled import compiled
from club_envs.errors import IllegalActionError


@runtime_checkable
class BatchedPolicy(Protocol):
    """``(observations (K, obs), action_masks (K, A)) -> actions (K,)`` (see the module docstring)."""

    def __call__(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray: ...


class GameRows(NamedTuple):
    """Where the rows of a batched call come from: row ``k`` is seat ``seats[k]`` to move in game
    ``rows[k]`` of the batched engine ``games``."""

    games: Any
    rows: np.ndarray
    seats: np.ndarray


def reads_state(policy: BatchedPolicy) -> bool:
    """Whether ``policy`` takes the :class:`GameRows` of its rows as a third argument."""
    return bool(getattr(policy, "reads_state", False))


def ask(policy: BatchedPolicy, observations: np.ndarray, action_masks: np.ndarray, state: GameRows) -> np.ndarray:
    """``policy``'s answer for these rows, handing it ``state`` if it reads it."""
    if reads_state(policy):
        return policy(observations, action_masks, state)
    return policy(observations, action_masks)


class Group(NamedTuple):
    """One batched policy: the opponents it plays in every game answer through one call."""

    policy: BatchedPolicy
    name: str


class PolicyGroups:
    """The batched policies a vector environment seats, numbered: every distinct policy object is one
    group (``number``), and a policy no game seats any more is let go (``let_go``)."""

    def __init__(self) -> None:
        self.groups: dict[int, Group] = {}
        self._number_of: dict[int, int] = {}  # id(policy) -> its group number
        self._next = 0

    def number(self, policy: BatchedPolicy) -> int:
        found = self._number_of.get(id(policy))
        if found is None:
            found = self._number_of[id(policy)] = self._next
            self.groups[found] = Group(policy, policy_name(policy))
            self._next += 1
        return found

    def let_go(self, seated: Any) -> None:
        """Forget every group whose number is not among ``seated``."""
        keep = set(np.unique(np.asarray(seated, np.int64)).tolist())
        for number in [n for n in self.groups if n not in keep]:
            del self._number_of[id(self.groups.pop(number).policy)]


def ask_groups(calls: Sequence[tuple[Group, np.ndarray]], games: Any, observer: Any, masks: np.ndarray,
               out: np.ndarray) -> None:
    """Every group's checked answer for its games (``calls``: the group and its rows), in ``out``.

    Each group is one call, as :func:`ask` makes it -- but groups whose policies read the same
    inputs (an ``inputs_key`` attribute, with ``inputs(observations, masks, state)`` and
    ``choose(inputs, masks)`` methods: :class:`~club_envs.agents.policy.BatchedPolicyAgent`) share
    one observation and one computation of those inputs for all their rows, then choose each on its
    own rows in turn. A vector environment seats many frozen snapshots of one network; their games
    are then one set of inputs instead of one per snapshot (a row's inputs are those it would get
    alone to float32 rounding: a learned model's matrix product sums a batch's rows in blocks)."""
    shared: dict[Any, list[tuple[Group, np.ndarray]]] = {}
    for group, rows in calls:
        key = getattr(group.policy, "inputs_key", None)
        if key is None:
            seats = games.tables.current[rows].astype(np.int64)
            legal = masks[rows].copy()
            answer = ask(group.policy, observer.observe_games(games, rows, seats), legal, GameRows(games, rows, seats))
            out[rows] = checked_answer(group.name, answer, legal, rows, seats)
        else:
            shared.setdefault(key, []).append((group, rows))
    for members in shared.values():
        rows = np.concatenate([r for _, r in members])
        seats = games.tables.current[rows].astype(np.int64)
        legal = masks[rows].copy()
        inputs = members[0][0].policy.inputs(observer.observe_games(games, rows, seats), legal,
                                             GameRows(games, rows, seats))
        start = 0
        for group, part in members:
            mine = slice(start, start + len(part))
            start += len(part)
            answer = group.policy.choose(inputs[mine], legal[mine])
            out[part] = checked_answer(group.name, answer, legal[mine], part, seats[mine])


def checked_answer(name: str, answer: Any, legal: np.ndarray, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """A batched policy's answer for the games ``rows`` (seats ``seats`` to move, legal actions
    ``legal``), as int64 -- or one :class:`~club_envs.errors.IllegalActionError` naming the policy
    and, for an illegal action, the game, the seat and the legal actions. The actions are checked by
    one compiled pass (:func:`first_illegal`): the environments check every answer of every round
    of moves, so the check must cost little beside the move."""
    answer = np.asarray(answer)
    if answer.shape != (len(rows),) or answer.dtype.kind not in "iu":  # whole numbers, signed or not
        raise IllegalActionError(f"opponent {name!r} must answer {len(rows)} whole numbers, one per game; got shape "
                                 f"{answer.shape}, dtype {answer.dtype}")
    actions = answer.astype(np.int64, copy=False)
    i = first_illegal(actions, legal)
    if i >= 0:
        raise IllegalActionError(f"game {rows[i]}: opponent {name!r} at seat {seats[i]} chose illegal action "
                                 f"{answer[i]}; legal actions: {', '.join(map(str, np.flatnonzero(legal[i])))}")
    return actions


@compiled
def first_illegal(answer: np.ndarray, legal: np.ndarray) -> int:
    """The first row whose action ``answer[k]`` is out of range or not set in ``legal[k]``; -1 if none."""
    for k in range(answer.shape[0]):
        action = answer[k]
        if action < 0 or action >= legal.shape[1] or not legal[k, action]:
            return k
    return -1


def masked_choice(logits: Any, masks: np.ndarray, greedy: bool, rng: np.random.Generator) -> np.ndarray:
    """One legal action per row of ``logits`` (B, A): the most probable (``greedy``; the first of
    equal logits) or one drawn from the masked softmax with ``rng`` (one uniform number per row,
    drawn as ``rng.random(B)``: the pick is the number of cumulative probabilities at or below it).
    Compiled (:func:`pick_masked`): every frozen opponent of every vector environment chooses
    through it, once per round of moves, on a few rows -- numpy's per-call cost was most of it."""
    logits = np.ascontiguousarray(logits)
    out = np.empty(len(logits), np.int64)
    uniforms = np.empty(0) if greedy else rng.random(len(logits))
    pick_masked(logits, np.ascontiguousarray(masks, dtype=np.bool_), greedy, uniforms, out)
    return out


@compiled
def pick_masked(logits: np.ndarray, masks: np.ndarray, greedy: bool, uniforms: np.ndarray, out: np.ndarray) -> None:
    """:func:`masked_choice` row by row, in float64: the legal action of highest logit, or the
    count of ``cumsum(exp(s - max)) / total`` at or below the row's uniform (capped at the last
    action), with ``s`` the logits and ``-inf`` where illegal -- numpy's own expression, summed
    in the same order."""
    actions = logits.shape[1]
    for r in range(logits.shape[0]):
        best, top = 0, -np.inf
        for a in range(actions):
            if masks[r, a] and float(logits[r, a]) > top:
                best, top = a, float(logits[r, a])
        if greedy:
            out[r] = best
            continue
        total = 0.0
        for a in range(actions):
            if masks[r, a]:
                total += np.exp(float(logits[r, a]) - top)
        cumulative, pick = 0.0, 0
        for a in range(actions):
            if masks[r, a]:
                cumulative += np.exp(float(logits[r, a]) - top)
            if cumulative / total <= uniforms[r]:
                pick += 1
        out[r] = min(pick, actions - 1)


def policy_name(policy: BatchedPolicy) -> str:
    """The controller name of ``policy`` in game records."""
    name = getattr(policy, "name", None)
    return name if isinstance(name, str) and name else "policy"


class MaskedLogits:
    """A :class:`BatchedPolicy` from a function of observations to action logits ``(K, A)``: the
    legal action with the highest logit (``greedy``), or one drawn from the masked softmax with its
    own seeded generator. ``logits`` may return a numpy array or a ``torch`` tensor."""

    def __init__(self, logits: Callable[[np.ndarray], object], greedy: bool = True, seed: int | None = None,
                 name: str = "policy") -> None:
        self.logits = logits
        self.greedy = greedy
        self.name = name
        self._rng = np.random.default_rng(seed)

    def __call__(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        raw = self.logits(observations)
        if hasattr(raw, "detach"):  # a torch tensor
            raw = raw.detach().cpu().numpy()
        return masked_choice(raw, action_masks, self.greedy, self._rng)


def from_model(model: Callable, greedy: bool = True, seed: int | None = None, name: str = "policy") -> MaskedLogits:
    """A :class:`BatchedPolicy` from a model mapping a batch of observations to logits (a ``torch``
    module is called under ``torch.no_grad()`` on a ``float32`` tensor)."""
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is a dependency of training only
        torch = None
    if torch is not None and isinstance(model, torch.nn.Module):
        def logits(obs: np.ndarray):
            with torch.no_grad():
                return model(torch.as_tensor(obs, dtype=torch.float32))
        return MaskedLogits(logits, greedy, seed, name)
    return MaskedLogits(model, greedy, seed, name)
