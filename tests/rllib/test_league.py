"""Who plays which seat: the league's policy-mapping function."""

from __future__ import annotations

from types import SimpleNamespace

from club_envs.training.rllib_backend.league import LeagueMapping, all_modules, is_snapshot


def episode(i: int) -> SimpleNamespace:
    return SimpleNamespace(id_=f"episode-{i}")


def test_members_only_player_0_is_always_the_learner_and_others_mix_learner_and_snapshots():
    mapping = LeagueMapping("members_only", pool_size=3, self_play_share=0.5)
    others = set()
    for i in range(200):
        assert mapping("player_0", episode(i)) == "main"
        others.update(mapping(f"player_{s}", episode(i)) for s in range(1, 5))
    assert others == {"main", "main_snap0", "main_snap1", "main_snap2"}


def test_mapping_gives_the_same_answer_for_an_agent_whenever_asked_in_one_episode():
    mapping = LeagueMapping("members_only", pool_size=4, self_play_share=0.3)
    for i in range(50):
        first = [mapping(f"player_{s}", episode(i)) for s in range(5)]
        again = [mapping(f"player_{s}", episode(i)) for s in reversed(range(5))][::-1]
        assert first == again


def test_arkham_one_side_plays_its_learner_and_the_other_side_one_draw_for_all_its_seats():
    mapping = LeagueMapping("arkham_decoders", pool_size=2, self_play_share=0.0)
    focus = {"team": 0, "black_man": 0}
    for i in range(200):
        team = {mapping(f"team_{k}", episode(i)) for k in range(5)}
        black_man = mapping("black_man", episode(i))
        assert len(team) == 1, "the team plays as one"
        (team_module,) = team
        if team_module == "team":
            focus["team"] += 1
            assert black_man.startswith("black_man_snap")
        else:
            focus["black_man"] += 1
            assert black_man == "black_man" and team_module.startswith("team_snap")
    assert min(focus.values()) > 50, focus


def test_self_play_share_one_or_an_empty_league_means_pure_self_play():
    for mapping in (LeagueMapping("members_only", 3, 1.0), LeagueMapping("members_only", 0, 0.0)):
        assert {mapping(f"player_{s}", episode(i)) for i in range(50) for s in range(5)} == {"main"}
    arkham = LeagueMapping("arkham_decoders", 3, 1.0)
    assert {arkham(a, episode(i)) for i in range(50) for a in ("team_0", "black_man")} == {"team", "black_man"}


def test_module_set_is_the_learners_plus_pool_size_snapshots_each():
    modules = all_modules("arkham_decoders", 2)
    assert modules == ["team", "black_man", "team_snap0", "team_snap1", "black_man_snap0", "black_man_snap1"]
    assert [m for m in modules if not is_snapshot(m)] == ["team", "black_man"]
