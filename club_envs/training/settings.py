"""The typed training configs: one frozen dataclass per recipe and backend, and one per section.

:mod:`club_envs.training.config` checks a YAML config against its JSON Schema, fills in the
defaults and builds these; everything below it reads attributes, never dictionary keys, so a
misspelt key is an ``AttributeError`` at the line that reads it instead of a ``KeyError`` hours
into a run. Each config keeps ``raw``, the resolved mapping a run folder stores as
``config.yaml`` (so a folder written before these classes existed resumes unchanged), and names
the module that trains it (``TRAINER``).

The section classes' field names are the config keys, so a section is built as
``AlgorithmSettings(**resolved["algorithm"])``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

SELF = "self"  # the Arkham recipe's own learned Black Man among selfplay.opponents


@dataclass(frozen=True)
class GameSettings:
    """The ``game`` section: which game, at which table sizes, with which rule options."""

    name: str
    num_players: tuple[int, ...]
    options: Mapping[str, Any] = field(default_factory=dict)


# What MaskablePPO's critic reads: the seat's inputs, or those and the hidden state (club_envs.training.privileged)
CRITICS = ("observation", "privileged")
# Which engine plays the training games (club_envs.training.engines): the batched one where it serves
# the config ("auto"), always the batched one ("vector"), or the one-game environments ("reference")
ENGINES = ("auto", "vector", "reference")


@dataclass(frozen=True)
class AlgorithmSettings:
    """The ``algorithm`` section: MaskablePPO's hyper-parameters."""

    name: str
    learning_rate: float
    n_steps: int
    batch_size: int
    n_epochs: int
    gamma: float
    gae_lambda: float
    clip_range: float
    ent_coef: float
    vf_coef: float
    max_grad_norm: float
    update_threads: int
    critic: str = "observation"  # or "privileged": the critic also reads the hidden state (training only)
    overlap: bool = False  # play the next rollout while the update runs (club_envs.training.overlap)
    precision: str = "float32"  # the actor's and critic's hidden layers' arithmetic (torch_mlp.PRECISIONS)


@dataclass(frozen=True)
class NetworkSettings:
    """The ``network`` section: the actor's and critic's MLP and the policy's extra inputs."""

    hidden: tuple[int, ...]
    activation: str
    features: str = "none"


@dataclass(frozen=True)
class EnvSettings:
    """The ``envs`` section: how many games a learner plays at once, and where."""

    n_envs: int
    subprocess: bool
    batched: bool
    workers: int
    engine: str = "auto"  # auto | vector | reference (club_envs.training.engines)


@dataclass(frozen=True)
class SelfPlaySettings:
    """The ``selfplay`` section: the pool of frozen snapshots and bots the opponents come from."""

    scheme: str
    snapshot_every: int
    pool_size: int
    bots: tuple[str, ...]
    bot_share: float
    phase_steps: int


DEFAULT_TEACHER = "heuristic"  # whom a side imitates when pretrain.imitate does not name it


def teacher_of(imitate: str | Mapping[str, str], side: str) -> str:
    """Whom ``side`` imitates under ``pretrain.imitate``: the one teacher, or the side's entry (the
    heuristic if it has none). Read by the config check before the settings exist, and by them."""
    return imitate if isinstance(imitate, str) else imitate.get(side, DEFAULT_TEACHER)


@dataclass(frozen=True)
class PretrainSettings:
    """The ``pretrain`` section: the warm start by imitating a bot (``games: 0``: none), or from a
    trained policy per side (``from_policy``: :mod:`club_envs.training.start_policy`)."""

    games: int
    imitate: str | dict[str, str]  # one teacher for every imitating side, or side -> teacher
    epochs: int
    learning_rate: float
    critic_steps: int
    batch_size: int = 512
    lr_decay: float = 1.0  # the learning rate is multiplied by this after every epoch
    validation_share: float = 0.0  # share of the games kept out of the fit, to measure agreement out of sample
    from_policy: dict[str, str] = field(default_factory=dict)  # side -> shipped agent or policy file

    def teacher(self, side: str) -> str:
        """Whom ``side`` imitates: the one teacher, or the side's entry (the heuristic if it has none)."""
        return teacher_of(self.imitate, side)


@dataclass(frozen=True)
class EvaluationSettings:
    """The ``evaluation`` section: games against the bots, and how often. ``opponents`` judge the
    policy (the best one so far is kept by their mean); ``watch`` are agents played at every
    evaluation for the learning curve alone -- never for that choice, so they may be held-out or
    shipped agents no run may train or select against."""

    every: int
    games: int
    opponents: tuple[str, ...]
    greedy: bool
    watch: tuple[str, ...] = ()


@dataclass(frozen=True)
class RllibSettings:
    """The ``rllib`` block (:mod:`club_envs.training.rllib_backend.options`): where Ray runs and how RLlib samples."""

    address: str
    num_cpus: int
    num_env_runners: int
    num_envs_per_env_runner: int
    rollout_fragment_length: int | str
    train_batch_size: int
    self_play_share: float


@dataclass(frozen=True)
class StartAnchorSettings:
    """The ``anchor`` section of a stable-baselines3 config: a KL pull towards the policy each of
    ``sides`` started as (:mod:`club_envs.training.anchor`)."""

    coef: float  # the pull's weight at step 0; 0: off
    anneal_steps: int  # the weight falls linearly to 0 over these many of the side's steps; 0: constant
    sides: tuple[str, ...]  # the pulled sides (every side that has a start)

    def pulls(self, side: str) -> bool:
        return self.coef > 0 and side in self.sides


@dataclass(frozen=True)
class SelfPlayConfig:
    """A PPO self-play config on stable-baselines3 (the configs without a ``recipe``)."""

    TRAINER: ClassVar[str] = "club_envs.training.train"

    game: GameSettings
    algorithm: AlgorithmSettings
    network: NetworkSettings
    envs: EnvSettings
    selfplay: SelfPlaySettings
    pretrain: PretrainSettings
    evaluation: EvaluationSettings
    checkpoint_every: int
    total_steps: int
    seed: int
    raw: Mapping[str, Any]  # the resolved config, as written to the run folder
    anchor: StartAnchorSettings = field(default_factory=lambda: StartAnchorSettings(0.0, 0, ()))

    def describe(self) -> str:
        """The run in a few words, for the line ``club-envs train`` starts with."""
        return (f"PPO self-play, {self.game.name} at {_sizes(self.game.num_players)} players, {self.total_steps:,} steps "
                f"with {self.envs.n_envs} games at once")


@dataclass(frozen=True)
class RllibConfig(SelfPlayConfig):
    """The same config with ``backend: rllib``: trained on Ray RLlib (:mod:`club_envs.training.rllib_backend`)."""

    TRAINER: ClassVar[str] = "club_envs.training.rllib_backend.run"

    rllib: RllibSettings | None = None
    # dotted keys set to something else than their default that only the stable-baselines3 backend reads
    unused: tuple[str, ...] = ()

    def describe(self) -> str:
        runners = self.rllib.num_env_runners if self.rllib is not None else 0
        return (f"PPO self-play on Ray RLlib, {self.game.name} at {_sizes(self.game.num_players)} players, "
                f"{self.total_steps:,} steps with {runners} env runners")


@dataclass(frozen=True)
class BeliefConfig:
    """A Members Only belief-iteration config (:mod:`club_envs.training.belief`)."""

    TRAINER: ClassVar[str] = "club_envs.training.belief"
    RECIPE: ClassVar[str] = "belief_iteration"

    num_players: tuple[int, ...]
    generations: int
    games: int
    window: int
    opponents: tuple[str, ...]
    opponent_share: float
    hidden: tuple[int, ...]
    learning_rate: float
    batch_size: int
    epochs: int
    lr_decay: float
    validation_share: float
    eval_games: int
    eval_opponents: tuple[str, ...]
    seed: int
    raw: Mapping[str, Any]  # the resolved config, as written to the run folder
    engine: str = "auto"  # selfplay.engine, one of ENGINES: where the games are played
    precision: str = "float32"  # training.precision: the fit's hidden layers' arithmetic (torch_mlp.PRECISIONS)

    def describe(self) -> str:
        """The run in a few words, for the line ``club-envs train`` starts with."""
        return (f"Members Only belief iteration at {_sizes(self.num_players)} players, {_many(self.generations, 'generation')} "
                f"of {self.games:,} self-play games per table size, evaluated in {self.eval_games:,} games per table "
                f"size against each of {', '.join(self.eval_opponents) or 'no bot'}")


@dataclass(frozen=True)
class ArkhamBeliefConfig:
    """An Arkham belief-iteration config (:mod:`club_envs.training.arkham_belief`)."""

    TRAINER: ClassVar[str] = "club_envs.training.arkham_belief"
    RECIPE: ClassVar[str] = "arkham_belief_iteration"

    num_players: tuple[int, ...]
    generations: int
    games: int
    window: int
    opponents: tuple[str, ...]
    hidden: tuple[int, ...]
    learning_rate: float
    batch_size: int
    epochs: int
    validation_share: float
    eval_games: int
    eval_opponents: tuple[str, ...]
    eval_seed: int
    seed: int
    raw: Mapping[str, Any]  # the resolved config, as written to the run folder
    bm_exploration: float = 0.2
    bm_hidden: tuple[int, ...] = (128, 128)
    bm_learning_rate: float = 1.0e-3
    bm_batch_size: int = 512
    bm_epochs: int = 6
    engine: str = "auto"  # where the games are played: ENGINES
    bm_window: int = 2  # generations of the learned Black Man's votes his fit reads (the team's: window)
    precision: str = "float32"  # training.precision: both fits' hidden layers' arithmetic (torch_mlp.PRECISIONS)

    @property
    def learns_black_man(self) -> bool:
        return SELF in self.opponents

    def describe(self) -> str:
        """The run in a few words, for the line ``club-envs train`` starts with."""
        sides = "both sides" if self.learns_black_man else "the team"
        return (f"Arkham belief iteration of {sides} at {_sizes(self.num_players)} players, "
                f"{_many(self.generations, 'generation')} of {self.games:,} games per table size, evaluated in {self.eval_games:,} games per "
                f"series against each of {', '.join(self.eval_opponents) or 'no bot'}")


@dataclass(frozen=True)
class TablePpoSettings:
    """The ``ppo`` section of a ``table_ppo`` config (:mod:`club_envs.training.table_ppo`)."""

    games: int  # games stepped together, split over the table sizes
    steps: int  # moves of every game per rollout (each seat's decisions among them)
    learning_rate: float
    epochs: int
    minibatch: int
    gamma: float
    gae_lambda: float
    clip: float
    entropy: float
    value_coef: float
    max_grad_norm: float
    critic: str
    threads: int
    overlap: bool  # play the next rollout while the update runs (one update of lag)
    precision: str = "float32"  # the hidden layers' arithmetic: float32 or bfloat16 (CPU autocast)
    # None: ``learning_rate`` throughout; a number: the rate moves linearly from ``learning_rate`` at
    # decision 0 to it at the budget's last decision (CleanRL's ``anneal_lr`` when 0)
    learning_rate_final: float | None = None


@dataclass(frozen=True)
class LeagueSettings:
    """The ``league`` section of a ``table_ppo`` config: who sits at the tables besides the learner."""

    share: float  # share of games in which the learner holds one seat and the league the others
    snapshot_every: int
    pool_size: int
    bots: tuple[str, ...]  # bots among the league's members
    bot_share: float  # share of the league's draws that are bots


@dataclass(frozen=True)
class ExploiterSettings:
    """The ``exploiters`` section of a table recipe: responders that hunt the current policy.

    Every ``every`` learner decisions a fresh best responder (:func:`club_envs.training.exploit.train_responder`)
    is trained for ``steps`` steps against the policy as it is then, and joins the league, where the
    ``loss`` scheme draws it the more often the more the learner loses to it: the learner meets the
    weakness a responder found until it has closed it (AlphaStar's main exploiters)."""

    every: int  # learner decisions between two exploiters (0: none)
    steps: int  # each exploiter's training steps
    # how an exploiter starts: imitating a bot (WARM_STARTS), as a copy of the policy it hunts
    # (START_FROM_POLICY: AlphaStar's main exploiters), or None: from scratch
    warm_start: str | None


@dataclass(frozen=True)
class AnchorSettings:
    """The ``anchor`` section: a pull of the policy towards a bot's choices, annealed away."""

    bot: str  # whose choices: "heuristic" (the exact bot), or "none"
    coef: float  # the weight of the cross-entropy to the bot's choice at step 0
    anneal_steps: int  # the weight falls linearly to 0 over these many learner decisions


@dataclass(frozen=True)
class ImitationSettings:
    """The ``imitation`` section: a warm start that copies the anchor bot before PPO begins.

    For ``decisions`` learner decisions the learner's seats play the anchor's choices and each
    rollout's update fits the actor to them (cross-entropy) and the critic to the returns of that
    play, ``epochs`` passes per rollout at ``learning_rate``; PPO then starts from a policy at the anchor's level and a
    critic that already knows what its positions are worth, instead of from a random network whose
    first snapshots fill the league with weak play."""

    decisions: int
    epochs: int
    learning_rate: float  # a copy's fit takes larger steps than PPO's careful ones


@dataclass(frozen=True)
class TableRecipeConfig:
    """What the recipes on the batched multi-agent engine's tables share (``table_ppo``, ``table_dmc``)."""

    game: GameSettings
    network: NetworkSettings
    league: LeagueSettings
    evaluation: EvaluationSettings
    exploiters: ExploiterSettings
    checkpoint_every: int
    total_steps: int
    seed: int
    raw: Mapping[str, Any]


@dataclass(frozen=True)
class TablePpoConfig(TableRecipeConfig):
    """PPO of our own on the batched multi-agent engine (:mod:`club_envs.training.table_ppo`)."""

    TRAINER: ClassVar[str] = "club_envs.training.table_ppo"
    RECIPE: ClassVar[str] = "table_ppo"

    ppo: TablePpoSettings
    anchor: AnchorSettings
    imitation: ImitationSettings

    def describe(self) -> str:
        """The run in a few words, for the line ``club-envs train`` starts with."""
        return (f"PPO on the batched engine, {self.game.name} at {_sizes(self.game.num_players)} players, "
                f"{self.total_steps:,} learner decisions with {self.ppo.games} games at once"
                + (f", after {self.imitation.decisions:,} decisions imitating the {self.anchor.bot} bot"
                   if self.imitation.decisions else ""))


@dataclass(frozen=True)
class DmcSettings:
    """The ``dmc`` section of a ``table_dmc`` config (:mod:`club_envs.training.table_dmc`): the
    table loop's settings it shares with ``table_ppo``'s ``ppo`` section, and the Q learner's own."""

    games: int  # games stepped together, split over the table sizes
    steps: int  # moves of every game between two updates
    learning_rate: float
    epochs: int  # passes over the decisions whose games ended since the last update
    minibatch: int
    max_grad_norm: float
    threads: int
    overlap: bool  # play on while the update runs (one update of lag)
    epsilon: float  # share of the learner's decisions played uniformly among the legal actions
    temperature: float  # exported policy: logits = Q / temperature (greedy play ignores it)
    action_hidden: int  # width of the action tower's hidden layer


@dataclass(frozen=True)
class TableDmcConfig(TableRecipeConfig):
    """Monte-Carlo Q learning with action features on the batched engine
    (:mod:`club_envs.training.table_dmc`). It has no anchor and no imitation: the table loop it
    shares with ``table_ppo`` reads them as off."""

    TRAINER: ClassVar[str] = "club_envs.training.table_dmc"
    RECIPE: ClassVar[str] = "table_dmc"
    anchor: ClassVar[AnchorSettings] = AnchorSettings("none", 0.0, 0)
    imitation: ClassVar[ImitationSettings] = ImitationSettings(0, 1, 1.0e-3)

    dmc: DmcSettings

    def describe(self) -> str:
        """The run in a few words, for the line ``club-envs train`` starts with."""
        return (f"Monte-Carlo Q learning on the batched engine, {self.game.name} at "
                f"{_sizes(self.game.num_players)} players, {self.total_steps:,} learner decisions with "
                f"{self.dmc.games} games at once")


def _sizes(counts: tuple[int, ...]) -> str:
    return "/".join(map(str, counts))


def _many(count: int, noun: str) -> str:
    return f"{count:,} {noun}" + ("" if count == 1 else "s")



# The bots a responder may imitate before its training (the exploit command's, a table recipe's exploiters)
WARM_STARTS = ("heuristic",)
# An exploiter's start as a copy of the policy it hunts (its network, inputs and actor weights; the
# critic fitted anew): a table recipe's ``exploiters.warm_start`` only -- the exploit command's
# targets may be bots, which have no network to copy.
START_FROM_POLICY = "policy"

# The exploit responder's imitation recipe per game, after the shipped configs' ``pretrain`` sections
# (configs/members_only_4p.yaml, configs/arkham_decoders.yaml): games of the bot to imitate, epochs over
# them, critic warm-up steps (counted in the responder's step budget) and the extra inputs the responder
# reads. Members Only takes 5 epochs where its config takes 2: the responder's smaller network then
# agrees with the bot on 99.98% of held-out decisions instead of 98.6%.
WARM_START_RECIPE = {
    "members_only": {"games": 200, "epochs": 5, "learning_rate": 1.0e-3, "critic_steps": 16_384,
                     "features": "members_only_heuristic"},
    "arkham_decoders": {"games": 800, "epochs": 3, "learning_rate": 1.0e-3, "critic_steps": 16_384,
                        "features": "arkham_heuristic"},
}


@dataclass(frozen=True)
class ExploitSettings:
    """An approximate-exploitability run (:mod:`club_envs.training.exploit`), as ``exploit.json`` holds it."""

    agent: str
    game: str  # training name: members_only or arkham_decoders
    players: int
    steps: int = 200_000
    eval_games: int = 400
    seed: int = 0
    baseline: str | None = "heuristic"
    sides: list[str] = field(default_factory=list)
    warm_start: str | None = None  # the bot imitated before PPO, START_FROM_POLICY, or None: from scratch
    # the imitation recipe (WARM_START_RECIPE of the game unless given); kept in exploit.json so a
    # resumed run goes on with the recipe it started with. With START_FROM_POLICY: the copied
    # network's shape (hidden, activation, features) and the critic's warm-up steps.
    warm_start_recipe: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.warm_start == START_FROM_POLICY and not self.warm_start_recipe:
            raise ValueError("a responder that starts from the policy needs that policy's network "
                             "(warm_start_recipe: hidden, activation, features, critic_steps)")
        if self.warm_start is not None and self.warm_start_recipe is None:
            object.__setattr__(self, "warm_start_recipe", dict(WARM_START_RECIPE.get(self.game, {})))

    @property
    def features(self) -> str:
        """The responder's extra inputs: the heuristic's reading of the position with a warm start."""
        return self.warm_start_recipe.get("features", "none") if self.warm_start else "none"

    def targets(self) -> list[str]:
        out = [self.agent]
        if self.baseline is not None and self.baseline != self.agent:
            out.append(self.baseline)
        return out

    def jobs(self) -> list[tuple[str, str]]:
        return [(target, side) for target in self.targets() for side in self.sides]


TrainingConfig = SelfPlayConfig | BeliefConfig | ArkhamBeliefConfig | TablePpoConfig | TableDmcConfig
