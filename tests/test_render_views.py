"""``render()`` draws a chosen seat's view or a spectator's, and the spectator's view shows only
what every seat knows: two games that differ only in hidden cards draw the same public picture."""

from __future__ import annotations

import copy

import pytest

from club_envs import arkham_decoders_v0, members_only_v0
from club_envs.errors import ConfigError

ENVS = {"members_only": (members_only_v0, 4), "arkham_decoders": (arkham_decoders_v0, 5)}


def played(module, players, steps=12, **kwargs):
    env = module.env(num_players=players, render_mode="ansi", **kwargs)
    env.reset(seed=3)
    for _ in range(steps):
        mask = env.last()[0]["action_mask"]
        env.step(int(mask.nonzero()[0][0]))
    return env


@pytest.mark.parametrize("game", sorted(ENVS))
def test_the_default_is_the_agent_to_move_and_a_seat_can_be_chosen(game):
    module, players = ENVS[game]
    env = played(module, players)
    mover = env.unwrapped.agent_name_mapping[env.agent_selection] if game == "members_only" \
        else env.unwrapped._seat[env.agent_selection]
    assert env.render() == env.unwrapped.render_for(mover)
    other = (mover + 1) % players
    followed = played(module, players, render_seat=other)
    assert followed.render() == followed.unwrapped.render_for(f"player_{other}")
    assert followed.render() != followed.unwrapped.render_for(mover)


@pytest.mark.parametrize("game", sorted(ENVS))
def test_human_mode_prints_the_chosen_view(game, capsys):
    module, players = ENVS[game]
    env = module.env(num_players=players, render_mode="human", render_seat="public")
    env.reset(seed=3)
    env.step(int(env.last()[0]["action_mask"].nonzero()[0][0]))
    printed = capsys.readouterr().out
    assert "spectator" in printed
    assert printed.strip() == env.unwrapped.render_for("public").strip()


@pytest.mark.parametrize("game", sorted(ENVS))
@pytest.mark.parametrize("seat", [-1, 99, "player_9", "everyone", True, 1.5])
def test_a_bad_render_seat_is_one_config_error_naming_the_allowed_values(game, seat):
    module, players = ENVS[game]
    with pytest.raises(ConfigError, match="render_seat=.* is not allowed; expected None .*'public'.*player_0"):
        module.env(num_players=players, render_seat=seat)


def test_members_only_public_view_does_not_depend_on_the_hands():
    env = played(members_only_v0, 4, steps=9)
    game = env.unwrapped.game
    twin = copy.deepcopy(game)
    # swap two seats' hidden hands (same sizes): everything public stays the same
    twin.hands[1], twin.hands[2] = twin.hands[2], twin.hands[1]
    assert game.hands[1] != game.hands[2]
    from club_envs.members_only.render import render_text

    assert render_text(game, "public") == render_text(twin, "public")
    assert render_text(game, 1) != render_text(twin, 1)
    assert "hand:" not in render_text(game, "public")


def test_arkham_public_view_shows_no_hand_identity_or_grimoire():
    from club_envs.arkham_decoders.render import render_text

    env = played(arkham_decoders_v0, 5, steps=3)
    game = env.unwrapped.game
    public = render_text(game, "public")
    assert "seen by a spectator" in public
    assert "you are" not in public and "Black Man" not in public and "Investigator" not in public
    for seat in range(5):  # the same picture whichever seat's view it was built from
        view = game.player_view(seat)
        assert all(f"hand: {card}" not in public for card in view.hand)
    twin = copy.deepcopy(game)
    twin.identities = {seat: ("investigator" if who == "black_man" else "black_man")
                       for seat, who in game.identities.items()}
    assert render_text(twin, "public") == public
