"""``club-envs league``: a round robin among several agents and a table of ratings.

Members Only: every group of ``--players`` different agents (every combination; with fewer agents
than seats, the agents fill the seats in turn) plays ``--games`` games with rotated seats.
Arkham Decoders Club: every ordered pair (A, B) of different agents plays ``--games`` games with A
as the whole team and B as the Black Man; an agent must therefore play every role (a shipped
``arkham_decoders``, a run folder with both sides, or a bot).

Ratings are fitted with openskill's Plackett-Luce model (a Bayesian multiplayer generalisation of
Elo/TrueSkill): each game is a ranking of its entries (ties share a rank). Members Only ranks the
agents at the table by score. Arkham's two sides win at very different rates, so one rating per
agent would mix how good it is with which side it happened to play: each agent gets one rating *as
the team* and one *as the Black Man*, every game ranks the team entry against the Black Man entry by
who won, and the table lists the two sides apart (ratings compare within a side, the way chess
ratings would if White always won two games in three). The games are rated in rounds -- game k of
every table, then game k + 1 -- so the online updates do not favour whichever pairing came last.
The table is sorted by the conservative ``ordinal`` = mu - 3 sigma, and also shows each entry's
win share with its 95% interval.
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path

from club_envs.agents.registry import load as load_agent
from club_envs.cli.checks import check_count, check_output_file, check_roles, check_seed
from club_envs.cli.evaluate import check_players
from club_envs.evaluation import Tally
from club_envs.games import game_names, load_game


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("league", help="round robin among agents, with a ratings table")
    p.add_argument("game", help=f"one of {', '.join(game_names())} (or arkham_decoders)")
    p.add_argument("--players", type=int, required=True, help="number of players")
    p.add_argument("--agents", required=True, help="two or more agents, comma-separated")
    p.add_argument("--games", type=int, default=200, help="games per pairing / group (default 200)")
    p.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    p.add_argument("--json", type=Path, default=None, help="write the table as JSON to this file")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return p


def pairings(game, names: list[str], players: int) -> list[dict]:
    """Every table of the round robin: ``{"seats": [...]}`` or ``{"roles": {...}}``."""
    if game.ROLES:
        team_roles = [r for r in game.ROLES if r != "black_man"]
        return [{"roles": {**{r: a for r in team_roles}, "black_man": b}}
                for a, b in itertools.permutations(names, 2)]
    if len(names) >= players:
        return [{"seats": list(group)} for group in itertools.combinations(names, players)]
    return [{"seats": [names[i % len(names)] for i in range(players)]}]


TEAM, BLACK_MAN = "team", "black_man"


def entry_side(role: str | None) -> str | None:
    """The side an Arkham role is rated on (None in a game without sides)."""
    if role is None:
        return None
    return BLACK_MAN if role == "black_man" else TEAM


def rank_entries(game, record, seat_names, role_names) -> tuple[list[tuple[str, str | None]], list[float]]:
    """The entries ``(agent, side)`` of one game and their scores (higher is better) for the rating
    model. Arkham: the team entry and the Black Man entry, scored by who won."""
    rows = game.outcomes(record)
    if role_names is not None:
        team = next(r for r in rows if r.role != "black_man")
        bm = next(r for r in rows if r.role == "black_man")
        return [(role_names[team.role], TEAM), (role_names["black_man"], BLACK_MAN)], [team.win, bm.win]
    best: dict[str, float] = {}
    for r in rows:  # an agent in several seats counts once, with its best seat
        name = seat_names[r.seat]
        best[name] = max(best.get(name, float("-inf")), r.score)
    return [(name, None) for name in best], list(best.values())


def run(args: argparse.Namespace) -> int:
    from openskill.models import PlackettLuce
    from tqdm import tqdm

    game = load_game(args.game)
    check_players(game, args.players)
    names = [n.strip() for n in args.agents.split(",") if n.strip()]
    if len(set(names)) < 2 or len(set(names)) != len(names):
        raise ValueError("--agents needs two or more different agents, comma-separated")
    check_count(args.games, "--games")
    check_seed(args.seed)
    check_output_file(args.json, "--json")
    config = game.Config(num_players=args.players)
    agents = {}
    for i, name in enumerate(names):
        agents[name] = [load_agent(name, game=game, config=config, seed=args.seed * 101 + i * 11 + s)
                        for s in range(args.players)]
        check_roles(agents[name][0], name, game, game.ROLES, role_pairs=False)  # each plays both sides

    model = PlackettLuce()
    sides = [TEAM, BLACK_MAN] if game.ROLES else [None]
    keys = [(name, side) for side in sides for name in names]
    ratings = {key: model.rating(name=_label(key)) for key in keys}
    tallies = {key: Tally(key[0]) for key in keys}
    tables = pairings(game, names, args.players)
    bar = tqdm(total=len(tables) * args.games, desc=f"league {game.RECORD_NAME}", unit="game",
               disable=args.no_progress)
    for k in range(args.games):  # in rounds: game k of every table before game k + 1
        for t, table in enumerate(tables):
            seed = args.seed * 1_000_003 + t * args.games + k
            if "seats" in table:
                seat_names = [table["seats"][(s + k) % args.players] for s in range(args.players)]
                used: dict[str, int] = {}
                players = []
                for name in seat_names:  # a name in several seats gets a separate instance per seat
                    players.append(agents[name][used.get(name, 0)])
                    used[name] = used.get(name, 0) + 1
                record = game.play_match(config, players, seed=seed)
                role_names = None
            else:
                role_names = table["roles"]
                record = game.play_match(config, lambda seat, role: agents[role_names[role]][seat], seed=seed)
                seat_names = None
            entries, scores = rank_entries(game, record, seat_names, role_names)
            for row in game.outcomes(record):
                name = seat_names[row.seat] if seat_names else role_names[row.role]
                tallies[(name, entry_side(row.role))].add(row.win, row.score)
            # openskill: lower rank is better; equal scores share a rank
            order = sorted(set(scores), reverse=True)
            ranks = [order.index(s) + 1 for s in scores]
            new = model.rate([[ratings[e]] for e in entries], ranks=ranks)
            for e, team in zip(entries, new):
                ratings[e] = team[0]
            bar.update()
    bar.close()

    print(f"{len(tables)} tables x {args.games} games")
    out = []
    for side in sides:
        if side is not None:
            print(f"as the {'team' if side == TEAM else 'Black Man'} (ratings compare within a side)")
        print(f"{'#':>2} {'agent':<36} {'mu':>7} {'sigma':>6} {'ordinal':>8} {'seats':>6} {'win share':>10} "
              f"{'95% interval':>16}")
        rows = sorted(names, key=lambda n: ratings[(n, side)].ordinal(), reverse=True)
        for i, name in enumerate(rows, 1):
            r, t = ratings[(name, side)], tallies[(name, side)]
            lo, hi = t.interval
            print(f"{i:>2} {name:<36} {r.mu:>7.2f} {r.sigma:>6.2f} {r.ordinal():>8.2f} {t.seats:>6} "
                  f"{t.win_share:>10.3f} {f'[{lo:.3f}, {hi:.3f}]':>16}")
            out.append({"agent": name, **({"side": side} if side else {}), "mu": r.mu, "sigma": r.sigma,
                        "ordinal": r.ordinal(), **t.as_json()})
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"game": game.RECORD_NAME, "players": args.players,
                                         "games_per_table": args.games, "ratings": out}, indent=2))
        print(f"table written to {args.json}")
    return 0


def _label(key: tuple[str, str | None]) -> str:
    name, side = key
    return name if side is None else f"{name} ({side})"
