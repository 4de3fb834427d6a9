"""The one flat ``Discrete(30)`` action space shared by every seat.

=========  ============================================  ============================
action     meaning                                       legal for / when
=========  ============================================  ============================
0 .. 23    reveal chapter card ``a`` from hand           leader/member to move in the
           (``card = book * 6 + value_index``)           proposal phase, card in hand
24         pass                                          member to move in the proposal
                                                         phase (the leader never passes)
25         agree (blue advice card)                      advisor to vote
26         oppose (red advice card)                      advisor to vote
27 .. 29   decode face-up card in slot 0 / 1 / 2         leader after a 1-1 vote; slot =
           (slots in the order the cards were revealed)  order of reveal; never a card of
                                                         a face-up grimoire
=========  ============================================  ============================
"""

from __future__ import annotations

from club_envs.arkham_decoders.rules import BOOKS, NUM_CARDS, card_name, parse_card

REVEAL = 0  # REVEAL + card
PASS = NUM_CARDS  # 24
AGREE = PASS + 1  # 25
OPPOSE = PASS + 2  # 26
DECODE = PASS + 3  # 27 + slot
NUM_SLOTS = 3
NUM_ACTIONS = DECODE + NUM_SLOTS  # 30

_KINDS = ("reveal", "pass", "agree", "oppose", "decode")


def encode(kind: str, arg: int | None = None) -> int:
    """The action id of ``("reveal", card)``, ``("pass",)``, ``("agree",)``, ``("oppose",)``, ``("decode", slot)``."""
    if kind == "reveal":
        if arg is None or not 0 <= arg < NUM_CARDS:
            raise ValueError(f"reveal needs a card id 0..{NUM_CARDS - 1}, got {arg!r}")
        return REVEAL + arg
    if kind == "decode":
        if arg is None or not 0 <= arg < NUM_SLOTS:
            raise ValueError(f"decode needs a face-up slot 0..{NUM_SLOTS - 1}, got {arg!r}")
        return DECODE + arg
    if kind in ("pass", "agree", "oppose"):
        return {"pass": PASS, "agree": AGREE, "oppose": OPPOSE}[kind]
    raise ValueError(f"unknown action kind {kind!r}; expected one of {', '.join(_KINDS)}")


def decode(action: int) -> tuple[str, int | None]:
    """``(kind, argument)`` of an action id; ``ValueError`` outside ``0..NUM_ACTIONS-1``."""
    if not isinstance(action, int) or isinstance(action, bool) or not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action!r} is outside the action space 0..{NUM_ACTIONS - 1}")
    if action < PASS:
        return "reveal", action - REVEAL
    if action == PASS:
        return "pass", None
    if action == AGREE:
        return "agree", None
    if action == OPPOSE:
        return "oppose", None
    return "decode", action - DECODE


def action_to_string(action: int) -> str:
    """Short code for people: ``"reveal necronomicon:-7"``, ``"pass"``, ``"agree"``, ``"decode slot 1"``."""
    kind, arg = decode(int(action))
    if kind == "reveal":
        return f"reveal {card_name(arg)}"
    if kind == "decode":
        return f"decode slot {arg}"
    return kind


def parse_action(text: str) -> int:
    """Read an action typed at the terminal.

    Accepts the action id, ``pass``/``p``, ``agree``/``a``/``yes``, ``oppose``/``o``/``no``,
    ``decode 1``/``d1``, and ``reveal necronomicon:-7``/``r necronomicon:-7``/``necronomicon:-7``
    (a book may be shortened to a unique prefix, e.g. ``nec:-7``).
    """
    words = text.strip().lower().split()
    if not words:
        raise ValueError("empty action; type e.g. 'reveal eibon:-3', 'pass', 'agree', 'oppose' or 'decode 0'")
    head = words[0]
    if head.isdigit() and len(words) == 1:
        action = int(head)
        decode(action)
        return action
    if head in ("pass", "p") and len(words) == 1:
        return PASS
    if head in ("agree", "a", "yes", "y") and len(words) == 1:
        return AGREE
    if head in ("oppose", "o", "no", "n") and len(words) == 1:
        return OPPOSE
    if head in ("decode", "d") and len(words) == 2 and words[1].isdigit():
        return encode("decode", int(words[1]))
    if head.startswith("d") and head[1:].isdigit() and len(words) == 1:
        return encode("decode", int(head[1:]))
    if head in ("reveal", "r") and len(words) == 2:
        return REVEAL + _parse_card_prefix(words[1])
    if len(words) == 1 and ":" in head:
        return REVEAL + _parse_card_prefix(head)
    raise ValueError(
        f"cannot read action {text!r}; type e.g. 'reveal eibon:-3', 'pass', 'agree', 'oppose' or 'decode 0'"
    )


def _parse_card_prefix(text: str) -> int:
    book_text, _, value_text = text.partition(":")
    matches = [b for b in BOOKS if b.startswith(book_text)] if book_text else []
    if len(matches) != 1:
        raise ValueError(f"{book_text!r} does not name one book; expected a prefix of {', '.join(BOOKS)}")
    return parse_card(f"{matches[0]}:{value_text}")
