"""The text picture shows a seat what it may know and nothing more."""

from __future__ import annotations

from club_envs.arkham_decoders.render import render_text

from .helpers import make_state, reveal


def test_black_man_sees_both_identities_and_his_book():
    state = make_state()  # seat 2 is the Black Man with eibon, seat 4 the Investigator
    text = render_text(state.player_view(2))
    assert "you are the black man, grimoire eibon" in text
    assert "seat 4 advisor  (the Investigator)" in text


def test_a_member_sees_its_own_hand_but_no_identity_or_other_hand():
    state = make_state(hands={1: ["cthaat:-3", "eibon:-7"]})
    reveal(state, state.events[0]["hands"]["0"][0])
    text = render_text(state.player_view(1))
    assert "hand: eibon:-7 cthaat:-3" in text or "hand: cthaat:-3 eibon:-7" in text
    assert "Black Man" not in text and "Investigator" not in text and "grimoire" not in text.split("fakes")[1]
    assert "seat 0 leader   hand: 2 cards" in text
    assert "face up: [0]" in text and "by seat 0" in text
