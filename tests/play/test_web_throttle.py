"""Guessing participant codes and owner tokens is throttled: a few wrong attempts per client, a
few more per minute, a limit over all clients; 429 with ``Retry-After`` past it, for right and
wrong attempts alike; a participant who types their code right is never held back."""

from __future__ import annotations

import time

import pytest
import yaml

from club_envs.study import plan as plans
from club_envs.web.app import create_app
from club_envs.web.throttle import CLIENT_BURST, CLIENT_SECONDS, Throttle, Throttled, client_key
from tests.play.web_client import BASE, TestClient, page_token

STUDY = {
    "name": "guarded",
    "participants": ["P-KX7M2QR9TA", "P-ZZ3H8WN4CB", "P-QM5T2JV7RE"],
    "conditions": [{"name": "mo", "game": "members_only", "players": 3, "seat": 0, "opponents": "random",
                    "seeds": [11]}],
}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def app(tmp_path, clock):
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(STUDY))
    return create_app(tmp_path / "records", study=plans.load(path), throttle=Throttle(clock=clock))


def visitor(app, address: str) -> TestClient:
    client = TestClient(app, base_url=BASE, client=(address, 40000), follow_redirects=False)
    client.token = page_token(client.get("/study").text)
    return client


def enter(client, code: str):
    return client.post("/study/enter", data={"code": code, "csrf": client.token})


def test_wrong_codes_are_throttled_per_client_right_and_wrong_alike(app, clock):
    guesser = visitor(app, "192.0.2.7")
    for i in range(CLIENT_BURST):
        r = enter(guesser, f"P-{i:02d}")
        assert r.status_code == 400 and "unknown participant code" in r.text
    started = time.monotonic()
    answers = [enter(guesser, code) for code in [f"P-{i:02d}" for i in range(100)] + [STUDY["participants"][0]]]
    assert time.monotonic() - started < 30  # refused at once, not slowed down
    assert {r.status_code for r in answers} == {429}  # a right guess is refused too: no answer tells it
    assert answers[-1].headers["retry-after"] == str(int(CLIENT_SECONDS))
    assert "too many wrong participant codes from this computer; wait 12 seconds" in answers[-1].text
    for forbidden in ("seed", "random", "11"):  # the message tells nothing of the study's deals or agents
        assert forbidden not in answers[-1].text.split('class="error"')[-1].split("</p>")[0]
    # another computer, typing its code right, is not held back
    assert enter(visitor(app, "192.0.2.8"), STUDY["participants"][1]).status_code == 303
    # after the wait, one more attempt
    clock.now += CLIENT_SECONDS
    assert enter(guesser, "P-99").status_code == 400
    assert enter(guesser, STUDY["participants"][2]).status_code == 429


def test_the_server_wide_limit_holds_back_every_client_that_guesses(tmp_path, clock):
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(STUDY))
    app = create_app(tmp_path / "records", study=plans.load(path),
                     throttle=Throttle(clock=clock, client_burst=3, server_burst=4, server_seconds=2.0))
    guessers = [visitor(app, f"198.51.100.{i}") for i in range(4)]
    statuses = [enter(g, "P-WRONG0").status_code for g in guessers]
    assert statuses == [400] * 4  # the server's four wrong attempts are used up
    r = enter(guessers[0], "P-WRONG1")
    assert r.status_code == 429 and r.headers["retry-after"] == "2"
    # a participant with no wrong attempt of their own enters at once
    assert enter(visitor(app, "198.51.100.200"), STUDY["participants"][0]).status_code == 303


def test_participants_who_type_their_code_right_never_wait(app):
    for i, code in enumerate(STUDY["participants"] * 5):  # many entries, every one right
        assert enter(visitor(app, f"203.0.113.{i}"), code).status_code == 303
    same = visitor(app, "203.0.113.250")
    for _ in range(20):
        assert enter(same, STUDY["participants"][0]).status_code == 303


def test_wrong_owner_tokens_are_throttled_in_the_link_and_the_header(app, clock):
    guesser = visitor(app, "192.0.2.50")
    for i in range(CLIENT_BURST):
        r = guesser.get(f"/admin?token=guess{i}")
        assert r.status_code == 403
    r = guesser.get(f"/admin?token={app.state.admin_token}")
    assert r.status_code == 429 and r.headers["retry-after"] == "12"
    assert "too many wrong owner tokens" in r.text
    r = guesser.get("/admin/outcomes.csv", headers={"authorization": f"Bearer {app.state.admin_token}"})
    assert r.status_code == 429
    # scripts with a wrong bearer token are counted as well
    script = visitor(app, "192.0.2.51")
    for _ in range(CLIENT_BURST):
        assert script.get("/admin/outcomes.csv", headers={"authorization": "Bearer nope"}).status_code == 403
    r = script.get("/records/any.json", headers={"authorization": f"Bearer {app.state.admin_token}"})
    assert r.status_code == 429 and r.headers["retry-after"] == "12" and "too many wrong owner tokens" in r.text
    # the owner with the right token, from their own computer, is not held back
    owner = visitor(app, "192.0.2.52")
    assert owner.get(f"/admin?token={app.state.admin_token}").status_code == 303
    clock.now += CLIENT_SECONDS
    assert guesser.get(f"/admin?token={app.state.admin_token}").status_code == 303


def test_the_throttle_counts_networks_and_forgets_what_has_refilled(clock):
    assert client_key("2001:db8:1:2:3:4:5:6") == client_key("2001:db8:1:2:ffff::1") == "2001:db8:1:2::/64"
    assert client_key("::ffff:192.0.2.1") == "192.0.2.1" and client_key(None) == "?"
    throttle = Throttle(clock=clock, client_burst=2, client_seconds=10)
    throttle.check("192.0.2.1")  # never erred: nothing to wait for
    throttle.failed("192.0.2.1")
    throttle.failed("192.0.2.1")
    with pytest.raises(Throttled) as waited:
        throttle.check("192.0.2.1")
    assert waited.value.retry_after == 10
    clock.now += 5
    with pytest.raises(Throttled) as waited:
        throttle.check("192.0.2.1")
    assert waited.value.retry_after == 5
    clock.now += 5
    throttle.check("192.0.2.1")
