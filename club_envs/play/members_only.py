"""Members Only in words, for the person at the table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from club_envs.members_only import actions as A
from club_envs.members_only.rules import (
    CATEGORIES,
    CHIP_TYPES,
    SPACES,
    TRACK_SCORING_MIN,
    card_name,
)
from club_envs.play.presenter_base import Presenter

CATEGORY_NAMES = {"umbrella": "umbrella", "crown": "crown", "teacup": "teacup", "big_ben": "Big Ben", "hat": "hat"}
END_REASONS = {
    "tracks": "every track has a marker at 5 or more",
    "max_heats": "the heat limit was reached",
    "illegal_action": "a player forfeited with an illegal move",
}

HELP = """\
Members Only. Each heat you bet chips on how many cards of each category (umbrella, crown,
teacup, Big Ben, hat) the display will hold at the end of the heat: "<=3" is right when 3 or
fewer are counted, ">=6" when 6 or more. A NO! card cancels one normal card of its category.
On a turn you may place one chip on an empty space, then (after the first round) reveal 2 cards
from your hand, one at a time. First-round chips sit on your risk marker: single x2, double x3.
A right chip moves your marker on that category's track by the space's reward (x2 for a double
chip); a wrong chip is lost. At the end of the heat you discard 1 of your last 3 cards face down.
The game ends when every track has a marker at 5 or more; only markers at 5 or more score.

Moves: type the number in [brackets], or the move itself:
  bet crown >=6 double   a chip on a space (single if the chip is left out)
  no bet                 (or pass)
  reveal hat / reveal hat-no      reveal a card (hat-no is the hat NO! card)
  discard teacup         the end-of-heat discard
Other commands: table (draw the table again), help, quit (save the unfinished game and stop)."""


def card_text(card: str | int) -> str:
    """``"hat NO!"`` for ``"hat-no"``; ``"Big Ben"`` for ``"big_ben"``."""
    name = card_name(card) if isinstance(card, int) else card
    base, _, no = name.partition("-")
    return CATEGORY_NAMES[base] + (" NO!" if no else "")


def multiplier(chip: int, risk: bool) -> int:
    return (3 if chip else 2) if risk else (2 if chip else 1)


class MembersOnlyPresenter(Presenter):
    game = "members_only"
    help_text = HELP

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._discards: list[dict[str, Any]] = []

    def _s(self, seat: int, verb: str) -> str:
        """``"You place"`` / ``"Seat 2 (random) places"``."""
        if seat == self.human_seat:
            return f"You {verb}"
        return f"{self.who(seat)} {verb}es" if verb.endswith(("s", "sh", "ch")) else f"{self.who(seat)} {verb}s"

    # ------------------------------------------------------------------ events
    def narrate(self, event: dict[str, Any]) -> list[str]:
        return getattr(self, f"_on_{event['type']}")(event)

    def _on_heat_start(self, e: dict[str, Any]) -> list[str]:
        lines = [f"Heat {e['heat']} begins; {self.who(e['start_player'], False)} "
                 f"{'start' if e['start_player'] == self.human_seat else 'starts'}."]
        if e["chips_refilled"]:
            lines.append("Chips back in full for: " + ", ".join(self.who(s, False) for s in e["chips_refilled"]) + ".")
        lines.append("Face-up cards: " + ", ".join(card_text(c) for c in e["face_up"]) + ".")
        if self.human_seat is not None:  # a spectator sees no hand
            lines.append("Your hand: " + ", ".join(card_text(c) for c in e["hands"][self.human_seat]) + ".")
        return lines

    def _on_bet(self, e: dict[str, Any]) -> list[str]:
        risk = " on the risk marker" if e["risk"] else ""
        return [f"{self._s(e['seat'], 'place')} a {e['chip']} chip on {CATEGORY_NAMES[e['category']]} "
                f"{e['space']}{risk}."]

    def _on_no_bet(self, e: dict[str, Any]) -> list[str]:
        return [f"{self._s(e['seat'], 'place')} no chip."]

    def _on_reveal(self, e: dict[str, Any]) -> list[str]:
        return [f"{self._s(e['seat'], 'reveal')} {' and '.join(card_text(c) for c in e['cards'])}."]

    def _on_discard(self, e: dict[str, Any]) -> list[str]:
        # The discards are simultaneous in effect: nobody's kept cards are shown until all have chosen.
        self._discards.append(e)
        lines = []
        if e["seat"] == self.human_seat:
            lines.append(f"You discard {card_text(e['card'])} face down; "
                         f"{' and '.join(card_text(c) for c in e['kept'])} will go to the display.")
        else:
            lines.append(f"{self.who(e['seat'])} discards a card face down.")
        if len(self._discards) == self.config.num_players:
            kept = "; ".join(f"{self.who(d['seat'], False)}: {', '.join(card_text(c) for c in d['kept'])}"
                             for d in self._discards if d["seat"] != self.human_seat)
            lines.append(f"Cards kept go to the display: {kept}.")
            self._discards = []
        return lines

    def _on_settle(self, e: dict[str, Any]) -> list[str]:
        counts = ", ".join(f"{CATEGORY_NAMES[c]} {n}" for c, n in e["counts"].items())
        lines = [f"Heat {e['heat']} is settled. Counts: {counts}."]
        for chip in e["chips"]:
            what = (f"{self.who(chip['seat'], False)}: {chip['chip']} chip on {CATEGORY_NAMES[chip['category']]} "
                    f"{chip['space']}{' (risk)' if chip['risk'] else ''}")
            if chip["correct"]:
                track = e["tracks"][chip["seat"]][CATEGORIES.index(chip["category"])]
                lines.append(f"  {what}: right, +{chip['points']} (track now {track}).")
            else:
                lines.append(f"  {what}: wrong, chip lost.")
        if not e["chips"]:
            lines.append("  No chips were on the board.")
        return lines

    def _on_game_end(self, e: dict[str, Any]) -> list[str]:
        return [f"The game ends: {END_REASONS.get(e['reason'], e['reason'])}."]

    # ------------------------------------------------------------------ moves
    def move_label(self, action: int, view: Any) -> str:
        if A.is_bet(action):
            category, space, chip = A.decode_bet(action)
            risk = view.round == 1
            pays = view.rewards[space] * multiplier(chip, risk)
            return (f"{CHIP_TYPES[chip]} chip on {CATEGORY_NAMES[CATEGORIES[category]]} {SPACES[space]} "
                    f"(pays {pays})")
        if action == A.NO_BET:
            return "no bet"
        if A.is_reveal(action):
            return f"reveal {card_text(action - A.REVEAL_BASE)}"
        if A.is_discard(action):
            return f"discard {card_text(action - A.DISCARD_BASE)}"
        return A.action_to_string(action)

    def move_group(self, action: int) -> str:
        if A.is_bet(action):
            return "bet"
        if action == A.NO_BET:
            return "no_bet"
        return "reveal" if A.is_reveal(action) else "discard"

    def terminal_menu(self, moves: Sequence[Any], view: Any) -> list[str]:
        """Bets as a grid (category x space, ``single/double`` codes per cell); the rest as a list."""
        bets = {m.action: m.code for m in moves if m.group == "bet"}
        others = [m for m in moves if m.group != "bet"]
        lines: list[str] = []
        if bets:
            risk = view.round == 1
            lines.append("  Bets: type single/double code" + (" (first round: on your risk marker, x2 / x3)" if risk else " (x1 / x2)"))
            head = "  " + " " * 10 + "".join(f"{s:>9}" for s in SPACES)
            pays = "  " + "pays".ljust(10) + "".join(
                f"{f'{r * multiplier(0, risk)}/{r * multiplier(1, risk)}':>9}" for r in view.rewards)
            lines += [head, pays]
            for c, name in enumerate(CATEGORIES):
                cells = []
                for s in range(len(SPACES)):
                    single = bets.get(A.encode_bet(c, s, 0), "-")
                    double = bets.get(A.encode_bet(c, s, 1), "-")
                    cells.append("taken" if single == "-" and double == "-" and view.board[c * len(SPACES) + s]
                                 else f"{single}/{double}")
                lines.append("  " + CATEGORY_NAMES[name].ljust(10) + "".join(f"{cell:>9}" for cell in cells))
        if others:
            lines += super().terminal_menu(others, view)
        return lines

    # ------------------------------------------------------------------ the end
    def explain_result(self, result: dict[str, Any], state: Any) -> list[str]:
        view = state.player_view(self.human_seat)
        lines = [f"Only markers at {TRACK_SCORING_MIN} or more score; markers at 1-4 count nothing."]
        for seat, track in enumerate(view.tracks):
            parts = [f"{CATEGORY_NAMES[CATEGORIES[c]]} {v}" for c, v in enumerate(track) if v >= TRACK_SCORING_MIN]
            low = [f"{CATEGORY_NAMES[CATEGORIES[c]]} {v}" for c, v in enumerate(track) if 0 < v < TRACK_SCORING_MIN]
            text = " + ".join(parts) if parts else "nothing at 5 or more"
            if low:
                text += f" (not counted: {', '.join(low)})"
            lines.append(f"  {self.seat_name(seat)}: {text} = {result['scores'][seat]}")
        winners = result["winners"]
        if result["reason"] == "illegal_action":
            lines.append(f"{self.seat_name(result.get('offender'))} forfeited; the others share the win.")
        elif len(winners) == 1:
            lines.append(f"Winner: {self.seat_name(winners[0])} with {result['scores'][winners[0]]}.")
        else:
            lines.append("Shared win (equal scores): " + ", ".join(self.seat_name(s) for s in winners) + ".")
        if self.human_seat in winners:
            lines.append("You win!" if len(winners) == 1 else "You share the win!")
        else:
            lines.append("You lose.")
        return lines

