"""Members Only as the rest of club-envs sees it (see :mod:`club_envs.game_spec`)."""

from club_envs.members_only.roster import AGENT_NAMES
from club_envs.game_spec import PACKAGE_LAYOUT_HOOKS, GameSpec, Side
from club_envs.members_only.rules import GAME_NAME, PLAYER_COUNTS

SPEC = GameSpec(
    name="members_only",
    record_name=GAME_NAME,
    title="Members Only",
    package="club_envs.members_only",
    player_counts=PLAYER_COUNTS,
    default_players=4,
    roles=(),
    # One policy plays every seat; the other seats draw their own opponents from the same pool.
    sides=(Side("player", roles=None, opponents="player", policy_file="policy.pt"),),
    bots=AGENT_NAMES,
    gym_id="club_envs/MembersOnly-v0",
    aec_id="club_envs/members_only-v0",
    shared_wins=True,  # the highest score wins; k tied players share the win
    aliases=("members-only",),
    hooks={
        **PACKAGE_LAYOUT_HOOKS,
        "make_agent": ".roster:make_agent",
        "gym_env": ".gym_env:MembersOnlyGymEnv",
        "vector_game": ".vector_game:MembersOnlyVectorGame",
        "vector_env": ".vector_env:MembersOnlyVectorEnv",
        "vector_privileged": ".vector_privileged",
        "vector_view": ".vector_views:view_of",
        "features:members_only_beliefs": ".features:BELIEF_INPUTS",
        "features:members_only_heuristic": ".features:HEURISTIC_INPUTS",
        "features:members_only_belief_inputs": ".features:LEARNED_INPUTS",
        "presenter": "club_envs.play.members_only:MembersOnlyPresenter",
        "web_table": "club_envs.web.tables:members_only_table",
    },
)
