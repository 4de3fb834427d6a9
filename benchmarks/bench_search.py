"""Cost of an ``ismcts`` decision in Members Only: paired play-outs on the batched engine against the
same search on the reference engine.

    python benchmarks/bench_search.py [--positions 60] [--players 4] [--rounds 2]

Collects positions from seeded games of four ``heuristic`` bots (every decision with more than one
legal action of seat 0), then asks each search variant for a move in every position, interleaving
the engines a few times, and prints CPU milliseconds per decision of each (the best round), their
ratio, and how often the two engines chose the same move. Both engines search the same worlds and
candidates (the same seeds); only the play-outs' own random draws differ, so the moves agree
often but not always. The variants: the default search (worlds weighted by the shipped learned
belief, when installed) and the search on uniform worlds, where the play-outs are nearly all the work.
"""

from __future__ import annotations

import argparse
import time

import club_envs.members_only as mo
from club_envs.agents.base import Decision
from club_envs.agents.registry import load
from club_envs.members_only.engine import State
from club_envs.members_only.observer import Observer

VARIANTS = {"default": "ismcts", "uniform worlds": "ismcts:beliefs=uniform:estimates=heuristic"}


def positions(config: mo.Config, count: int) -> list[State]:
    """Positions where seat 0 has a choice to make, from games of four heuristic bots."""
    out, seed = [], 0
    while len(out) < count:
        state = State(config, seed=seed)
        bots = [mo.make_agent("heuristic", seed=seed * 10 + s) for s in range(config.num_players)]
        observer = Observer(config)
        while not state.is_over and len(out) < count:
            seat = state.current_player
            view = state.player_view(seat)
            decision = Decision(seat, view, state.legal_actions(), lambda: observer.observe(view), state.legal_mask)
            if seat == 0 and len(decision.legal_actions) > 1:
                out.append(state.clone())
            state.apply_action(bots[seat].act(decision))
        seed += 1
    return out


def moves(name: str, config: mo.Config, states: list[State]) -> tuple[list[int], float]:
    """Each position's move by a fresh agent ``name`` (seeded per position) and the CPU seconds."""
    agent = load(name, game=mo, config=config, seed=0)
    observer = Observer(config)
    chosen, cpu = [], 0.0
    for i, state in enumerate(states):
        view = state.player_view(0)
        decision = Decision(0, view, state.legal_actions(), lambda: observer.observe(view), state.legal_mask)
        agent.reset(0, 1000 + i)
        t = time.process_time()
        chosen.append(agent.act(decision))
        cpu += time.process_time() - t
    return chosen, cpu


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--positions", type=int, default=60)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--rounds", type=int, default=2)
    args = p.parse_args(argv)
    config = mo.Config(num_players=args.players)
    states = positions(config, args.positions)
    moves("ismcts:engine=vector", config, states[:2])  # compile (or load the compiled cache) first
    print(f"Members Only, {args.players} players: {len(states)} decisions of seat 0 (more than one legal action)")
    for label, name in VARIANTS.items():
        best = {"reference": float("inf"), "vector": float("inf")}
        chosen = {}
        for _ in range(args.rounds):
            for engine in best:
                chosen[engine], cpu = moves(f"{name}:engine={engine}", config, states)
                best[engine] = min(best[engine], cpu)
        same = sum(a == b for a, b in zip(chosen["reference"], chosen["vector"])) / len(states)
        ms = {engine: 1000 * cpu / len(states) for engine, cpu in best.items()}
        print(f"{label:>15}: reference engine {ms['reference']:7.2f} ms, batched engine {ms['vector']:7.2f} ms per "
              f"decision ({ms['reference'] / ms['vector']:.2f}x); same move in {same:.0%} of the decisions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
