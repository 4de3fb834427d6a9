"""The replay viewer on the play and study server: after a game a person opens its replay in their
own seat's view (no other view, nobody else's game); the owner watches every game in any view; a
blind study's participant sees no agent name in their replay."""

from __future__ import annotations

import re

import pytest
import yaml

from club_envs.study import plan as plans
from club_envs.web.app import create_app
from tests.play.test_study import STUDY, enter, next_game, play_to_end
from tests.play.web_client import browser, new_game


def _owner(app):
    owner = browser(app)
    owner.get(f"/admin?token={app.state.admin_token}")
    return owner


def _all_steps(client, gid: str, view: str, stride: int = 1) -> list[str]:
    """The answers for every step (with ``stride``: the first 30 steps, every ``stride``-th after, the last)."""
    first = client.get(f"/api/replays/{gid}/steps/0?view={view}")
    assert first.status_code == 200, first.text
    total = first.json()["total"]
    numbers = sorted({*range(1, min(total, 30) + 1), *range(30, total, stride), total})
    return [first.text] + [client.get(f"/api/replays/{gid}/steps/{n}?view={view}").text for n in numbers]


def test_a_person_opens_the_replay_of_their_game_in_their_own_seat_only(tmp_path):
    app = create_app(tmp_path / "records")
    me, other = browser(app), browser(app)
    gid = new_game(me, seat="1", opponent="heuristic")
    assert me.get(f"/replays/{gid}").status_code == 404  # not before the game has ended
    final = play_to_end(me, gid)
    link = re.search(r'href="([^"]+)" id="replay-link"', final["moves_html"]).group(1)
    assert link == f"/replays/{gid}?view=1"
    page = me.get(link.replace("&amp;", "&"))
    assert page.status_code == 200 and 'data-view="1"' in page.text
    choices = re.search(r'id="view-choice">(.*?)</select>', page.text, re.S).group(1)
    assert re.findall(r'<option value="([^"]+)"', choices) == ["1"]
    steps = _all_steps(me, gid, "1")
    assert '"final": {' in steps[-1].replace('"final":{', '"final": {')
    # a person's decisions show what the shipped agent would have done
    thinking = [s for s in steps if '"person":true' in s.replace(" ", "")]
    assert thinking and '"agent":"members_only"' in thinking[0].replace(" ", "")
    for view in ("0", "2", "public", "all"):
        r = me.get(f"/api/replays/{gid}/steps/0?view={view}")
        assert r.status_code == 403 and "you may see 1" in r.json()["error"]
    assert other.get(f"/api/replays/{gid}/steps/0?view=1").status_code == 404
    assert other.get(f"/replays/{gid}").status_code == 404
    assert gid in me.get("/replays").text and gid not in other.get("/replays").text
    owner = _owner(app)
    for view in ("0", "1", "2", "3", "public", "all"):
        assert owner.get(f"/api/replays/{gid}/steps/1?view={view}").status_code == 200
    assert f"/replays/{gid}?view=all" in owner.get("/replays").text
    assert 'id="replays-link"' in owner.get("/admin").text


@pytest.fixture
def blind_study(tmp_path):
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(STUDY))
    study = plans.load(path)
    assert not study.show_agents
    return create_app(tmp_path / "records", study=study)


def test_a_blind_study_replay_names_no_agent_and_shows_no_other_seat(blind_study):
    app = blind_study
    alpha = enter(app, "alpha-1")
    for seed in (0, 1):
        gid = next_game(alpha)
        play_to_end(alpha, gid, seed=seed)
        row = app.state.store.game(gid)
        seat = str(row.human_seat)
        steps = _all_steps(alpha, gid, seat, stride=7)  # each answer carries the log so far
        agents = {s["controller"] for s in row.record["seats"]} - {"human"}
        for text in steps:
            for name in agents:
                assert name not in text, (name, text[:300])
        assert alpha.get(f"/api/replays/{gid}/steps/0?view=all").status_code == 403
        assert "not shown (blind study)" in alpha.get("/replays").text
        owner = _owner(app)
        total = owner.get(f"/api/replays/{gid}/steps/0?view=all").json()["total"]
        everything = owner.get(f"/api/replays/{gid}/steps/{total}?view=all").text
        assert all(name in everything for name in agents)  # the owner sees who played
