"""Where an agent departs from a reference bot, how often, and what each kind of departure gains.

A model card should say more than "it wins more than the heuristic": which decisions the network
takes differently and what that is worth. Two measurements, on the same deals:

* **How often** (:func:`tally`): the agent plays its series; at every one of its decisions the
  reference bot (``heuristic`` by default) is asked on the same view, and the decisions are counted
  by kind -- the deciding seat's role and the game's phase (Arkham: ``leader/proposal``,
  ``investigator/vote``, ...; a game whose views carry no phase counts by role) -- with the share
  where the two choose differently.
* **What it gains** (:func:`gains`): the same series with a :class:`Hybrid` that plays the reference
  bot's move on one kind of decision and the agent's everywhere else. The agent's win share minus the
  hybrid's is what departing on that kind gained (negative: it cost), with the two series on the
  same seeds so that most of the deal-to-deal noise cancels.

``python -m club_envs.departures arkham_decoders --players 5 --agent arkham_neural_team
--roles leader,member,investigator --others black_man=heuristic --games 1000 --seed 900002``
prints both as a table (and ``--json FILE`` writes them).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from club_envs.agents.base import Decision
from club_envs.agents.policy import view_role
from club_envs.agents.registry import load as load_agent
from club_envs.evaluation import play_series
from club_envs.stats import wilson_interval as wilson
from club_envs.study_stats import paired_difference
from club_envs.games import load_game


def kind_of(decision: Decision) -> str:
    """A decision's kind: the deciding seat's role and the game's phase (``role/phase``)."""
    view = decision.view
    try:
        role = view_role(view)
    except ValueError:  # a game without roles (Members Only): every seat is a player
        role = "player"
    phase = getattr(view, "phase", None)
    names = getattr(sys.modules.get(type(view).__module__), "PHASES", None)
    if isinstance(phase, int) and names is not None:  # a game that numbers its phases names them there
        phase = names[phase]
    return f"{role}/{phase}" if phase is not None else role


@dataclass
class Counts:
    """Decisions of one kind and how many of them departed from the reference bot."""

    decisions: int = 0
    departures: int = 0


@dataclass
class _Pair:
    """An agent played beside a reference bot that sees every game it sees."""

    agent: Any
    reference: Any

    @property
    def name(self) -> str:
        return getattr(self.agent, "name", "agent")

    def reset(self, seat: int, seed: int | None = None) -> None:
        self.agent.reset(seat, seed)
        self.reference.reset(seat, seed)


@dataclass
class Watcher(_Pair):
    """Plays as ``agent`` and, at each of its decisions, asks ``reference`` too (on the same
    decision) and counts by kind."""

    counts: dict[str, Counts] = field(default_factory=dict)

    def act(self, decision: Decision) -> int:
        action = int(self.agent.act(decision))
        other = int(self.reference.act(decision))
        counts = self.counts.setdefault(kind_of(decision), Counts())
        counts.decisions += 1
        counts.departures += action != other
        return action


@dataclass
class Hybrid(_Pair):
    """``agent`` everywhere but on the decisions of the kinds in ``reverted``, where ``reference`` moves."""

    reverted: frozenset[str] = frozenset()

    def act(self, decision: Decision) -> int:
        chosen = self.reference if kind_of(decision) in self.reverted else self.agent
        return int(chosen.act(decision))


def _series(game: Any, config: Any, roles: Sequence[str], others: dict[str, str], wrap, games: int, seed: int):
    """The agent's win share (in the first of its roles) with ``wrap(seed)`` in the agent's roles. A
    game without roles (Members Only: ``roles`` is ``["player"]``) seats the agent in one seat,
    rotated, and ``others["player"]`` (default ``heuristic``) in the rest."""
    def make(name: str, s: int | None) -> Any:
        return wrap(s) if name == "agent" else load_agent(name, game=game, config=config, seed=s)

    if list(roles) == ["player"]:
        seats = ["agent"] + [others.get("player", "heuristic")] * (config.num_players - 1)
        result = play_series(game, config, seat_agents=seats, games=games, seed=seed, make=make)
        tally = result.by_agent["agent"]
    else:
        line_up = {**{r: "agent" for r in roles}, **others}
        result = play_series(game, config, role_agents=line_up, games=games, seed=seed, make=make)
        tally = result.by_role[("agent", roles[0])]
    return tally.wins / max(tally.seats, 1), tally


def tally(game: Any, config: Any, agent: str, roles: Sequence[str], others: dict[str, str], games: int, seed: int,
          reference: str = "heuristic") -> dict[str, Any]:
    """How often ``agent`` (playing ``roles``; ``others``: role -> agent for the rest) departs from
    ``reference``, per kind of decision, and its win share in that series."""
    watchers: list[Watcher] = []

    def wrap(s: int | None) -> Watcher:
        watchers.append(Watcher(load_agent(agent, game=game, config=config, seed=s),
                                load_agent(reference, game=game, config=config, seed=s)))
        return watchers[-1]

    share, t = _series(game, config, roles, others, wrap, games, seed)
    kinds: dict[str, Counts] = {}
    for w in watchers:
        for kind, c in w.counts.items():
            total = kinds.setdefault(kind, Counts())
            total.decisions += c.decisions
            total.departures += c.departures
    return {"win_share": share, "win_share_95ci": list(wilson(t.wins, t.seats)),
            "kinds": {k: {"decisions": c.decisions, "departures": c.departures,
                          "share": c.departures / max(c.decisions, 1)} for k, c in sorted(kinds.items())}}


def gains(game: Any, config: Any, agent: str, roles: Sequence[str], others: dict[str, str], kinds: Sequence[str],
          games: int, seed: int, reference: str = "heuristic") -> dict[str, Any]:
    """Per kind: the win share of the hybrid that reverts that kind to ``reference``, and the agent's
    gain over it; also the reference bot in the agent's roles (all kinds reverted)."""
    def hybrid(reverted: frozenset[str]):
        return lambda s: Hybrid(load_agent(agent, game=game, config=config, seed=s),
                                load_agent(reference, game=game, config=config, seed=s), reverted)

    full, full_tally = _series(game, config, roles, others, hybrid(frozenset()), games, seed)
    out: dict[str, Any] = {"agent": full}

    def versus(reverted: frozenset[str]) -> dict[str, Any]:
        share, t = _series(game, config, roles, others, hybrid(reverted), games, seed)
        row = {"win_share": share, "win_share_95ci": list(wilson(t.wins, t.seats)), "gain": full - share}
        if games > 1:  # the same deals: the gain's interval is paired game by game
            paired = paired_difference(full_tally.by_game(games) / (full_tally.seats // games),
                                       t.by_game(games) / (t.seats // games))
            row["gain_95ci"] = [paired.low, paired.high]
        return row

    for kind in kinds:
        out[kind] = versus(frozenset([kind]))
    out["all reverted"] = versus(frozenset(kinds))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m club_envs.departures", description=__doc__.split("\n\n")[0])
    p.add_argument("game")
    p.add_argument("--players", type=int, required=True)
    p.add_argument("--agent", required=True, help="the agent (a shipped name, a policy file or a run folder)")
    p.add_argument("--roles", required=True, help="the roles it plays, comma-separated (Members Only: player)")
    p.add_argument("--others", default="", help="role=agent pairs for the other roles (Members Only: player=heuristic)")
    p.add_argument("--reference", default="heuristic", help="the bot it is compared with (default heuristic)")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args(argv)
    game = load_game(args.game)
    config = game.Config(num_players=args.players)
    roles = [r for r in args.roles.split(",") if r]
    others = dict(pair.split("=", 1) for pair in args.others.split(",") if pair)
    how_often = tally(game, config, args.agent, roles, others, args.games, args.seed, args.reference)
    kinds = [k for k, c in how_often["kinds"].items() if c["departures"]]
    worth = gains(game, config, args.agent, roles, others, kinds, args.games, args.seed, args.reference)
    print(f"{args.agent} in {', '.join(roles)} against {args.others or 'the rest'}, {args.players} players, "
          f"{args.games} games, seed {args.seed}: win share {how_often['win_share']:.3f}; "
          f"{args.reference} in its roles {worth['all reverted']['win_share']:.3f}")
    print(f"{'decision':28s} {'decisions':>10s} {'departs':>8s} {'reverted':>9s} {'gain':>7s} {'paired 95%':>18s}")
    for kind, c in how_often["kinds"].items():
        row = worth.get(kind)
        ci = f"[{row['gain_95ci'][0]:+.3f}, {row['gain_95ci'][1]:+.3f}]" if row and "gain_95ci" in row else ""
        tail = f"{row['win_share']:9.3f} {row['gain']:+7.3f} {ci:>18s}" if row else f"{'':9s} {'':7s}"
        print(f"{kind:28s} {c['decisions']:10d} {c['share']:8.3f} {tail}")
    if args.json is not None:
        args.json.write_text(json.dumps({"settings": vars(args) | {"json": str(args.json)}, "departures": how_often,
                                         "gains": worth}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
