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


GYM_IDS = {"members_only": ("club_envs/MembersOnly-v0", {"num_players": 4, "seat": "random"}),
           "arkham_decoders": ("club_envs/ArkhamDecoders-v0", {"num_players": 5, "role": "any"})}


def gym_played(game, **kwargs):
    import gymnasium

    name, options = GYM_IDS[game]
    env = gymnasium.make(name, render_mode="ansi", **options, **kwargs)
    _, info = env.reset(seed=4)
    for _ in range(3):
        _, _, done, _, info = env.step(int(info["action_mask"].nonzero()[0][0]))
        if done:
            break
    return env


@pytest.mark.parametrize("game", sorted(GYM_IDS))
def test_the_gymnasium_view_draws_the_learner_by_default_and_any_view_on_request(game):
    env = gym_played(game)
    inner = env.unwrapped
    learner = inner.seat
    assert env.render() == inner.render_for(None) == inner.render_for(learner)
    assert env.render() == type(inner)._draw(inner.game, learner)  # the learner's own seat
    other = (learner + 1) % inner.num_players
    assert inner.render_for(other) != env.render()
    assert inner.render_for(f"player_{other}") == inner.render_for(other)
    spectator = gym_played(game, render_seat="public")
    assert spectator.render() == spectator.unwrapped.render_for("public")
    assert spectator.render() not in {spectator.unwrapped.render_for(s) for s in range(inner.num_players)}
    followed = gym_played(game, render_seat=0)
    assert followed.render() == followed.unwrapped.render_for(0)


@pytest.mark.parametrize("game", sorted(GYM_IDS))
@pytest.mark.parametrize("seat", [-1, 99, "player_9", True])
def test_a_bad_render_seat_of_the_gymnasium_view_is_one_config_error(game, seat):
    import gymnasium

    name, options = GYM_IDS[game]
    with pytest.raises(ConfigError, match=r"render_seat=.* is not allowed; expected None \(the learner\)"):
        gymnasium.make(name, render_seat=seat, **options).unwrapped
