"""Single-observer Information-Set Monte Carlo Tree Search (SO-ISMCTS).

After Cowling, Powley & Whitehouse, "Information Set Monte Carlo Tree Search", IEEE Transactions on
Computational Intelligence and AI in Games 4(2), 2012. The searching seat cannot see the hidden
information, so each iteration first draws a *determinization* -- one full world consistent with
its view (the game's sampler) -- and then walks one tree whose nodes are the searching seat's
information sets: a node is reached by a sequence of actions, whoever took them, and the same node
serves every world in which those actions were legal. Every player chooses in the tree by UCB1
on its own reward, with the *availability* count of an action (how often it was legal when its
node was visited) in place of the parent's visit count, as the paper prescribes, because in a
given world only some of a node's children are legal. A simulation leaves the tree when it adds a
node, plays on with the rollout policy until the game ends or the game's ``stop`` says the position
can be valued, and the value of each seat is backed up to the nodes where that seat chose.

In plain SO-ISMCTS (``opponents=tree``) the other players also choose by UCB in this one tree. Their
nodes are the *searching* seat's information sets, so an opponent's choice is averaged over worlds
that opponent could tell apart, and it is tuned to the searching seat's knowledge (a team player in
the Black Man's tree plays as if it knew the true book). By default (``opponents=model``) the other
players inside the tree move as the rollout policy would from their own view of the sampled world
-- an opponent model -- and the tree only branches on what they did; the searching seat's own
decisions are still chosen by UCB over availability counts.

Everything random is drawn from one seeded generator (worlds, expansions) and the rollout agent's
own seeded generator, so with a fixed number of iterations the same seed gives the same move. A
time budget (``seconds``) depends on the machine's speed and is not repeatable.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from club_envs.agents.base import Agent, Decision, Thought
from club_envs.search.game import SearchGame
from club_envs.search.worlds import Weight

# A game's batched play-outs: (worlds, candidate actions, rollout seed per world, root view) ->
# values (worlds, candidates, seats). See paired_search.
Playouts = Callable[[list, list[int], list[int], Any], np.ndarray]

DEFAULT_ITERATIONS = 32
DEFAULT_EXPLORATION = 0.7
ENGINES = ("vector", "reference")


class _Node:
    """One information set of the searching seat: statistics of the action leading into it."""

    __slots__ = ("children", "visits", "avail", "reward", "mover", "own_candidates")

    def __init__(self, mover: int | None) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.avail = 1
        self.reward = 0.0
        self.mover = mover  # the seat that chose the action into this node
        # The searching seat's candidate actions here, computed once per node when the game says
        # that what the searching seat sees at a node is the same in every world.
        self.own_candidates: tuple | None = None


def search(
    game: SearchGame,
    view: Any,
    rng: np.random.Generator,
    rollout: Agent,
    iterations: int | None = DEFAULT_ITERATIONS,
    seconds: float | None = None,
    exploration: float = DEFAULT_EXPLORATION,
    weight: Weight | None = None,
    model_opponents: bool = False,
) -> dict[int, tuple[int, float]]:
    """Search from ``view`` and return, per root action, (visits, mean reward of the searching seat).

    Stops after ``iterations`` simulations, or when ``seconds`` have passed (whichever is given;
    with both, whichever comes first). ``model_opponents``: the other players' moves inside the
    tree are the rollout policy's (an opponent model) instead of their own UCB choices.
    """
    if iterations is None and seconds is None:
        raise ValueError("give a number of iterations or a time budget in seconds")
    deadline = time.perf_counter() + seconds if seconds is not None else math.inf
    limit = iterations if iterations is not None else 1 << 62
    root = _Node(None)
    seat = view.seat
    cache_own = game.fixed_own_view
    sample, stop, candidates, values = game.sample_world, game.stop, game.candidates, game.values
    log = math.log
    sqrt = math.sqrt
    done = 0
    while done < limit and (done == 0 or time.perf_counter() < deadline):
        done += 1
        world = sample(view, rng, weight)
        node = root
        path = []
        # Selection and expansion: down the tree while every candidate action has a node.
        while not world.is_over and not stop(world, view):
            mover = world.current_player
            if mover != seat and model_opponents:
                # The other players move as the rollout policy would from their own view of this
                # world; the tree branches on what they did but does not choose for them.
                decision = game.decision(world)
                action = _policy_action(rollout, decision, rng)
                child = node.children.get(action)
                if child is None:
                    child = node.children[action] = _Node(mover)
                world.apply_action(action)
                node = child
                path.append(node)
                continue
            if mover == seat and cache_own:
                if node.own_candidates is None:
                    node.own_candidates = candidates(world)
                actions, ordered = node.own_candidates
            else:
                actions, ordered = candidates(world)
            children = node.children
            untried = [a for a in actions if a not in children]
            for a in actions:
                child = children.get(a)
                if child is not None:
                    child.avail += 1
            if untried:
                action = untried[0] if ordered else untried[int(rng.integers(len(untried)))]
                child = children[action] = _Node(world.current_player)
                world.apply_action(action)
                path.append(child)
                break
            best_score = -math.inf
            action = actions[0]
            for a in actions:
                c = children[a]
                score = c.reward / c.visits + exploration * sqrt(log(c.avail) / c.visits)
                if score > best_score:
                    best_score, action = score, a
            node = children[action]
            world.apply_action(action)
            path.append(node)
        # Simulation with the rollout policy, to the end or to where the game can value it.
        while not world.is_over and not stop(world, view):
            world.apply_action(_policy_action(rollout, game.decision(world), rng))
        value = values(world)
        for n in path:
            n.visits += 1
            n.reward += value[n.mover]
    return {a: (c.visits, c.reward / c.visits if c.visits else 0.0) for a, c in root.children.items()}


def paired_search(
    game: SearchGame,
    view: Any,
    rng: np.random.Generator,
    rollout: Agent,
    worlds: int,
    weight: Weight | None = None,
    anchor: float = 0.0,
    playouts: Playouts | None = None,
) -> dict[int, tuple[int, float]]:
    """Play every root candidate out in the same ``worlds`` sampled worlds; return, per candidate
    in the game's order of preference, (worlds, mean reward of the searching seat) -- or, with
    ``anchor`` above 0, that mean less ``anchor`` standard errors of its paired difference from the
    first candidate's (the first keeps its own mean), see :func:`best_paired`.

    ``playouts``: the game's batched form of the rollout (e.g.
    :class:`club_envs.members_only.vector_search.Playouts`), which plays every world and candidate
    in one call on the batched engine instead of one by one with ``rollout`` on the reference
    engine. The worlds and their rollout seeds are drawn from ``rng`` alike either way.

    Common random numbers: all candidates meet the same hidden cards and the same rollout
    randomness (the rollout policy is reseeded alike for each), so the difference between two
    candidates' means is free of the noise the worlds themselves bring -- which is most of it when
    a decision's value hinges on a probability (will a category's count reach the space?). The
    tree's UCB instead gives each candidate its own few worlds.
    """
    seat = view.seat
    first = game.sample_world(view, rng, weight)
    actions = [int(a) for a in game.candidates(first)[0]]
    if len(actions) == 1:
        return {actions[0]: (0, 0.0)}
    if playouts is not None:
        sampled, seeds = [], []
        for k in range(worlds):
            sampled.append(first if k == 0 else game.sample_world(view, rng, weight))
            seeds.append(int(rng.integers(2**31 - 1)))
        values = playouts(sampled, actions, seeds, view)[:, :, seat]
        return _paired_stats(actions, values, anchor)
    values = np.zeros((worlds, len(actions)))
    for k in range(worlds):
        world = first if k == 0 else game.sample_world(view, rng, weight)
        rollout_seed = int(rng.integers(2**31 - 1))
        for i, action in enumerate(actions):
            state = world.clone()
            state.apply_action(action)
            rollout.reset(seat, rollout_seed)
            while not state.is_over and not game.stop(state, view):
                state.apply_action(_policy_action(rollout, game.decision(state), rng))
            values[k, i] = game.values(state)[seat]
    return _paired_stats(actions, values, anchor)


def _paired_stats(actions: list[int], values: np.ndarray, anchor: float) -> dict[int, tuple[int, float]]:
    """:func:`paired_search`'s answer from the play-outs' values ``(worlds, candidates)``."""
    worlds = values.shape[0]
    means = values.mean(axis=0)
    if anchor > 0 and worlds > 1:
        diff = values - values[:, :1]
        means = means - anchor * diff.std(axis=0, ddof=1) / math.sqrt(worlds)
    return {a: (worlds, float(means[i])) for i, a in enumerate(actions)}


def best_paired(stats: dict[int, tuple[int, float]]) -> int:
    """The candidate with the best mean; on equal means the one listed first (the game's
    preference). With an ``anchor`` (:func:`paired_search`) another candidate replaces the first
    only when its mean is ahead by more than that many standard errors of the paired difference:
    the game's favourite stands unless the play-outs clearly disagree."""
    actions = list(stats)
    return max(actions, key=lambda a: (stats[a][1], -actions.index(a)))


def _policy_action(policy: Agent, decision: Decision, rng: np.random.Generator) -> int:
    """The policy's move; a uniformly random legal one if the policy names an illegal action."""
    action = int(policy.act(decision))
    if action not in decision.legal_actions:
        legal = decision.legal_actions
        action = int(legal[int(rng.integers(len(legal)))])
    return action


def best_action(stats: dict[int, tuple[int, float]]) -> int:
    """The most visited root action (ties: the higher mean reward, then the lower action)."""
    return max(stats, key=lambda a: (stats[a][0], stats[a][1], -a))


@dataclass(frozen=True)
class ISMCTSOptions:
    """The options of an ``ismcts`` agent name (``ismcts:iters=200:rollout=heuristic``).

    iters
        simulations per decision of the tree search (default 32): repeatable under a seed. With
        paired play-outs (``paired`` above 0) the number of worlds sets the work instead.
    seconds
        a time budget per decision instead (not repeatable: it depends on the machine).
    rollout
        the policy that plays out each simulation: ``random``, ``heuristic``, a game's own rollout
        policy (Members Only: ``light``, its default) or any other agent name the game accepts (a
        shipped agent, a policy file or a run folder) -- policy-guided search. The default is the
        game's choice (Arkham: ``heuristic``).
    c
        the UCB exploration constant (default 0.7; rewards lie in [0, 1]).
    beliefs
        ``uniform`` samples every consistent world equally; ``heuristic`` reweights worlds by the
        heuristic bots' belief where the game has one (Arkham: the vote model); a learned belief
        model (Members Only: ``members_only_belief`` or a belief file ``*.npz``) reweights them by
        what it predicts from the searching seat's observation. The default is the game's choice
        (see ``docs/search.md``).
    estimates
        Members Only: ``heuristic`` ranks the candidate bets and cards by the heuristic's uniform
        belief; a learned belief model (as for ``beliefs``) ranks them by its prediction, so with
        one card the reveals and discards are that belief agent's choice. Default: the game's.
    width
        Members Only: the bets (plus "no bet") the search considers per decision, the heuristic's
        favourites (default 4).
    cards
        Members Only: the cards to reveal or discard considered per decision, the heuristic's
        favourites (default: 1 -- the heuristic's own choice -- with paired search, else ``width``).
    anchor
        with paired play-outs, keep the game's favourite candidate unless another one's mean is ahead
        by more than this many standard errors of their paired difference (default 0: the best
        mean wins). The default is the game's choice (Members Only: see ``docs/search.md``).
    paired
        search the root by paired play-outs in this many worlds (every candidate in the same
        worlds, :func:`paired_search`) instead of the tree; 0 searches with the tree. The default
        is the game's choice (Members Only: 16; Arkham: 0).
    opponents
        ``model`` (default): inside the tree the other players move as the rollout policy would,
        each from its own view of the sampled world; ``tree``: they choose by UCB in the searching
        seat's tree like the searching seat itself (plain SO-ISMCTS, where an opponent's choices
        are fused over worlds it could tell apart -- see ``docs/search.md``).
    engine
        where paired play-outs run: ``vector`` plays all worlds and candidates at once on the game's
        batched engine (Members Only, with the ``light``, ``heuristic`` or ``random`` rollout);
        ``reference`` one by one on the reference engine. The default is ``vector`` where the
        game and rollout have a batched form, else ``reference``. Both draw the same worlds; the
        play-outs' own random draws differ, so the two agree in distribution, not move for move.
        The tree search runs on the reference engine.
    """

    iters: int | None = DEFAULT_ITERATIONS
    seconds: float | None = None
    rollout: str | None = None
    c: float = DEFAULT_EXPLORATION
    beliefs: str | None = None
    estimates: str | None = None
    width: int | None = None
    cards: int | None = None
    paired: int | None = None
    anchor: float | None = None
    opponents: str = "model"
    engine: str | None = None

    def label(self) -> str:
        parts = ["ismcts"]
        if self.seconds is not None:
            parts.append(f"seconds={self.seconds:g}")
        elif self.iters != DEFAULT_ITERATIONS:
            parts.append(f"iters={self.iters}")
        if self.rollout is not None:
            parts.append(f"rollout={self.rollout}")
        if self.c != DEFAULT_EXPLORATION:
            parts.append(f"c={self.c:g}")
        if self.beliefs is not None:
            parts.append(f"beliefs={self.beliefs}")
        if self.estimates is not None:
            parts.append(f"estimates={self.estimates}")
        if self.width is not None:
            parts.append(f"width={self.width}")
        if self.cards is not None:
            parts.append(f"cards={self.cards}")
        if self.paired is not None:
            parts.append(f"paired={self.paired}")
        if self.anchor is not None:
            parts.append(f"anchor={self.anchor:g}")
        if self.opponents != "model":
            parts.append(f"opponents={self.opponents}")
        if self.engine is not None:
            parts.append(f"engine={self.engine}")
        return ":".join(parts)


_ALLOWED = ("iters=N, seconds=S, rollout=random|heuristic|<agent>, c=X, beliefs=uniform|heuristic|<belief model>, "
            "estimates=heuristic|<belief model>, width=N, cards=N, paired=N, anchor=Z, opponents=model|tree, "
            "engine=vector|reference")


def parse_options(text: str) -> ISMCTSOptions:
    """Read ``key=value`` options separated by ``:`` (the part after ``ismcts:``)."""
    values: dict[str, Any] = {}
    for item in (p for p in text.split(":") if p):
        key, eq, raw = item.partition("=")
        key, raw = key.strip(), raw.strip()
        if not eq or not raw:
            raise ValueError(f"ismcts option {item!r} needs a value; allowed: {_ALLOWED}")
        if key in values or (key in ("iters", "seconds") and {"iters", "seconds"} & set(values)):
            raise ValueError(f"ismcts option {key!r} given twice (iters and seconds exclude each other)")
        try:
            if key in ("iters", "width", "cards", "paired"):
                number = int(raw)
                if number < (0 if key == "paired" else 1):
                    raise ValueError
                values[key] = number
            elif key in ("seconds", "c", "anchor"):
                number = float(raw)
                if not (number > 0 if key == "seconds" else number >= 0) or not math.isfinite(number):
                    raise ValueError
                values[key] = number
            elif key in ("rollout", "beliefs", "estimates"):
                values[key] = raw  # checked against the game when the agent is built
            elif key in ("opponents", "engine"):
                if raw not in (("model", "tree") if key == "opponents" else ENGINES):
                    raise ValueError
                values[key] = raw
            else:
                raise KeyError(key)
        except KeyError:
            raise ValueError(f"unknown ismcts option {key!r}; allowed: {_ALLOWED}") from None
        except ValueError:
            raise ValueError(f"ismcts option {item!r} has a bad value; allowed: {_ALLOWED} "
                             "(N a whole number >= 1, paired >= 0, S > 0, X and Z >= 0)") from None
    if "seconds" in values:
        values.setdefault("iters", None)
    return ISMCTSOptions(**values)


class ISMCTSAgent:
    """An agent that searches every decision with SO-ISMCTS from its seat's view (or, where the
    game or the ``paired`` option asks for it, with paired play-outs: :func:`paired_search`).

    ``rollout`` is the agent that plays out simulations (for every seat); ``weight_for(view)`` gives
    the belief weight of worlds, or ``None`` for uniform sampling; ``playouts``, the rollout's
    batched form for paired play-outs on the batched engine (see :func:`paired_search`).
    """

    def __init__(
        self,
        game: SearchGame,
        rollout: Agent,
        options: ISMCTSOptions = ISMCTSOptions(),
        weight_for: Callable[[Any], Weight | None] = lambda view: None,
        seed: int | None = None,
        name: str | None = None,
        playouts: Playouts | None = None,
    ) -> None:
        self.game = game
        self.rollout = rollout
        self.playouts = playouts
        self.options = options
        self.weight_for = weight_for
        self.name = name or options.label()
        self.last_stats: dict[int, tuple[int, float]] = {}
        self.reset(0, seed)

    def reset(self, seat: int, seed: int | None = None) -> None:
        seeds = np.random.SeedSequence(seed).spawn(2) if seed is not None else [None, None]
        self._rng = np.random.default_rng(seeds[0])
        rollout_seed = int(seeds[1].generate_state(1)[0]) if seed is not None else None
        self.rollout.reset(seat, rollout_seed)

    def act(self, decision: Decision) -> int:
        legal = decision.legal_actions
        if len(legal) == 1:
            return int(legal[0])
        o = self.options
        worlds = self.game.paired_worlds if o.paired is None else o.paired
        if worlds > 0:
            anchor = self.game.paired_anchor if o.anchor is None else o.anchor
            self.last_stats = paired_search(self.game, decision.view, self._rng, self.rollout, worlds,
                                            weight=self.weight_for(decision.view), anchor=anchor,
                                            playouts=self.playouts)
            action = best_paired(self.last_stats)
            return action if action in legal else int(legal[0])
        self.last_stats = search(self.game, decision.view, self._rng, self.rollout, iterations=o.iters,
                                 seconds=o.seconds, exploration=o.c, weight=self.weight_for(decision.view),
                                 model_opponents=o.opponents == "model")
        action = best_action(self.last_stats)
        return action if action in legal else int(legal[0])

    def explain(self, decision: Decision) -> list[Thought]:
        """The search's root statistics, its choice first: each action's visits (or, with paired
        play-outs, its mean result), the mean value in the note."""
        chosen = self.act(decision)
        if not self.last_stats or len(decision.legal_actions) == 1:
            return [Thought(chosen, 1.0, "chosen")]
        paired = "mean" if (self.game.paired_worlds if self.options.paired is None else self.options.paired) > 0 else None
        stats = self.last_stats
        ordered = sorted(stats, key=lambda a: (a != chosen, -stats[a][0] if paired is None else -stats[a][1], a))
        if paired is None:
            return [Thought(int(a), float(stats[a][0]), "visits", f"mean value {stats[a][1]:+.3f}") for a in ordered]
        return [Thought(int(a), float(stats[a][1]), "mean result", f"{stats[a][0]} play-outs") for a in ordered]
