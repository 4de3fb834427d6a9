"""Arkham Decoders Club in words, for the person at the table."""

from __future__ import annotations

from typing import Any

from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.rules import BOOKS, card_name
from club_envs.play.presenter_base import Presenter, plural

ROLE_NAMES = {"leader": "Leader", "member": "Member", "advisor": "Advisor",
              "investigator": "Investigator", "black_man": "Black Man"}
BOOK_NAMES = {
    "eibon": "Book of Eibon",
    "cthaat": "Cthäat Aquadingen",
    "necronomicon": "Necronomicon",
    "nameless_cults": "Nameless Cults",
}
END_REASONS = {
    "reshuffle": "the deck would be reshuffled for the third time",
    "no_deck": "no new deck can be made (the discard pile is empty)",
    "illegal_action": "a player forfeited with an illegal move",
}

HELP = """\
Arkham Decoders Club. The leader and members show chapter cards; the two advisors advise on
each set of 3 with a secret Agree or Oppose; then 2 Agree decode all 3 cards, 2 Oppose discard
them, 1 of each lets the leader decode one (never a card of a face-up grimoire). At the end the
Black Man's grimoire is the true one: its decoded cards cost their value in SAN, every other
decoded card gives +1. Total SAN of 1 or more: the team (leader, members, Investigator) wins;
0 or less: the Black Man wins.

Moves: type the number in [brackets], or the move itself:
  reveal eibon:-3  (or r eib:-3)   show a chapter card from your hand
  pass             (or p)          a member may pass (the leader never may)
  agree / oppose   (or a / o)      an advisor's secret advice
  decode 1         (or d1)         the leader picks the face-up card in slot 1 (slots 0-2)
Other commands: table (draw the table again), help, quit (save the unfinished game and stop)."""


class ArkhamPresenter(Presenter):
    game = "arkham_decoders_club"
    help_text = HELP
    hidden_roles = {"advisor": ("investigator", "black_man")}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pending_votes: list[dict[str, Any]] = []
        self._last_votes: list[str] = []
        self._identities: dict[int, str] = {}

    # ------------------------------------------------------------------ events
    def narrate(self, event: dict[str, Any]) -> list[str]:
        kind = event["type"]
        return getattr(self, f"_on_{kind}")(event)

    def _on_setup(self, e: dict[str, Any]) -> list[str]:
        me = self.human_seat
        self._identities = {int(s): v for s, v in e["identities"].items()}
        roles = ", ".join(f"seat {s} {ROLE_NAMES[r].lower()}" for s, r in enumerate(e["roles"]))
        lines = [f"Public roles: {roles}."]
        if str(me) in e["identities"]:
            identity = e["identities"][str(me)]
            book = e["grimoires"][str(me)]
            other = next(int(s) for s in e["identities"] if int(s) != me)
            truth = "the true grimoire (the Black Man's book is the true one)" if identity == "black_man" \
                else "a fake (only the Black Man's book is true)"
            lines.append(f"You are an Advisor: the {ROLE_NAMES[identity]}. Your grimoire is the "
                         f"{BOOK_NAMES[book]}: {truth}.")
            lines.append(f"The other advisor, seat {other}, is the {ROLE_NAMES[e['identities'][str(other)]]}.")
        elif me is not None:  # a spectator sees no hand
            hand = ", ".join(e["hands"][str(me)])
            lines.append(f"You are the {ROLE_NAMES[e['roles'][me]]}. Your hand: {hand}.")
        return lines

    def _on_reveal(self, e: dict[str, Any]) -> list[str]:
        return [f"{self.who(e['seat'])} show{'' if e['seat'] == self.human_seat else 's'} {e['card']}."]

    def _on_pass(self, e: dict[str, Any]) -> list[str]:
        return [f"{self.who(e['seat'])} pass{'' if e['seat'] == self.human_seat else 'es'}."]

    def _on_draw(self, e: dict[str, Any]) -> list[str]:
        if e["seat"] == self.human_seat:
            return [f"You draw {', '.join(e['cards'])}."]
        return [f"{self.who(e['seat'])} draws {plural(len(e['cards']), 'card')}."]

    def _on_reshuffle(self, e: dict[str, Any]) -> list[str]:
        line = f"The deck is empty: the discard pile becomes a new deck (reshuffle {e['number']})."
        if e["flipped"]:
            line += f" The {BOOK_NAMES[e['flipped']]} grimoire is turned face up: a known fake."
        return [line]

    def _on_vote(self, e: dict[str, Any]) -> list[str]:
        # Advice is simultaneous: the other advisor's card stays hidden until both have chosen.
        self._pending_votes.append(e)
        lines = []
        if e["seat"] == self.human_seat:
            lines.append(f"You choose {e['vote'].capitalize()} (hidden until both advisors have chosen).")
        if len(self._pending_votes) == 2:
            parts = [f"{self.who(v['seat'], capital=False)} {v['vote']}{'' if v['seat'] == self.human_seat else 's'}"
                     for v in self._pending_votes]
            lines.append("Advice revealed: " + " and ".join(parts) + ".")
            self._last_votes = [v["vote"] for v in self._pending_votes]
            self._pending_votes = []
        return lines

    def _on_decode(self, e: dict[str, Any]) -> list[str]:
        decoded, discarded = e["decoded"], e["discarded"]
        agrees = self._last_votes.count("agree")
        if e["chooser"] is not None:
            d = decoded[0]
            who = self.who(e["chooser"])
            return [f"{who} choose{'' if e['chooser'] == self.human_seat else 's'} {d['card']} "
                    f"(shown by {self.short(d['seat'])}) to decode; {plural(len(discarded), 'card')} discarded."]
        if len(decoded) == 3 or (decoded and agrees == 2):
            kept = "; ".join(f"{d['card']} before {self.short(d['seat'])}" for d in decoded)
            return [f"Two Agree: every card is decoded: {kept}."]
        if agrees == 1:
            return ["One Agree, one Oppose, but every face-up card is of a face-up grimoire: none is decoded; "
                    f"{plural(len(discarded), 'card')} discarded."]
        return [f"Two Oppose: {plural(len(discarded), 'card')} discarded."]

    def _on_peek(self, e: dict[str, Any]) -> list[str]:
        if e["seat"] == self.human_seat:
            black_man = next(s for s, v in self._identities.items() if v == "black_man")
            return [f"Your fourth decoded card: you look at the identity cards. Seat {black_man} is the Black Man."]
        return [f"{self.who(e['seat'])} has 4 decoded cards and secretly looks at the advisors' identity cards."]

    def _on_game_end(self, e: dict[str, Any]) -> list[str]:
        return [f"The game ends: {END_REASONS.get(e['reason'], e['reason'])}."]

    # ------------------------------------------------------------------ moves
    def move_label(self, action: int, view: Any) -> str:
        kind, arg = A.decode(int(action))
        if kind == "reveal":
            return f"reveal {card_name(arg)}"
        if kind == "decode":
            seat, card = view.table[arg]
            return f"decode {card_name(card)} (slot {arg}, shown by {self.short(seat)})"
        return kind

    def move_group(self, action: int) -> str:
        kind, _ = A.decode(int(action))
        return "vote" if kind in ("agree", "oppose") else kind

    # ------------------------------------------------------------------ the end
    def explain_result(self, result: dict[str, Any], state: Any) -> list[str]:
        view = state.player_view(self.human_seat)
        true_book = result["true_grimoire"]
        black_man = result["roles"].index("black_man")
        lines = [f"The true grimoire was the {BOOK_NAMES[true_book]} (the Black Man was {self.seat_name(black_man)})."]
        penalty = view.insanity_penalty
        for seat_text, san in sorted(result["san"].items(), key=lambda kv: int(kv[0])):
            seat = int(seat_text)
            parts = []
            raw = 0
            for card in view.decoded[seat]:
                name = card_name(card)
                book, value = name.split(":")
                points = int(value) if book == true_book else 1
                raw += points
                parts.append(f"{name} {points:+d}")
            detail = ", ".join(parts) if parts else "no decoded cards"
            line = f"  {self.seat_name(seat)}: {detail} = {raw:+d}"
            if raw <= 0 and penalty:
                line += f", insanity penalty -{penalty}"
            lines.append(line + f" -> SAN {san:+d}")
        total = result["total"]
        winner = "the team (leader, members and Investigator)" if result["winner"] == "team" else "the Black Man"
        rule = "1 or more: the team wins" if total >= 1 else "0 or less: the Black Man wins"
        if result["reason"] == "illegal_action":
            rule = f"seat {result.get('offender')} forfeited"
        lines.append(f"Total SAN {total:+d} ({rule}). Winner: {winner}.")
        won = self.human_seat in result["winners"]
        lines.append("You win!" if won else "You lose.")
        return lines


def book_name(book: int | str) -> str:
    return BOOK_NAMES[BOOKS[book] if isinstance(book, int) else book]
