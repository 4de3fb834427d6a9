"""``club-envs play``: play a game in the terminal against agents.

The table is drawn from your seat only; your legal moves are listed with short codes. A wrong
or illegal entry gets a message and the same question again. ``help`` explains the codes,
``table`` draws the table again, ``quit`` saves the unfinished game's record and stops.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TextIO

from club_envs.cli.checks import check_output_folder, check_seconds
from club_envs.games import game_names
from club_envs.play.human_game import Frame, HumanGame, IllegalMove

DEFAULT_RECORDS = Path("runs/human")
QUIT_WORDS = ("quit", "exit", "q")


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "play",
        help="play a game in the terminal against agents",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("game", help=f"one of {', '.join(game_names())} (or arkham_decoders)")
    p.add_argument("--players", type=int, required=True, help="number of players, you included")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--seat", type=int, default=None, help="your seat, 0..players-1 (default: random)")
    where.add_argument(
        "--role", default=None,
        help="games with roles: leader, member, investigator, black_man or random (your seat follows the deal)",
    )
    p.add_argument(
        "--opponents", default="heuristic",
        help="one agent for every other seat, one per other seat in seat order (a,b,c), or role=name "
             "pairs; an agent is random, heuristic, a shipped agent's name, a policy file or a run folder "
             "(default heuristic)",
    )
    p.add_argument("--seed", type=int, default=None, help="seed of the deal and the agents (default: random)")
    p.add_argument("--records", type=Path, default=DEFAULT_RECORDS,
                   help=f"folder for the game's record (default {DEFAULT_RECORDS})")
    p.add_argument("--delay", type=float, default=None,
                   help="seconds between agents' moves (default 0.6 in a terminal, 0 otherwise)")
    return p


def run(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    stdin = stdin or sys.stdin
    out = stdout or sys.stdout
    check_seconds(args.delay, "--delay")  # the seed's range (128 bits, as a dealt game shows) is the game's to check
    check_output_folder(args.records, "--records")
    delay = args.delay if args.delay is not None else (0.6 if out.isatty() and stdin.isatty() else 0.0)
    game = HumanGame.create(
        args.game, num_players=args.players, seat=args.seat, role=args.role,
        opponents=args.opponents, seed=args.seed, interface="terminal",
    )
    TerminalPlay(game, stdin, out, delay, args.records).run()
    return 0


class TerminalPlay:
    """The question-and-answer loop around a :class:`HumanGame`."""

    def __init__(self, game: HumanGame, stdin: TextIO, out: TextIO, delay: float, records: Path) -> None:
        self.game = game
        self.stdin = stdin
        self.out = out
        self.delay = delay
        self.records = records

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def show(self, frame: Frame) -> None:
        for line in frame.lines:
            self.say(line)
        if frame.lines and self.delay:
            time.sleep(self.delay)

    def run(self) -> None:
        g = self.game
        seat_text = f"seat {g.human_seat}" + (f", {g.human_role.replace('_', ' ')}" if g.human_role else "")
        # The seed is not shown before the end: it would tell the deal.
        self.say(f"{g.game.RECORD_NAME}: {g.num_players} players, you are {seat_text}. "
                 "Type 'help' for the rules and the move codes, 'quit' to stop.")
        self.show(g.history[0])
        while True:
            g.advance(on_frame=self.show)
            if g.finished:
                break
            if not self.ask():
                g.quit()
                path = g.save(self.records)
                self.say(f"Game left unfinished. Record saved to {path}")
                return
        self.say()
        self.say(g.table_text())
        self.say()
        self.say("Result")
        for line in g.result_lines():
            self.say(line)
        path = g.save(self.records)
        self.say(f"Seed {g.seed} (--seed {g.seed} repeats this deal). Record saved to {path}")

    def ask(self) -> bool:
        """One decision of the person; False when they quit (or the input ends)."""
        g = self.game
        self.say()
        self.say(g.table_text())
        self.draw_menu()
        while True:
            self.out.write("Your move> ")
            self.out.flush()
            line = self.stdin.readline()
            if not line:  # end of input: treated as quitting, so the game is saved
                self.say()
                return False
            text = line.strip()
            word = text.lower()
            if not text:
                self.say("Type a move's number, or 'help'.")
                continue
            if word in QUIT_WORDS:
                return False
            if word in ("help", "h", "?"):
                self.say(g.presenter.help_text)
                self.draw_menu()
                continue
            if word in ("table", "t"):
                self.say(g.table_text())
                self.draw_menu()
                continue
            try:
                action = g.parse_move(text)
            except IllegalMove as exc:
                self.say(f"Not a legal move: {exc}")
                continue
            self.show(g.play(action))
            return True

    def draw_menu(self) -> None:
        g = self.game
        self.say("Your legal moves:")
        for line in g.presenter.terminal_menu(g.moves(), g.view()):
            self.say(line)
