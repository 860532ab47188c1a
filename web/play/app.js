// The play page: creates a game for one person against AIs and open seats (or joins one
// from a shared link), then follows and plays it through the public API. The game id and
// the seat's token (and, for its creator, the table's invite code) stay in localStorage,
// so a refresh (or coming back later) resumes the same game.

import { ApiError, api, followEvents } from "./api.js";
import { PASS } from "./cards.js";
import { setLanguage, t } from "./i18n.js";
import { EventLog } from "./log.js";
import { SetupForm } from "./setup.js";
import { renderTable } from "./table.js";

const SAVED_GAME = "president.game";
const SAVED_LANGUAGE = "president.language";
const SAVED_NAME = "president.name";
// Events come in bursts (a trick of AI plays); one read of the view answers a burst.
const REFRESH_DELAY_MS = 50;

const $ = (id) => document.getElementById(id);

const state = {
  form: null, // the new-game form, once the rules are known
  game: null, // the last GameOut read for our seat
  token: null,
  invite: null, // the table's invite code, known to the page that created it
  host: false, // this seat made the table: it may start it early or cancel it
  selected: new Set(),
  busy: false, // an action is on its way: no second one meanwhile
  connection: "",
  log: new EventLog(),
  stopEvents: () => {},
  refreshQueued: false,
};

// --- errors: always in words, never silent --------------------------------------------

function showError(error) {
  let text = String(error);
  if (error instanceof ApiError) {
    text = error.status === 0 ? `${t("network_title")}: ${t("network_detail")}`
      : `${error.title}: ${error.detail}`;
  }
  $("error-text").textContent = text;
  $("error").hidden = false;
}

function clearError() {
  $("error").hidden = true;
}

// --- the game -------------------------------------------------------------------------

async function startGame(request) {
  try {
    localStorage.setItem(SAVED_NAME, $("your-name").value.trim());
    const created = await api.createGame(request);
    const token = Object.values(created.tokens)[0]; // the page seats one person
    await saveAndEnter({ gameId: created.game.game_id, token, invite: created.invite,
      host: true });
  } catch (error) {
    showError(error);
  }
}

/** Takes a seat from a shared link's invite code; false when that failed (in words). */
async function joinGame(code) {
  try {
    const seated = await api.join(code, $("your-name").value.trim());
    await saveAndEnter({ gameId: seated.game.game_id, token: seated.token });
    return true;
  } catch (error) {
    showError(error);
    return false;
  }
}

/** The invite code of a shared link (/#join=CODE), or null. It is dropped from the address
 * at once: a reload must not take another seat. The code rides in the fragment, which
 * browsers never send; an old link's ?join= query (which the server did log) is ignored. */
function sharedCode() {
  const code = new URLSearchParams(location.hash.slice(1)).get("join");
  if (code !== null) history.replaceState(null, "", location.pathname + location.search);
  return code;
}

async function saveAndEnter(saved) {
  localStorage.setItem(SAVED_GAME, JSON.stringify(saved));
  clearError();
  await enterGame(saved);
}

async function enterGame({ gameId, token, invite = null, host = false }) {
  state.stopEvents(); // the game before, after a rematch
  state.token = token;
  state.invite = invite;
  state.host = host;
  $("copy-link").textContent = t("copy");
  state.selected.clear();
  state.log = new EventLog();
  state.game = await api.game(gameId, token);
  $("setup").hidden = true;
  $("table").hidden = false;
  render();
  // From the first event: the log shows the latest ones, whenever the page was opened.
  state.stopEvents = followEvents(gameId, 0, {
    onEvent: (event) => {
      state.log.add(event);
      state.log.render(state.game);
      scheduleRefresh();
    },
    onStatus: (status) => {
      state.connection = status;
      renderConnection();
    },
  });
}

function forgetGame() {
  state.stopEvents();
  localStorage.removeItem(SAVED_GAME);
  state.game = null;
  clearError();
  $("table").hidden = true;
  $("setup").hidden = false;
}

/** Takes a view read from the API, unless a newer one is already shown (answers to
 * concurrent reads may arrive out of order). */
function show(game) {
  if (game.version < state.game.version) return;
  state.game = game;
  state.selected = new Set([...state.selected].filter((card) => game.view.hand.includes(card)));
  render();
}

function scheduleRefresh() {
  if (state.refreshQueued) return;
  state.refreshQueued = true;
  setTimeout(() => {
    state.refreshQueued = false;
    refresh();
  }, REFRESH_DELAY_MS);
}

async function refresh() {
  if (!state.game) return; // the player left the game meanwhile
  try {
    show(await api.game(state.game.game_id, state.token));
  } catch (error) {
    showError(error);
  }
}

async function act(action) {
  state.busy = true;
  render();
  try {
    const game = await api.act(state.game.game_id, state.token, action, state.game.version);
    state.selected.clear();
    clearError();
    show(game);
  } catch (error) {
    showError(error);
  }
  // The answer is the game right after our action; AI seats may have played since, and
  // after an error (say another tab played first) the view shown may be out of date.
  await refresh();
  state.busy = false;
  render();
}

/** A table call (start, cancel, leave, rematch): one at a time, errors in words. */
async function tableAction(call) {
  state.busy = true;
  render();
  try {
    await call(state.game.game_id, state.token);
    clearError();
  } catch (error) {
    showError(error);
  }
  state.busy = false;
  if (state.game) render();
}

const startNow = () => tableAction(async (gameId, token) => {
  show(await api.start(gameId, token, $("fill").value));
});

const cancelTable = () => tableAction(async (gameId, token) => {
  await api.cancel(gameId, token);
  forgetGame();
});

const leaveTable = () => tableAction(async (gameId, token) => {
  await api.leave(gameId, token); // an AI plays the seat on (or it opens again, if waiting)
  forgetGame();
});

// The first seat to ask makes the next series; the others' calls take their seats in it.
const rematch = () => tableAction(async (gameId, token) => {
  const seated = await api.rematch(gameId, token);
  await saveAndEnter({ gameId: seated.game.game_id, token: seated.token, host: state.host });
});

function copyLink() {
  $("share-link").select();
  navigator.clipboard.writeText($("share-link").value)
    .then(() => { $("copy-link").textContent = t("copied"); }, showError);
}

// --- drawing --------------------------------------------------------------------------

const ui = {
  get selected() { return state.selected; },
  get busy() { return state.busy; },
  get invite() { return state.invite; },
  get host() { return state.host; },
  onToggle(card) {
    if (!state.selected.delete(card)) state.selected.add(card);
    render();
  },
  onSelect(cards) {
    state.selected = new Set(cards);
    render();
  },
  onAct: act,
};

function render() {
  // Drawing replaces the controls: keep the keyboard focus where it was.
  const focused = document.activeElement?.dataset?.testid;
  renderTable(state.game, ui);
  state.log.render(state.game);
  renderConnection();
  $("table").setAttribute("aria-busy", String(state.busy));
  if (focused) document.querySelector(`[data-testid="${focused}"]`)?.focus();
}

function renderConnection() {
  const over = ["over", "cancelled"].includes(state.game?.status);
  $("connection").textContent = over || !state.connection ? "" : t(state.connection);
}

// --- start ----------------------------------------------------------------------------

function chooseLanguage(code) {
  $("lang").value = setLanguage(code);
  localStorage.setItem(SAVED_LANGUAGE, $("lang").value);
  state.form?.translate();
  if (state.game) render();
}

async function boot() {
  window.addEventListener("unhandledrejection", (event) => showError(event.reason));
  chooseLanguage(localStorage.getItem(SAVED_LANGUAGE) ?? navigator.language.slice(0, 2));
  $("lang").addEventListener("change", () => chooseLanguage($("lang").value));
  $("error-close").addEventListener("click", clearError);
  $("pass").addEventListener("click", () => act(PASS));
  $("new-game").addEventListener("click", forgetGame);
  $("start-now").addEventListener("click", startNow);
  $("cancel-table").addEventListener("click", cancelTable);
  $("leave").addEventListener("click", leaveTable);
  $("rematch").addEventListener("click", rematch);
  $("copy-link").addEventListener("click", copyLink);
  $("your-name").value = localStorage.getItem(SAVED_NAME) ?? "";
  try {
    state.form = new SetupForm(await api.rules(), startGame);
  } catch (error) {
    showError(error);
  }
  // A shared link (/#join=CODE) takes a seat at that table, also when it is opened in a
  // tab already on the page (only the fragment changes: no reload).
  window.addEventListener("hashchange", () => {
    const code = sharedCode();
    if (code !== null) joinGame(code);
  });
  const code = sharedCode();
  if (code !== null && await joinGame(code)) return;
  const saved = JSON.parse(localStorage.getItem(SAVED_GAME));
  if (saved) {
    try {
      await enterGame(saved);
      return;
    } catch (error) {
      showError(error);
      // A game that is gone or a token it refuses will not come back; anything else
      // (the network) may, so the game stays saved for the next visit.
      if (error.status === 404 || error.status === 401) localStorage.removeItem(SAVED_GAME);
    }
  }
  $("setup").hidden = false;
}

boot();
