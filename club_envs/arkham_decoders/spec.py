"""Arkham Decoders Club as the rest of club-envs sees it (see :mod:`club_envs.game_spec`)."""

from club_envs.arkham_decoders.roster import AGENT_NAMES
from club_envs.arkham_decoders.rules import BLACK_MAN, GAME_NAME, INVESTIGATOR, LEADER, MEMBER, PLAYER_COUNTS, ROLES
from club_envs.game_spec import PACKAGE_LAYOUT_HOOKS, GameSpec, Side

SPEC = GameSpec(
    name="arkham_decoders",
    record_name=GAME_NAME,
    title="Arkham Decoders Club",
    package="club_envs.arkham_decoders",
    player_counts=PLAYER_COUNTS,
    default_players=5,
    roles=ROLES,
    # The team's roles share one policy (its role is in the observation); the Black Man has his own.
    sides=(Side("team", roles=(LEADER, MEMBER, INVESTIGATOR), opponents="black_man", policy_file="team.pt"),
           Side("black_man", roles=(BLACK_MAN,), opponents="team", policy_file="black_man.pt", one_seat=True)),
    bots=AGENT_NAMES,
    gym_id="club_envs/ArkhamDecoders-v0",
    aec_id="club_envs/arkham_decoders-v0",
    shared_wins=False,  # a side wins or loses together
    aliases=("arkham",),
    hooks={
        **PACKAGE_LAYOUT_HOOKS,
        "make_agent": ".roster:make_agent",
        "gym_env": ".gym_env:ArkhamDecodersGymEnv",
        "vector_game": ".vector_game:ArkhamDecodersVectorGame",
        "vector_env": ".vector_env:ArkhamDecodersVectorEnv",
        "vector_view": ".vector_views:view_of",
        "vector_privileged": ".vector_privileged",
        "black_man_agent": ".vote_value:BlackManAgent",
        "features:arkham_heuristic": ".features:HEURISTIC_INPUTS",
        "features:arkham_belief_inputs": ".features:LEARNED_INPUTS",
        "presenter": "club_envs.play.arkham_decoders:ArkhamPresenter",
        "web_table": "club_envs.web.tables:arkham_table",
    },
)
