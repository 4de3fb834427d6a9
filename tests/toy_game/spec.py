"""High Card Swap as the rest of club-envs sees it."""

from club_envs.game_spec import GameSpec, Side

SPEC = GameSpec(
    name="toy_high_card",
    record_name="toy_high_card",
    title="High Card Swap",
    package="tests.toy_game",
    player_counts=(2, 3),
    default_players=2,
    roles=(),
    sides=(Side("player", roles=None, opponents="player", policy_file="policy.pt"),),
    bots=("random", "heuristic"),
    gym_id="club_envs_tests/HighCardSwap-v0",
    aec_id="club_envs_tests/high_card_swap-v0",
    shared_wins=True,
    hooks={
        "config": ".game:Config",
        "make_agent": ".game:make_agent",
        "play_match": ".game:play_match",
        "replay": ".game:replay",
        "outcomes": ".game:outcomes",
        "engine": ".game",
        "observer": ".game:Observer",
        "actions": ".game",
        "render": ".game",
        "record_schema": ".game:record_schema",
        "gym_env": ".envs:HighCardGymEnv",
        "aec_env": ".envs:env",
    },
)
