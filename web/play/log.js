// The last events of the game as sentences. They come from the public stream, so gifts
// show as counts only; the exchange panel shows this seat's own cards from its view.

import { actionFace } from "./cards.js";
import { t } from "./i18n.js";
import { levelName, seatLabel, seatName } from "./table.js";

const SHOWN = 12;

function describe(event, game) {
  const name = (seat) => seatName(game, seat);
  switch (event.type) {
    case "round_started":
      return t("ev_round_started", { round_no: event.round_no, leader: name(event.leader) });
    case "cards_given":
      return t("ev_cards_given",
        { giver: name(event.giver), receiver: name(event.receiver), count: event.count });
    case "exchange_done":
      return t("ev_exchange_done", { leader: name(event.leader) });
    case "played":
      return t("ev_played", { seat: name(event.seat), play: actionFace(event.play) });
    case "passed":
    case "skipped":
    case "trick_won":
      return t(`ev_${event.type}`, { seat: name(event.seat) });
    case "revolution":
      return t(event.reversed ? "ev_revolution_on" : "ev_revolution_off");
    case "went_out":
      return t("ev_went_out", { seat: name(event.seat), place: event.place });
    case "played_for": { // the service played a seat's turn itself
      const reason = ["turn_timeout", "ai_failed"].includes(event.reason)
        ? t(`reason_${event.reason}`) : event.reason;
      return t("ev_played_for", { seat: name(event.seat), reason });
    }
    case "round_ended":
      return t("ev_round_ended", { round: event.result.round });
    // Table events: the seat as the people there know it (its name), not what plays it now.
    case "seat_joined":
    case "seat_left":
    case "seat_connected":
    case "seat_disconnected":
      return event.seat === game.view.seat ? t(`ev_${event.type}_you`)
        : t(`ev_${event.type}`, { seat: seatLabel(game, event.seat) });
    case "game_started":
      return event.filled.length === 0 ? t("ev_game_started")
        : t("ev_game_started_filled", { level: levelName(event.engine) });
    case "seat_taken_over": {
      const reason = ["left", "timeouts"].includes(event.reason)
        ? t(`reason_${event.reason}`) : event.reason;
      return t(event.seat === game.view.seat ? "ev_seat_taken_over_you" : "ev_seat_taken_over",
        { seat: seatLabel(game, event.seat), level: levelName(event.engine), reason });
    }
    default: // series_ended, game_cancelled, rematch_created
      return t(`ev_${event.type}`);
  }
}

/** The last events, newest first so the latest action is where the eye lands. */
export class EventLog {
  constructor() {
    this.events = [];
  }

  add(event) {
    this.events = [...this.events.slice(1 - SHOWN), event];
  }

  render(game) {
    document.getElementById("log").replaceChildren(...[...this.events].reverse().map((event) => {
      const item = document.createElement("li");
      item.textContent = describe(event, game);
      item.dataset.seq = event.seq;
      return item;
    }));
  }
}
