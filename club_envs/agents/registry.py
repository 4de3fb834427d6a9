"""Agents by name: built-in bots, shipped trained agents, and policy files or run folders.

``load(name)`` is how every tool turns a user's word into an :class:`~club_envs.agents.base.Agent`:

* ``random``, ``heuristic`` -- the game's own bots (these need the game and its config), and any
  further bots a game names in its ``AGENT_NAMES`` (Members Only: ``heuristic_sampled``);
* ``ismcts`` -- Information-Set MCTS (:mod:`club_envs.search`), with options after colons:
  ``ismcts:iters=200:rollout=heuristic`` (see :class:`club_envs.search.ismcts.ISMCTSOptions`);
* a shipped agent's name (``members_only``, ``members_only_belief``, ``arkham_team``,
  ``arkham_team_belief``, ``arkham_selfplay``, ``arkham_black_man``, ``arkham_decoders``,
  ``arkham_neural_team``, ``arkham_neural_team_copy``, ``arkham_neural_black_man``, ``arkham_neural``; see
  ``shipped_names()``), read from ``club_envs/agents/shipped/``;
* a policy file (``*.pt``), a folder holding ``policy.pt`` or ``team.pt`` / ``black_man.pt``
  (a checkpoint such as ``runs/<run>/best``), or a run folder (its ``best`` is used);
* a belief file (``*.npz``) or a folder holding ``belief.npz``: the heuristic's decision rule on
  that learned belief. The file's meta names its game: Members Only
  (:class:`club_envs.members_only.belief_agent.BeliefAgent`) or Arkham Decoders Club, where it
  plays the team's roles (:class:`club_envs.arkham_decoders.belief_agent.BeliefAgent`); an Arkham
  file of kind ``black_man_vote_value`` plays the Black Man
  (:class:`club_envs.arkham_decoders.vote_value.BlackManAgent`), and a folder holding both
  ``belief.npz`` and ``black_man.npz`` plays every role.

Policy files are read with ``torch.load(weights_only=True)``: loading never runs code from a file.
A suffix ``:greedy`` (``members_only:greedy``) makes a trained agent always take its most probable
action, ``:sample`` makes it sample from its action distribution; without one, the policy file's
own default applies (its model card says which). A belief agent takes ``:temper=F`` instead
(``arkham_team_belief:temper=0.5``): its learned logits scaled by ``F`` in (0, 1] at load time, as
``club-envs ship --temper`` does to a shipped file -- how far to trust the learned belief over the
hand-set prior, to be measured against opponents it never met.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from club_envs.agents.base import Agent
from club_envs.agents.belief_file import BeliefMLP, file_kind, meta_game, read_meta
from club_envs.agents.policy import PolicyAgent, RoleDispatchAgent
from club_envs.games import get_spec, spec_of, specs

SHIPPED_DIR = Path(__file__).parent / "shipped"
BELIEF_SUFFIX = ".npz"  # a learned belief model (the rest are policy files, *.pt)
BELIEF_FILE = "belief.npz"  # its name in a run folder's checkpoint
BLACK_MAN_VALUE_FILE = "black_man.npz"  # a learned Black Man beside it (Arkham self-play)
BOTS = ("random", "heuristic")
SEARCH_BOT = "ismcts"  # Information-Set MCTS, with options: ismcts:iters=200:rollout=heuristic
# A shipped name -> (game, {role or "*" -> policy file in SHIPPED_DIR})
SHIPPED: dict[str, tuple[str, dict[str, str]]] = {
    "members_only": ("members_only", {"*": "members_only.pt"}),
    "members_only_belief": ("members_only", {"*": "members_only_belief.npz"}),
    # acting by its network alone on belief inputs (configs/members_only_neural.yaml, recipe: table_ppo)
    "members_only_neural": ("members_only", {"*": "members_only_neural.pt"}),
    "arkham_team": ("arkham_decoders_club", {"leader": "arkham_team.pt", "member": "arkham_team.pt",
                                              "investigator": "arkham_team.pt"}),
    "arkham_team_belief": ("arkham_decoders_club", {"leader": "arkham_team_belief.npz", "member": "arkham_team_belief.npz",
                                                     "investigator": "arkham_team_belief.npz"}),
    "arkham_selfplay": ("arkham_decoders_club", {"leader": "arkham_selfplay.npz", "member": "arkham_selfplay.npz",
                                                  "investigator": "arkham_selfplay.npz",
                                                  "black_man": "arkham_selfplay_black_man.npz"}),
    "arkham_black_man": ("arkham_decoders_club", {"black_man": "arkham_black_man.pt"}),
    "arkham_decoders": ("arkham_decoders_club", {"leader": "arkham_team.pt", "member": "arkham_team.pt",
                                                 "investigator": "arkham_team.pt", "black_man": "arkham_black_man.pt"}),
    # both sides acting by their network alone: the team a copy of arkham_team_belief trained on by PPO
    # pulled towards the copy (configs/arkham_neural_team_copy.yaml, then arkham_neural_team_anchored.yaml),
    # the Black Man from configs/arkham_neural.yaml, then arkham_neural_population.yaml; the copy alone too
    "arkham_neural_team": ("arkham_decoders_club", {"leader": "arkham_neural_team.pt", "member": "arkham_neural_team.pt",
                                                    "investigator": "arkham_neural_team.pt"}),
    "arkham_neural_team_copy": ("arkham_decoders_club", {"leader": "arkham_neural_team_copy.pt",
                                                         "member": "arkham_neural_team_copy.pt",
                                                         "investigator": "arkham_neural_team_copy.pt"}),
    "arkham_neural_black_man": ("arkham_decoders_club", {"black_man": "arkham_neural_black_man.pt"}),
    "arkham_neural": ("arkham_decoders_club", {"leader": "arkham_neural_team.pt", "member": "arkham_neural_team.pt",
                                               "investigator": "arkham_neural_team.pt",
                                               "black_man": "arkham_neural_black_man.pt"}),
}
LEGACY_BELIEF_GAME = "members_only"  # belief files written before their meta named a game


def shipped_names() -> list[str]:
    """Shipped agents whose weight files are present in this installation."""
    return [n for n, (_, files) in SHIPPED.items() if all((SHIPPED_DIR / f).is_file() for f in files.values())]


def bot_names(game: Any = None) -> tuple[str, ...]:
    """The built-in bots of ``game`` (every game has at least :data:`BOTS`)."""
    return spec_of(game).bots if game is not None else BOTS


def is_known(name: str, game: Any = None) -> bool:
    base = name.split(":")[0]
    return base in bot_names(game) or base == SEARCH_BOT or base in SHIPPED or Path(base).exists()


def load(name: str, game: Any = None, config: Any = None, seed: int | None = None) -> Agent:
    """An agent for ``name`` (see the module docstring). ``game``/``config`` are needed for bots.

    Raises ``ValueError`` listing the accepted names when ``name`` is none of them.
    """
    base, _, flag = name.partition(":")
    if base == SEARCH_BOT:
        if game is None:
            raise ValueError(f"agent {base!r} searches a game's own rules: say which game it plays")
        from club_envs.search.agents import make_ismcts

        return make_ismcts(game, config if config is not None else game.Config(), flag, seed=seed, load=load,
                           shipped=shipped_names())
    temper = _temper_option(flag, name) if flag.startswith(TEMPER_OPTION) else None
    if temper is not None:
        flag = ""
    if flag not in ("", "greedy", "sample"):
        raise ValueError(f"unknown agent option {flag!r} in {name!r}; expected ':greedy', ':sample' "
                         f"or ':{TEMPER_OPTION}F' (a belief agent, F in (0, 1])")
    deterministic = {"greedy": True, "sample": False}.get(flag)  # None: the policy file's own default
    if temper is not None and (base in bot_names(game) or base in BOTS):
        raise ValueError(f"{name!r}: ':{TEMPER_OPTION}F' tempers a learned belief; {base!r} is a built-in bot")
    if base in bot_names(game) or base in BOTS:
        if game is None:
            raise ValueError(f"agent {base!r} is a built-in bot: say which game it plays")
        return game.make_agent(base, config if config is not None else game.Config(), seed=seed)
    if base in SHIPPED:
        game_name, files = SHIPPED[base]
        if game is not None and getattr(game, "RECORD_NAME", game_name) != game_name:
            raise ValueError(f"shipped agent {base!r} plays {game_name}, not {game.RECORD_NAME}")
        missing = [f for f in set(files.values()) if not (SHIPPED_DIR / f).is_file()]
        if missing:
            raise ValueError(f"shipped agent {base!r} is not installed (missing {', '.join(missing)})")
        return _from_files({role: SHIPPED_DIR / f for role, f in files.items()}, name, deterministic, seed, game, temper)
    path = Path(base)
    if path.exists():
        return _from_path(path, name, deterministic, seed, game, temper)
    known = ", ".join([*bot_names(game), SEARCH_BOT, *shipped_names()])
    raise ValueError(f"unknown agent {name!r}; expected one of {known}, a policy file (*.pt) or a run folder")


def _from_files(files: dict[str, Path], name: str, deterministic: bool | None, seed: int | None,
                game: Any = None, temper: float | None = None) -> Agent:
    """With ``game``, each file is checked against it as it loads (``PolicyFileError`` otherwise).
    ``temper`` applies to the belief files among them; one of them must be a belief."""
    if temper is not None and not any(f.suffix == BELIEF_SUFFIX and file_kind(read_meta(f)) == BeliefMLP.KIND
                                      for f in files.values()):
        raise ValueError(f"{name!r}: ':{TEMPER_OPTION}F' tempers a learned belief; {name.split(':')[0]!r} holds none "
                         "(a policy file or a Black Man's vote values)")
    if set(files) == {"*"}:
        if files["*"].suffix == BELIEF_SUFFIX:
            return _belief_agent(files["*"], name, deterministic, game, temper)
        return PolicyAgent.from_file(files["*"], name=name, deterministic=deterministic, seed=seed, game=game)
    loaded: dict[Path, Agent] = {}
    by_role = {}
    for role, f in files.items():
        if f not in loaded and f.suffix == BELIEF_SUFFIX:  # e.g. an Arkham belief file for the team's roles
            loaded[f] = _belief_agent(f, name, deterministic, game, temper)
        elif f not in loaded:
            loaded[f] = PolicyAgent.from_file(f, name=name, deterministic=deterministic, seed=seed, game=game)
        by_role[role] = loaded[f]
    return RoleDispatchAgent(by_role, name=name)


TEMPER_OPTION = "temper="


def _temper_option(flag: str, name: str) -> float:
    """The factor of a ``:temper=F`` option, in (0, 1]; anything else is refused naming the range."""
    text = flag[len(TEMPER_OPTION):]
    try:
        factor = float(text)
    except ValueError:
        factor = float("nan")
    if not 0.0 < factor <= 1.0:
        raise ValueError(f"{name!r}: ':{TEMPER_OPTION}' takes a factor in (0, 1], not {text!r}")
    return factor


def _from_path(path: Path, name: str, deterministic: bool | None, seed: int | None, game: Any = None,
               temper: float | None = None) -> Agent:
    if path.is_file() and path.suffix == BELIEF_SUFFIX:
        return _from_files({"*": path}, name, deterministic, seed, game, temper)
    if path.is_file():
        roles = _file_roles(path, game)
        files = {r: path for r in roles} if roles is not None else {"*": path}
        return _from_files(files, name, deterministic, seed, game, temper)
    if (path / "best").is_dir():
        path = path / "best"
    if (path / BELIEF_FILE).is_file() and (path / BLACK_MAN_VALUE_FILE).is_file():
        spec = spec_of(game) if game is not None else get_spec(meta_game(read_meta(path / BELIEF_FILE)) or LEGACY_BELIEF_GAME)
        first, last = spec.sides[0], spec.sides[-1]  # the belief plays the first side, the value file the other
        files = {r: path / BELIEF_FILE for r in first.roles or ()}
        files.update({r: path / BLACK_MAN_VALUE_FILE for r in last.roles or ()})
        return _from_files(files, name, deterministic, seed, game, temper)
    if (path / BELIEF_FILE).is_file():
        return _from_files({"*": path / BELIEF_FILE}, name, deterministic, seed, game, temper)
    if (path / "policy.pt").is_file():
        return _from_files({"*": path / "policy.pt"}, name, deterministic, seed, game, temper)
    files = {}
    for side in _role_sides(game):
        if (path / side.policy_file).is_file():
            files.update({r: path / side.policy_file for r in side.roles})
    if not files:
        names = sorted({"policy.pt", *(s.policy_file for s in _role_sides(None)), BELIEF_FILE})
        raise ValueError(f"{path} holds no policy file ({', '.join(names)})")
    return _from_files(files, name, deterministic, seed, game, temper)


def _belief_agent(path: Path, name: str, deterministic: bool | None, game: Any = None,
                  temper: float | None = None) -> Agent:
    """A belief file's agent, for the game and kind of model its meta names; it decides
    deterministically. ``temper`` scales a belief's logits (a Black Man's vote values are not one)."""
    meta = read_meta(path)  # read once: its game and kind pick the loader
    file_game = meta_game(meta) or LEGACY_BELIEF_GAME
    try:
        spec = get_spec(file_game)
    except ValueError:
        spec = None
    label = spec.title if spec is not None else file_game
    if game is not None and (spec is None or spec.record_name != spec_of(game).record_name):
        raise ValueError(f"{path} is a {label} belief file; it cannot play {game.RECORD_NAME}")
    if spec is None or not spec.has_hook("belief_agent"):
        raise ValueError(f"{path} is a {label} belief file; no game here reads belief files of {label}")
    if deterministic is False:
        raise ValueError(f"{name!r}: a belief agent always takes the heuristic's choice; ':sample' does not apply")
    if file_kind(meta) == "black_man_vote_value" and spec.has_hook("black_man_agent"):
        return spec.hook("black_man_agent").from_file(path, name=name)
    agent_class = spec.hook("belief_agent")
    agent = agent_class.from_file(path, name=name)
    return agent if temper is None else agent_class(agent.model.tempered(temper), name=name)


def _role_sides(game: Any) -> list:
    """The sides (of ``game``, or of every game) whose policy file plays named roles."""
    chosen = [spec_of(game)] if game is not None else specs()
    return [side for spec in chosen for side in spec.sides if side.roles]


def _file_roles(path: Path, game: Any = None) -> list[str] | None:
    """The roles a policy file says it plays (None: any seat), from its metadata."""
    from club_envs.agents.policy import load_policy_file

    _, meta = load_policy_file(path, game=game)
    roles = meta.get("roles")
    return list(roles) if roles else None


def model_card(name: str) -> dict[str, Any] | None:
    """The shipped agent's model card metadata (``<file>.json``), if present."""
    if name not in SHIPPED:
        return None
    first = next(iter(SHIPPED[name][1].values()))
    card = SHIPPED_DIR / Path(first).with_suffix(".json")
    return json.loads(card.read_text()) if card.is_file() else None
