// The play page: creates a game for one person against AIs, then follows and plays it
// through the public API. The game id and the seat's token stay in localStorage, so a
// refresh (or coming back later) resumes the same game.

import { ApiError, api, followEvents } from "./api.js";
import { PASS } from "./cards.js";
import { setLanguage, t } from "./i18n.js";
import { EventLog } from "./log.js";
import { SetupForm } from "./setup.js";
import { renderTable } from "./table.js";

const SAVED_GAME = "president.game";
const SAVED_LANGUAGE = "president.language";
// Events come in bursts (a trick of AI plays); one read of the view answers a burst.
const REFRESH_DELAY_MS = 50;

const $ = (id) => document.getElementById(id);

const state = {
  form: null, // the new-game form, once the rules are known
  game: null, // the last GameOut read for our seat
  token: null,
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
    const created = await api.createGame(request);
    const token = Object.values(created.tokens)[0]; // the page seats one person
    localStorage.setItem(SAVED_GAME, JSON.stringify({ gameId: created.game.game_id, token }));
    clearError();
    await enterGame(created.game.game_id, token);
  } catch (error) {
    showError(error);
  }
}

async function enterGame(gameId, token) {
  state.token = token;
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

function leaveGame() {
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

// --- drawing --------------------------------------------------------------------------

const ui = {
  get selected() { return state.selected; },
  get busy() { return state.busy; },
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
  const over = state.game?.status === "over";
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
  $("new-game").addEventListener("click", leaveGame);
  try {
    state.form = new SetupForm(await api.rules(), startGame);
  } catch (error) {
    showError(error);
  }
  const saved = JSON.parse(localStorage.getItem(SAVED_GAME));
  if (saved) {
    try {
      await enterGame(saved.gameId, saved.token);
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
