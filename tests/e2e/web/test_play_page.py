"""The play page in a real browser: a person plays against Easy AIs by clicking, as the
issue asks. Every wait is one of Playwright's auto-waiting assertions; none sleeps."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, Route, expect

RANKS = "3456789TJQKA2"
PLAYABLE = re.compile(r"\bplayable\b")
LOG_LINES = 12  # the page shows the last 12 events


def start_from_the_form(page: Page, levels: tuple[str, ...] = ("easy", "easy", "easy"),
                        preset: str = "classic", rounds: int = 1) -> None:
    page.goto("/")
    page.get_by_test_id("preset").select_option(preset)
    for seat, level in enumerate(levels, start=1):
        page.get_by_test_id(f"ai-{seat}").select_option(level)
    page.get_by_test_id("rounds").fill(str(rounds))
    page.get_by_test_id("start").click()
    expect(page.get_by_test_id("table")).to_be_visible()


def settle(page: Page) -> None:
    """Wait until no action is on its way: the page shows the game as the API has it."""
    expect(page.get_by_test_id("table")).to_have_attribute("aria-busy", "false")


def hand(page: Page) -> list[str]:
    ids = page.get_by_test_id("hand").get_by_role("button").evaluate_all(
        "cards => cards.map(card => card.dataset.testid)")
    return [card_id.removeprefix("card-") for card_id in ids]


def play_one_move(page: Page) -> None:
    """Plays the first legal play the page highlights, or passes when it offers none."""
    expect(page.get_by_test_id("turn")).to_have_attribute("data-mine", "true")
    chips = page.get_by_test_id("legal-play")
    if chips.count() == 0:
        page.get_by_test_id("pass").click()
    else:
        for card in re.split(r"[ -]", str(chips.first.get_attribute("data-action"))):
            card = card.split("=")[0]  # a joker naming its card (the suit lock)
            page.get_by_test_id(f"card-{card}").click()
        expect(page.get_by_test_id("play")).to_be_enabled()
        page.get_by_test_id("play").click()
    settle(page)


def play_until_the_round_ends(page: Page) -> int:
    # The AI seats play after each answer, so wait for the one or the other.
    mine_or_over = page.locator('[data-testid="turn"][data-mine="true"], '
                                '[data-testid="results"]:visible')
    for moves in range(100):
        expect(mine_or_over.first).to_be_visible(timeout=15_000)
        if page.get_by_test_id("results").is_visible():
            return moves
        play_one_move(page)
    raise AssertionError("the round did not end in 100 moves")


def test_a_person_plays_a_round_against_three_easy_ais(page: Page, artifacts: Path) -> None:
    start_from_the_form(page)
    settle(page)
    expect(page.get_by_test_id("turn")).to_have_attribute("data-mine", "true")
    cards = hand(page)
    assert [RANKS.index(c[0]) for c in cards] == sorted(RANKS.index(c[0]) for c in cards)
    first_legal = str(page.get_by_test_id("legal-play").first.get_attribute("data-action"))
    for card in first_legal.split(" "):
        expect(page.get_by_test_id(f"card-{card}")).to_have_class(PLAYABLE)

    # An illegal selection (two ranks: no pair, no straight in classic) cannot be played.
    # Selected by keyboard: the cards are buttons, Space toggles aria-pressed.
    low = page.get_by_test_id(f"card-{cards[0]}")
    high = page.get_by_test_id(f"card-{next(c for c in cards if c[0] != cards[0][0])}")
    version = page.get_by_test_id("table").get_attribute("data-version")
    for chosen in (low, high):
        chosen.focus()
        page.keyboard.press("Space")
        expect(chosen).to_have_attribute("aria-pressed", "true")
    play = page.get_by_test_id("play")
    expect(play).to_be_disabled()
    play.click(force=True)  # a disabled button ignores the click: nothing is sent
    expect(page.get_by_test_id("table")).to_have_attribute("data-version", str(version))
    assert hand(page) == cards
    for chosen in (low, high):
        chosen.focus()
        page.keyboard.press("Enter")
        expect(chosen).to_have_attribute("aria-pressed", "false")

    # A refresh resumes the same game, same seat, same hand.
    game_id = page.get_by_test_id("game-id").inner_text()
    page.reload()
    expect(page.get_by_test_id("game-id")).to_have_text(game_id)
    settle(page)
    assert hand(page) == cards

    assert play_until_the_round_ends(page) >= 3
    expect(page.get_by_test_id("turn")).to_have_text("Series over")
    expect(page.get_by_test_id("results")).to_contain_text("Président")
    expect(page.get_by_test_id("results")).to_contain_text("Trou du cul")
    expect(page.get_by_test_id("scoreboard").locator("tbody tr")).to_have_count(4)
    expect(page.get_by_test_id("outcome")).to_be_visible()
    expect(page.get_by_test_id("log").locator("li").first).to_have_text("Series over")
    expect(page.get_by_test_id("play")).to_be_hidden()  # nothing left to play
    page.screenshot(path=artifacts / "play-page-round-over.png", full_page=True)


def test_an_api_error_is_shown_in_words(page: Page) -> None:
    page.goto("/")
    page.get_by_test_id("option-skip_on_match").check()  # needs equal_match, off in classic
    page.get_by_test_id("start").click()
    error = page.get_by_test_id("error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("skip_on_match needs equal_match")
    expect(page.get_by_test_id("setup")).to_be_visible()


def test_labels_switch_to_french_and_stay_french(page: Page) -> None:
    page.goto("/")
    expect(page.get_by_test_id("start")).to_have_text("Start")
    page.get_by_test_id("lang").select_option("fr")
    expect(page.get_by_test_id("start")).to_have_text("Commencer")
    expect(page.get_by_test_id("ai-1").locator("option:checked")).to_have_text("IA normale")
    page.reload()
    expect(page.get_by_test_id("start")).to_have_text("Commencer")
    page.get_by_test_id("start").click()
    expect(page.get_by_test_id("turn")).to_have_text("À vous de jouer")


def api_game_with_the_president_to_give(page: Page) -> dict[str, Any]:
    """A two-round game against Easy AIs, its first round played through the API as any
    client would, with a seed under which seat 0 ends it Président: in round 2 it must
    choose two cards to give back."""
    for seed in range(40):
        created = page.request.post("/v1/games", data={
            "preset": "classic", "rounds": 2, "seed": seed,
            "seats": [{"kind": "human"}] + [{"kind": "ai", "engine": "easy"}] * 3}).json()
        game_id, token = created["game"]["game_id"], created["tokens"]["0"]
        bearer = {"Authorization": f"Bearer {token}"}
        while (game := page.request.get(f"/v1/games/{game_id}", headers=bearer).json())[
                "view"]["round"] == 1:
            legal = game["view"]["legal_actions"]
            page.request.post(f"/v1/games/{game_id}/actions", headers=bearer, data={
                "action": next((a for a in legal if a != "pass"), "pass"),
                "version": game["version"]})
        if game["view"]["roles"][0] == "president":
            return {"gameId": game_id, "token": token, "game": game}
    raise AssertionError("no seed below 40 makes seat 0 Président")


def test_the_president_chooses_two_cards_to_give_back(page: Page) -> None:
    page.goto("/")
    saved = api_game_with_the_president_to_give(page)
    received = next(e["cards"] for e in saved["game"]["view"]["exchanges"]
                    if e["receiver"] == 0)
    page.evaluate("saved => localStorage.setItem('president.game', JSON.stringify(saved))",
                  {"gameId": saved["gameId"], "token": saved["token"]})
    page.reload()  # the page resumes the saved game, as after any refresh

    turn, exchange, give = (page.get_by_test_id(name) for name in ("turn", "exchange", "play"))
    expect(turn).to_contain_text("choose 2 card(s) to give")
    expect(exchange).to_contain_text("You received")
    assert set(received) <= set(hand(page))
    expect(give).to_have_text("Give")
    first, second = hand(page)[:2]
    page.get_by_test_id(f"card-{first}").click()
    expect(give).to_be_disabled()  # one card is not a gift of two
    page.get_by_test_id(f"card-{second}").click()
    expect(give).to_be_enabled()
    give.click()
    settle(page)
    expect(exchange).to_contain_text("You gave")
    expect(turn).not_to_contain_text("give")
    assert first not in hand(page) and second not in hand(page)


def sse(events: list[dict[str, Any]]) -> str:
    """Events as the stream sends them, told to reconnect after 100 ms once it ends."""
    return "retry: 100\n\n" + "".join(
        f"id: {e['seq']}\nevent: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def test_a_dropped_stream_resumes_after_the_last_event(page: Page) -> None:
    start_from_the_form(page)
    settle(page)
    for _ in range(2):
        play_one_move(page)
    # Our turn again: the AI seats have played, and no event comes until we act (waiting
    # for the move's answer alone left them playing while the events were read).
    expect(page.get_by_test_id("turn")).to_have_attribute("data-mine", "true")
    game_id = page.get_by_test_id("game-id").inner_text()
    events = page.request.get(f"/v1/games/{game_id}/events").json()["events"]
    third, two_thirds = len(events) // 3, 2 * len(events) // 3

    # Two drops, one for each way back. The first stream ends after a third of the
    # events; the browser reconnects by itself, and that attempt fails for good (503), so
    # the page opens a new stream from the last event it saw. That one ends after two
    # thirds; the browser reconnects with Last-Event-ID, let through to the service.
    urls: list[str] = []

    def drop(route: Route) -> None:
        urls.append(route.request.url)
        if len(urls) == 1:
            route.fulfill(content_type="text/event-stream", body=sse(events[:third]))
        elif len(urls) == 2:
            route.fulfill(status=503, body="")
        elif len(urls) == 3:
            route.fulfill(content_type="text/event-stream", body=sse(events[third:two_thirds]))
        else:
            route.continue_()

    page.route("**/events/stream*", drop)
    page.reload()
    log = page.get_by_test_id("log").locator("li")
    expect(log.first).to_have_attribute("data-seq", str(events[-1]["seq"]))
    expect(page.get_by_test_id("connection")).to_have_text("Live")
    assert urls[2].endswith(f"after={events[third - 1]['seq']}")
    # Had the service not resumed after Last-Event-ID, the second third would come twice.
    seen = [int(x) for x in log.evaluate_all("items => items.map(i => i.dataset.seq)")]
    assert seen == [e["seq"] for e in reversed(events)][:LOG_LINES]
