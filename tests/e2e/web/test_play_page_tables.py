"""The play page's tables (docs/lobby.md) in a real browser: open seats and the link
that shares them, joining from it in a second browser, starting early with AIs, leaving,
a rematch, and bad links. Every wait is one of Playwright's auto-waiting assertions."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from engine import describe_options
from browsers import watched_page

WEB = Path(__file__).resolve().parents[3] / "web" / "play"
ONLINE = re.compile(r"\bonline\b")
WAITING = "The game starts when every seat is taken"


@pytest.fixture
def second_page(browser: Browser, live_server: str) -> Iterator[Page]:
    """Another person's browser (its own localStorage), watched like ``page``."""
    with watched_page(browser, live_server) as other:
        yield other


def open_a_table(page: Page, others: tuple[str, ...], name: str = "Ann") -> str:
    """Creates a game from the form with these other seats ("open" or an AI level) and
    rounds 1; answers the share link the waiting table shows."""
    page.goto("/")
    page.get_by_test_id("your-name").fill(name)
    while page.get_by_test_id("seat-list").locator("li").count() > len(others) + 1:
        page.get_by_test_id("remove-ai").click()
    for seat, kind in enumerate(others, start=1):
        page.get_by_test_id(f"ai-{seat}").select_option(kind)
    page.get_by_test_id("rounds").fill("1")
    page.get_by_test_id("start").click()
    expect(page.get_by_test_id("waiting")).to_be_visible()
    expect(page.get_by_test_id("turn")).to_have_text(WAITING)
    expect(page.get_by_test_id("pass")).to_be_hidden()  # nobody plays a waiting game
    link = page.get_by_test_id("share-link")
    # In the fragment, which browsers never send: the server never sees the code.
    expect(link).to_have_value(re.compile(r"/#join=[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$"))
    return str(link.input_value())


def join_from_the_link(page: Page, link: str, name: str = "Bob",
                       same_tab: bool = False) -> None:
    """Opens the link in a browser that has the page's saved name: loading the page afresh,
    or (same_tab) in a tab already on the page, where only the fragment changes."""
    page.goto("/")
    page.evaluate("name => localStorage.setItem('president.name', name)", name)
    if same_tab:  # the form is up, with the name read when the page loaded: type it
        page.get_by_test_id("your-name").fill(name)
        page.evaluate("window.notReloaded = true")
    else:
        page.goto("about:blank")
    page.goto(link)
    expect(page.get_by_test_id("table")).to_be_visible()
    expect(page).not_to_have_url(re.compile("join="))  # a reload will not join again
    if same_tab:  # joined on the hashchange, without loading the page again
        assert page.evaluate("window.notReloaded === true")


def under_way(page: Page) -> None:
    expect(page.get_by_test_id("waiting")).to_be_hidden()
    expect(page.get_by_test_id("turn")).not_to_have_text(WAITING)
    expect(page.get_by_test_id("pass")).to_be_visible()
    expect(page.get_by_test_id("leave")).to_be_visible()


def two_people_at_a_table(page: Page, second_page: Page, same_tab: bool = False) -> str:
    """Answers the share link the second page joined from."""
    link = open_a_table(page, ("open", "easy", "easy"))
    expect(page.get_by_test_id("seat-1")).to_contain_text("Open seat")
    expect(page.get_by_test_id("leave")).to_be_hidden()  # the host cancels instead
    join_from_the_link(second_page, link, same_tab=same_tab)
    game_id = page.get_by_test_id("game-id").inner_text()
    expect(second_page.get_by_test_id("game-id")).to_have_text(game_id)
    return link


def test_the_link_joins_in_a_tab_already_on_the_page(page: Page, second_page: Page) -> None:
    two_people_at_a_table(page, second_page, same_tab=True)
    under_way(second_page)
    expect(page.get_by_test_id("seat-1")).to_contain_text("Bob")


def test_a_second_person_joins_from_the_shared_link(page: Page, second_page: Page,
                                                   request_targets: list[str]) -> None:
    link = two_people_at_a_table(page, second_page)
    code = link.partition("#join=")[2]
    assert code and "/" in request_targets  # the page was loaded afresh...
    # ...and no request line (what access logs and traces record) carried the code.
    assert not [target for target in request_targets if code in target]
    # The first page learns of the join from the event stream: no reload.
    for each in (page, second_page):
        under_way(each)
    expect(page.get_by_test_id("seat-1")).to_contain_text("Bob")
    expect(page.get_by_test_id("seat-1")).to_have_attribute("data-kind", "human")
    expect(page.get_by_test_id("seat-2")).to_contain_text("Easy AI")
    expect(second_page.get_by_test_id("seat-0")).to_contain_text("Ann")
    expect(page.get_by_test_id("log")).to_contain_text("Bob joined")
    expect(page.get_by_test_id("log")).to_contain_text("The game starts")
    # Each page reads the game with its token: both seats are heard from.
    expect(page.get_by_test_id("seat-1")).to_have_class(ONLINE)
    expect(second_page.get_by_test_id("seat-0")).to_have_class(ONLINE)

    second_page.reload()  # the joined seat is saved like a created one
    expect(second_page.get_by_test_id("seat-1")).to_contain_text("You")
    under_way(second_page)


def test_the_host_starts_early_with_ais_in_the_open_seats(page: Page) -> None:
    open_a_table(page, ("open", "open", "easy"))
    expect(page.get_by_test_id("waiting")).to_contain_text("2 open seat(s)")
    page.get_by_test_id("fill").select_option("normal")
    page.get_by_test_id("start-now").click()
    under_way(page)
    for seat in (1, 2):
        expect(page.get_by_test_id(f"seat-{seat}")).to_have_attribute("data-kind", "ai")
        expect(page.get_by_test_id(f"seat-{seat}")).to_contain_text("Normal AI")
    expect(page.get_by_test_id("log")).to_contain_text(
        "The game starts; Normal AI takes the open seats")


def test_a_player_leaves_and_an_ai_plays_the_seat(page: Page, second_page: Page) -> None:
    two_people_at_a_table(page, second_page)
    under_way(second_page)
    second_page.get_by_test_id("leave").click()
    expect(second_page.get_by_test_id("setup")).to_be_visible()
    expect(second_page.get_by_test_id("table")).to_be_hidden()
    second_page.reload()  # the game is forgotten
    expect(second_page.get_by_test_id("setup")).to_be_visible()

    seat = page.get_by_test_id("seat-1")
    expect(seat).to_have_attribute("data-kind", "ai")
    expect(seat).to_contain_text("Bob · Normal AI")  # the game's takeover level
    expect(page.get_by_test_id("log")).to_contain_text("Bob left the table")
    under_way(page)


def api_game_played_to_its_end(page: Page) -> dict[str, Any]:
    """A one-round game against Easy AIs, played through the API as any client would."""
    created = page.request.post("/v1/games", data={
        "preset": "classic", "rounds": 1,
        "seats": [{"kind": "human"}] + [{"kind": "ai", "engine": "easy"}] * 3}).json()
    game_id, token = created["game"]["game_id"], created["tokens"]["0"]
    bearer = {"Authorization": f"Bearer {token}"}
    for _ in range(200):
        game = page.request.get(f"/v1/games/{game_id}", headers=bearer).json()
        if game["status"] == "over":
            return {"gameId": game_id, "token": token}
        legal = game["view"]["legal_actions"]
        page.request.post(f"/v1/games/{game_id}/actions", headers=bearer, data={
            "action": next((a for a in legal if a != "pass"), "pass"),
            "version": game["version"]})
    raise AssertionError("the game did not end in 200 moves")


def test_a_rematch_once_the_series_is_over(page: Page) -> None:
    page.goto("/")
    saved = api_game_played_to_its_end(page)
    page.evaluate("saved => localStorage.setItem('president.game', JSON.stringify(saved))",
                  saved)
    page.reload()
    expect(page.get_by_test_id("turn")).to_have_text("Series over")
    expect(page.get_by_test_id("leave")).to_be_hidden()  # nothing left to leave
    page.get_by_test_id("rematch").click()

    # One human seat and AIs: the new series starts as soon as that seat asks.
    expect(page.get_by_test_id("game-id")).not_to_have_text(saved["gameId"])
    under_way(page)
    expect(page.get_by_test_id("rematch")).to_be_hidden()
    new_id = page.get_by_test_id("game-id").inner_text()
    stored = page.evaluate("JSON.parse(localStorage.getItem('president.game'))")
    assert stored["gameId"] == new_id and stored["token"] != saved["token"]


def test_a_bad_or_rotated_link_is_refused_in_words(page: Page) -> None:
    created = page.request.post("/v1/games", data={
        "preset": "classic", "seats": [{"kind": "human"}, {"kind": "open"},
                                       {"kind": "ai", "engine": "easy"}]}).json()
    old = created["invite"]
    rotated = page.request.post(f"/v1/games/{created['game']['game_id']}/invite", headers={
        "Authorization": f"Bearer {created['tokens']['0']}"})
    assert rotated.status == 201 and rotated.json()["invite"] != old

    # The first opens the page afresh, the second only changes the fragment.
    for code in (old, "NOPE-NOPE-NOPE"):
        page.goto(f"/#join={code}")
        error = page.get_by_test_id("error")
        expect(error).to_be_visible()
        expect(error).to_contain_text("no game has this invite code")
        expect(page.get_by_test_id("setup")).to_be_visible()
        expect(page).not_to_have_url(re.compile("join="))
        page.locator("#error-close").click()
        expect(error).to_be_hidden()


def test_an_old_link_with_the_code_in_its_query_takes_no_seat(page: Page) -> None:
    """A code in the query string reaches the server's logs: the page does not read it."""
    created = page.request.post("/v1/games", data={
        "preset": "classic", "seats": [{"kind": "human"}, {"kind": "open"},
                                       {"kind": "ai", "engine": "easy"}]}).json()
    page.goto(f"/?join={created['invite']}")
    expect(page.get_by_test_id("setup")).to_be_visible()
    expect(page.get_by_test_id("table")).to_be_hidden()
    expect(page.get_by_test_id("error")).to_be_hidden()
    game = page.request.get(f"/v1/games/{created['game']['game_id']}", headers={
        "Authorization": f"Bearer {created['tokens']['0']}"}).json()
    assert game["seats"][1]["kind"] == "open"


def test_every_label_is_in_english_and_in_french() -> None:
    source = (WEB / "i18n.js").read_text(encoding="utf-8")
    tables = re.search(r"const STRINGS = \{\n  en: \{\n(.*?)\n  \},\n  fr: \{\n(.*?)\n  \},\n\};",
                       source, re.DOTALL)
    assert tables is not None
    en, fr = (set(re.findall(r"^    (\w+):", table, re.MULTILINE)) for table in tables.groups())
    assert en == fr
    assert {"open_seat", "start_now", "leave", "rematch", "ev_seat_joined"} <= en
    # the setup form labels every rules option (the API describes them in English only)
    assert {f"opt_{option['name']}" for option in describe_options()
            if option["name"] not in ("players", "max_players", "rounds")} <= en
