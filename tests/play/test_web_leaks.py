"""Nothing a person sees depends on what their seat cannot know: two games that differ only in
hidden information (which advisor is the Black Man, the other hands, the deck, the grimoires)
give byte-identical pages and JSON for the person's seat -- labels and agent names included."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from club_envs import store as store_module
from club_envs.games import load_game
from club_envs.play import human_game
from club_envs.play.human_game import HumanGame
from club_envs.web import auth as auth_module
from club_envs.web.app import create_app
from tests.members_only.test_properties import swap_hidden_card
from tests.play.web_client import browser, new_game

# the form's own example: a different agent for each secret advisor identity
ROLE_LINEUP = "black_man=random,leader=heuristic,member=heuristic,investigator=heuristic"


def arkham_twin(setup: dict, human: int, rng: random.Random) -> dict:
    """The same public deal and the same hand for ``human``; everything else re-dealt."""
    twin = copy.deepcopy(setup)
    a, b = sorted(int(s) for s in twin["identities"])
    twin["identities"] = {str(a): setup["identities"][str(b)], str(b): setup["identities"][str(a)]}
    books = [twin["grimoires"][str(a)], twin["grimoires"][str(b)], *twin["unowned"]]
    rng.shuffle(books)
    twin["grimoires"] = {str(a): books[0], str(b): books[1]}
    twin["unowned"] = books[2:]
    others = [s for s in twin["hands"] if int(s) != human]
    pool = [c for s in others for c in twin["hands"][s]] + twin["deck"]
    rng.shuffle(pool)
    for s in others:
        size = len(twin["hands"][s])
        twin["hands"][s], pool = pool[:size], pool[size:]
    twin["deck"] = pool
    return twin


class TwinEngine:
    """Stands in for a game's engine module: deals the usual game, or its hidden-information twin."""

    def __init__(self, real, kind: str, human_role: str | None = None, human_seat: int | None = None):
        self.real, self.kind, self.human_role, self.human_seat = real, kind, human_role, human_seat

    def State(self, config, seed=None, **kwargs):  # noqa: N802 - the engine's class name
        state = self.real.State(config, seed=seed, **kwargs)
        if self.kind == "arkham":
            human = human_game._choose_seat(load_game("arkham"), state, config.num_players, None,
                                            self.human_role, seed)
            return self.real.State(config, seed=seed, setup=arkham_twin(state.events[0], human, random.Random(1)))
        twin = swap_hidden_card(state, self.human_seat, np.random.default_rng(1))
        assert twin is not None
        return twin


def fixed_randomness(monkeypatch):
    """The per-game parts that are not information (ids, cookie, page token, clock) made equal."""
    monkeypatch.setattr(human_game, "_now", lambda: "2026-12-01T12:00:00+00:00")
    monkeypatch.setattr(store_module, "new_id", lambda: "game-id-for-the-test")
    monkeypatch.setattr(auth_module, "new_browser_id", lambda: "browser-id-for-the-test")
    monkeypatch.setattr(auth_module.secrets, "token_hex", lambda n=32: "ab" * n)


def pages(tmp, form) -> tuple[str, dict, str]:
    app = create_app(tmp / "records")
    client = browser(app)
    gid = new_game(client, **form)
    return client.get(f"/games/{gid}").text, client.get(f"/api/games/{gid}").json(), client.get("/").text


@pytest.mark.parametrize("role,lineup", [
    ("leader", ROLE_LINEUP),
    ("member", ROLE_LINEUP),
    ("leader", "black_man=arkham_black_man,leader=heuristic,member=heuristic,investigator=random"),
    ("member", "heuristic,random,heuristic,random,heuristic"),
])
def test_arkham_page_and_json_do_not_depend_on_the_hidden_deal(tmp_path, monkeypatch, role, lineup):
    from club_envs.arkham_decoders import engine

    fixed_randomness(monkeypatch)
    form = {"game": "arkham_decoders_club", "players": 6, "role": role, "seat": "", "opponent": "",
            "opponents_custom": lineup, "seed": "11"}
    first = pages(tmp_path / "a", form)
    monkeypatch.setattr(human_game, "_engine", lambda game: TwinEngine(engine, "arkham", human_role=role))
    second = pages(tmp_path / "b", form)
    assert first[0] == second[0]  # the table page, byte for byte
    assert first[1] == second[1]  # the JSON state
    assert first[2] == second[2]  # the start page listing the game
    if "=" in lineup:  # seat-by-seat names are fixed before the deal and may be shown
        assert "(advisor, random)" not in first[0] and "(advisor, heuristic)" not in first[0]


def test_the_twin_really_differs_in_hidden_information(monkeypatch):
    """The check above is not vacuous: the twin deals another Black Man (and other hands)."""
    from club_envs.arkham_decoders import engine

    a = HumanGame.create("arkham_decoders_club", num_players=6, role="leader", opponents=ROLE_LINEUP, seed=11)
    monkeypatch.setattr(human_game, "_engine", lambda game: TwinEngine(engine, "arkham", human_role="leader"))
    b = HumanGame.create("arkham_decoders_club", num_players=6, role="leader", opponents=ROLE_LINEUP, seed=11)
    assert a.state.black_man_seat != b.state.black_man_seat
    assert a.agent_names != b.agent_names  # the agents really are seated by hidden identity
    assert a.view() == b.view()


def test_members_only_page_and_json_do_not_depend_on_other_hands(tmp_path, monkeypatch):
    from club_envs.members_only import engine

    fixed_randomness(monkeypatch)
    form = {"game": "members_only", "players": 4, "seat": "0", "opponent": "heuristic", "seed": "5"}
    first = pages(tmp_path / "a", form)
    monkeypatch.setattr(human_game, "_engine", lambda game: TwinEngine(engine, "members_only", human_seat=0))
    second = pages(tmp_path / "b", form)
    assert first == second


def test_a_role_lineup_labels_seats_by_public_role_only():
    g = HumanGame.create("arkham_decoders_club", num_players=6, role="leader", opponents=ROLE_LINEUP, seed=3)
    advisors = [s for s in range(6) if g.state.roles[s] == "advisor"]
    members = [s for s in range(6) if g.state.roles[s] == "member"]
    assert all(g.presenter.labels[s] == f"seat {s} (advisor)" for s in advisors)
    assert all(g.presenter.labels[s] == f"seat {s} (member, heuristic)" for s in members)
    same = HumanGame.create("arkham_decoders_club", num_players=6, role="leader", seed=3,
                            opponents="black_man=heuristic,leader=heuristic,member=heuristic,investigator=heuristic")
    assert all(same.presenter.labels[s] == f"seat {s} (advisor, heuristic)" for s in advisors)
    blind = HumanGame.create("members_only", num_players=4, seat=0, opponents="heuristic", seed=3, show_agents=False)
    assert blind.presenter.labels[1:] == ["seat 1", "seat 2", "seat 3"]


def test_human_seeds_have_128_bits_and_are_shown_only_at_the_end(tmp_path):
    seeds = {HumanGame.create("members_only", num_players=3, seat=0, opponents="random").seed for _ in range(8)}
    assert len(seeds) == 8 and max(seeds) >= 2**100  # 8 draws below 2**100 happen once in 2**224
    app = create_app(tmp_path / "records")
    client = browser(app)
    r = client.post("/games", data={"game": "members_only", "players": 3, "seat": "0", "opponent": "random",
                                    "csrf": client.token}, follow_redirects=False)
    gid = r.headers["location"].rsplit("/", 1)[1]
    seed = str(app.state.live[gid].game.seed)
    assert seed not in client.get(f"/games/{gid}").text
    assert seed not in client.get(f"/api/games/{gid}").text
    assert seed not in client.get("/").text and seed not in client.get("/results").text
    state = client.post(f"/api/games/{gid}/quit").json()
    assert f"Seed {seed}" in state["moves_html"]  # the end: now it may be told
    with pytest.raises(ValueError, match="2\\*\\*128"):
        HumanGame.create("members_only", num_players=3, seat=0, opponents="random", seed=2**128)
