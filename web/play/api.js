// The public REST API and its event stream, used exactly as any third-party client would.

/** A failed call, in words: the problem's title and detail (RFC 9457), or why the
 * service could not be reached at all (status 0). */
export class ApiError extends Error {
  constructor(status, code, title, detail) {
    super(`${title}: ${detail}`);
    this.status = status;
    this.code = code;
    this.title = title;
    this.detail = detail;
  }
}

async function call(method, path, { token, body } = {}) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, "network", null, null); // the page words it in its language
  }
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    throw new ApiError(response.status, data?.code ?? `http_${response.status}`,
      data?.title ?? response.statusText, data?.detail ?? `HTTP ${response.status}`);
  }
  return data;
}

const gamePath = (gameId) => `/v1/games/${encodeURIComponent(gameId)}`;

export const api = {
  rules: () => call("GET", "/v1/rules"),
  createGame: (body) => call("POST", "/v1/games", { body }),
  game: (gameId, token) => call("GET", gamePath(gameId), { token }),
  act: (gameId, token, action, version) =>
    call("POST", `${gamePath(gameId)}/actions`, { token, body: { action, version } }),
  // Tables (docs/lobby.md): joining by invite, starting early, leaving, the next series.
  join: (code, name) => call("POST", "/v1/join", { body: name ? { code, name } : { code } }),
  start: (gameId, token, fill) =>
    call("POST", `${gamePath(gameId)}/start`, { token, body: { fill } }),
  cancel: (gameId, token) => call("POST", `${gamePath(gameId)}/cancel`, { token }),
  leave: (gameId, token) => call("POST", `${gamePath(gameId)}/leave`, { token }),
  rematch: (gameId, token) => call("POST", `${gamePath(gameId)}/rematch`, { token }),
};

// The stream names every message after its event type, so each needs its own listener.
const EVENT_TYPES = ["round_started", "cards_given", "exchange_done", "played", "passed",
  "skipped", "revolution", "trick_won", "went_out", "round_ended", "series_ended",
  "played_for", "seat_joined", "game_started", "game_cancelled", "seat_left", "seat_taken_over",
  "rematch_created", "seat_connected", "seat_disconnected"];
// After these nothing follows (the service ends the stream of a finished series itself).
const LAST_EVENTS = new Set(["series_ended", "game_cancelled"]);
const REOPEN_MS = 2000;

/**
 * Follows a game's public events after number `after` (an EventSource cannot send the
 * seat's token, so these are the spectator's events; the seat's own view is read with
 * `api.game`). After a network drop the browser reconnects by itself, sending
 * Last-Event-ID; when it gives up (an HTTP error) we open a new stream from the last
 * event seen. Returns a function that stops following.
 */
export function followEvents(gameId, after, { onEvent, onStatus }) {
  let source = null;
  let timer = null;
  let last = after;

  const stop = () => {
    clearTimeout(timer);
    source?.close();
  };

  const open = () => {
    source = new EventSource(`${gamePath(gameId)}/events/stream?after=${last}`);
    source.onopen = () => onStatus("live");
    source.onerror = () => {
      onStatus("reconnecting");
      if (source.readyState === EventSource.CLOSED) timer = setTimeout(open, REOPEN_MS);
    };
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (message) => {
        const event = JSON.parse(message.data);
        last = event.seq;
        onEvent(event);
        if (LAST_EVENTS.has(type)) stop();
      });
    }
  };

  open();
  return stop;
}
