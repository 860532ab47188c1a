// Draws the table from the seat's view (GET /v1/games/{id} with its token). The view only
// ever holds this seat's own cards; other seats appear as card counts.

import {
  PASS, actionFace, cardsOf, face, isRed, matchingActions, playableCards, sortHand, suitSymbol,
} from "./cards.js";
import { ROLES, cardName, t } from "./i18n.js";

const $ = (id) => document.getElementById(id);

function element(tag, text, attributes = {}) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

/** Who sits there: "You", the seat's name, or "Seat 3". */
export function seatLabel(game, seat) {
  if (seat === game.view.seat) return t("you");
  return game.seats[seat].name ?? t("seat", { n: seat });
}

/** An AI level in words; a configured engine the page has no label for (t() answers the
 * key) keeps its name. */
export function levelName(engine) {
  const level = t(`level_${engine}`);
  return level === `level_${engine}` ? engine : level;
}

/** How the page names a seat: "You", "Seat 2 · Easy AI", "Bob · Open seat", or "Bob"
 * (or "Seat 3") for another person. */
export function seatName(game, seat) {
  const label = seatLabel(game, seat);
  const { kind, engine } = game.seats[seat];
  if (seat === game.view.seat || kind === "human") return label;
  return t("seat_kind", { seat: label, kind: kind === "ai" ? levelName(engine) : t("open_seat") });
}

/**
 * Renders everything. `ui` holds what the page adds to the view: the selected cards,
 * whether an action is on its way (`busy`), and the callbacks for cards and plays.
 */
export function renderTable(game, ui) {
  const view = game.view;
  $("game-id").textContent = game.game_id;
  renderTableState(game, ui);
  $("round").textContent = t("round_of", { n: view.round, total: view.rounds });
  $("table").dataset.version = game.version;
  renderTurn(game);
  const revolution = $("revolution");
  revolution.hidden = !view.reversed;
  revolution.textContent = t("revolution");
  const locked = $("locked");
  locked.hidden = view.locked_suits.length === 0;
  locked.textContent = t("locked", { suits: view.locked_suits.map(suitSymbol).join("") });
  renderSeats(game);
  renderTrick(game);
  renderExchange(game);
  renderHand(game, ui);
  renderResults(game);
}

/** What the table's state asks of this page: waiting for players (the link to share, and
 * starting early for the host), leaving a game under way, a rematch once it is over. */
function renderTableState(game, ui) {
  const waiting = game.status === "waiting";
  $("waiting").hidden = !waiting;
  $("waiting-text").textContent = t("waiting_for",
    { count: game.seats.filter((seat) => seat.kind === "open").length });
  $("share").hidden = !(waiting && ui.invite);
  // The code rides in the fragment, which browsers never send: a query string would reach
  // the server (its access logs, the request's trace) with the request for the page.
  $("share-link").value = ui.invite
    ? `${location.origin}/#join=${encodeURIComponent(ui.invite)}` : "";
  $("host").hidden = !(waiting && ui.host);
  $("leave").hidden = !(game.status === "active" || (waiting && !ui.host));
  $("rematch").hidden = game.status !== "over";
  for (const id of ["start-now", "cancel-table", "leave", "rematch"]) $(id).disabled = ui.busy;
}

function myTurn(game) {
  return game.status === "active" && game.view.to_act === game.view.seat;
}

function renderTurn(game) {
  const view = game.view;
  const turn = $("turn");
  turn.dataset.mine = String(myTurn(game));
  if (game.status === "waiting" || game.status === "cancelled") {
    turn.textContent = t(game.status === "waiting" ? "not_started" : "cancelled");
  } else if (view.phase === "over") {
    turn.textContent = t("series_over");
  } else if (!myTurn(game)) {
    turn.textContent = t("their_turn", { seat: seatName(game, view.to_act) });
  } else if (view.phase === "exchange") {
    const gift = view.pending.find((p) => p.giver === view.seat);
    turn.textContent = t("your_turn_give",
      { count: gift.count, receiver: seatName(game, gift.receiver) });
  } else {
    turn.textContent = t("your_turn");
  }
}

function renderSeats(game) {
  const view = game.view;
  const acting = game.status === "active" ? view.to_act : null;
  $("seats").replaceChildren(...view.hand_sizes.map((count, seat) => {
    const { kind, connected } = game.seats[seat];
    const item = element("li", undefined, { "data-testid": `seat-${seat}`, "data-kind": kind });
    item.classList.toggle("acting", seat === acting);
    item.classList.toggle("online", connected);
    item.append(element("strong", seatName(game, seat)),
      element("span", t("cards_left", { count }), { "data-testid": `count-${seat}` }));
    if (view.roles) item.append(element("span", ROLES[view.roles[seat]], { class: "role" }));
    const badges = [];
    if (kind === "human" && seat !== view.seat) badges.push(t(connected ? "online" : "offline"));
    if (seat === acting) badges.push(t("to_act"));
    if (view.passed.includes(seat)) badges.push(t("passed"));
    if (view.went_out.includes(seat)) badges.push(t("out"));
    if (badges.length) item.append(element("span", badges.join(" · "), { class: "badge" }));
    return item;
  }));
}

function renderTrick(game) {
  const trick = game.view.trick;
  if (trick.length === 0) {
    $("trick").replaceChildren(element("li", t("trick_empty"), { class: "muted" }));
    return;
  }
  // The last play is the one to beat; it comes first and stands out.
  $("trick").replaceChildren(...[...trick].reverse().map(({ seat, play }, index) => {
    const item = element("li", undefined, { class: index === 0 ? "latest" : "" });
    item.append(element("span", seatName(game, seat)), playFace(play));
    return item;
  }));
}

function playFace(action) {
  const span = element("span", undefined, { class: "play" });
  for (const card of cardsOf(action)) {
    span.append(element("span", face(card), { class: isRed(card) ? "red" : "black" }));
  }
  span.setAttribute("aria-label", cardsOf(action).map(cardName).join(", "));
  return span;
}

function renderExchange(game) {
  const view = game.view;
  const lines = view.exchanges.map((e) => {
    const cards = e.cards?.map(face).join(" ");
    if (e.giver === view.seat) return t("you_gave", { cards, seat: seatName(game, e.receiver) });
    if (e.receiver === view.seat) {
      return t("you_received", { cards, seat: seatName(game, e.giver) });
    }
    return t("gave", { giver: seatName(game, e.giver), count: e.count,
      receiver: seatName(game, e.receiver) });
  });
  if (view.phase === "exchange") {
    lines.push(...view.pending.map((p) => (p.giver === view.seat
      ? t("you_give", { count: p.count, receiver: seatName(game, p.receiver) })
      : t("must_give", { giver: seatName(game, p.giver), count: p.count,
        receiver: seatName(game, p.receiver) }))));
  }
  $("exchange").hidden = lines.length === 0;
  $("exchange-lines").replaceChildren(...lines.map((line) => element("li", line)));
}

function renderHand(game, ui) {
  const view = game.view;
  const legal = ui.busy || game.status !== "active" ? [] : view.legal_actions;
  const playable = playableCards(legal);
  $("hand").replaceChildren(...sortHand(view.hand, view.reversed).map((card) => {
    const button = element("button", face(card), {
      type: "button", "data-testid": `card-${card}`, "aria-label": cardName(card),
      "aria-pressed": String(ui.selected.has(card)),
      class: `card ${isRed(card) ? "red" : "black"}${playable.has(card) ? " playable" : ""}`,
    });
    button.addEventListener("click", () => ui.onToggle(card));
    return button;
  }));

  // Gifts are every pair of the hand: listing them helps nobody, the turn line says what to do.
  const plays = view.phase === "play" ? legal.filter((action) => action !== PASS) : [];
  $("legal").replaceChildren(...(plays.length ? [element("span", t("legal_plays"))] : []),
    ...plays.map((action) => {
      const chip = element("button", actionFace(action), {
        type: "button", class: "chip", "data-testid": "legal-play", "data-action": action,
        "aria-label": cardsOf(action).map(cardName).join(", "),
      });
      chip.addEventListener("click", () => ui.onSelect(cardsOf(action)));
      return chip;
    }));

  renderPlayButtons(view, legal, ui);
  $("pass").disabled = !legal.includes(PASS);
  $("actions").hidden = game.status !== "active";
}

/** One Play (or Give) button, enabled only when the selection is exactly a legal action;
 * when the same cards read two ways (jokers), one button per reading. */
function renderPlayButtons(view, legal, ui) {
  const matches = matchingActions(legal, ui.selected);
  const verb = view.phase === "exchange" ? t("give") : t("play");
  const buttons = (matches.length > 1 ? matches : [matches[0]]).map((action, index) => {
    const label = matches.length > 1 ? t("play_as", { action: actionFace(action) }) : verb;
    const button = element("button", label, {
      type: "button", class: "primary", "data-testid": index === 0 ? "play" : `play-${index}`,
    });
    button.disabled = action === undefined;
    button.addEventListener("click", () => ui.onAct(action));
    return button;
  });
  $("play-buttons").replaceChildren(...buttons);
}

function renderResults(game) {
  const view = game.view;
  $("results").hidden = view.results.length === 0;
  if (view.results.length === 0) return;
  const last = view.results.at(-1);
  $("results-title").textContent = t("results_title", { n: last.round });
  const head = [t("place"), t("player"), t("role"), t("points")];
  const rows = last.ranking.map((seat, place) => [
    String(place + 1),
    seatName(game, seat) + (last.penalized.includes(seat) ? ` ${t("penalized")}` : ""),
    ROLES[last.roles[seat]], String(last.points[seat]),
  ]);
  fillTable($("result-table"), head, rows);

  const rounds = view.results.map((r) => t("round_short", { n: r.round }));
  fillTable($("scoreboard"), [t("player"), ...rounds, t("total")],
    view.scores.map((total, seat) => [seatName(game, seat),
      ...view.results.map((r) => String(r.points[seat])), String(total)]));

  const outcome = $("outcome");
  outcome.hidden = view.outcome === null;
  if (view.outcome) {
    outcome.textContent = t("winners",
      { seats: view.outcome.winners.map((seat) => seatName(game, seat)).join(", ") });
  }
}

function fillTable(table, head, rows) {
  const headRow = element("tr");
  headRow.append(...head.map((text) => element("th", text, { scope: "col" })));
  table.replaceChildren(element("thead"), element("tbody"));
  table.tHead.append(headRow);
  table.tBodies[0].append(...rows.map((cells) => {
    const row = element("tr");
    row.append(...cells.map((text) => element("td", text)));
    return row;
  }));
}
