// Cards and actions in the API's canonical text (docs/rules.md): "7H", "TS", "JR",
// groups "7C 7H", straights "5H-JR-7H", "pass", exchange gifts "give 3C 5D".

const RANKS = "3456789TJQKA2"; // weakest first, in the normal order
const SUITS = "CDHS";
const SYMBOLS = { C: "♣", D: "♦", H: "♥", S: "♠" };

export const PASS = "pass";

function isJoker(card) {
  return card === "JR" || card === "JB";
}

// Jokers are the strongest cards in either order, so they stay at the strong end.
function strength(card, reversed) {
  if (isJoker(card)) return 100 + (card === "JB" ? 1 : 0);
  const rank = RANKS.indexOf(card[0]);
  return (reversed ? RANKS.length - 1 - rank : rank) * 4 + SUITS.indexOf(card[1]);
}

/** The hand weakest to strongest in the order in force (a revolution reverses ranks). */
export function sortHand(cards, reversed) {
  return [...cards].sort((a, b) => strength(a, reversed) - strength(b, reversed));
}

const parts = (action) => action.replace(/^give /, "").split(/[ -]/);

/** The cards an action puts down (or gives); none for a pass. Under the suit lock a
 * joker names the card it stands for ("JR=7S"): the card put down is the joker. */
export function cardsOf(action) {
  if (action === PASS) return [];
  return parts(action).map((part) => part.split("=")[0]);
}

const key = (cards) => [...cards].sort().join(" ");

/** The legal actions made of exactly the selected cards. Usually one; a joker can make
 * the same cards read several ways (a group or a straight; under the suit lock, the card
 * a joker names), and then the player chooses. */
export function matchingActions(legal, selected) {
  if (selected.size === 0) return [];
  const wanted = key(selected);
  return legal.filter((action) => action !== PASS && key(cardsOf(action)) === wanted);
}

/** Every card that takes part in at least one legal action: the ones worth highlighting. */
export function playableCards(legal) {
  return new Set(legal.flatMap(cardsOf));
}

export function isRed(card) {
  return card === "JR" || card[1] === "D" || card[1] === "H";
}

/** A suit's symbol: "♥" for "H". */
export function suitSymbol(suit) {
  return SYMBOLS[suit];
}

/** What a card shows: "10♥", "Q♠", "★" for a joker. */
export function face(card) {
  if (isJoker(card)) return "★";
  return `${card[0] === "T" ? "10" : card[0]}${SYMBOLS[card[1]]}`;
}

/** A play as a person reads it: "7♣ 7♥", "5♥–★–7♥", "7♥ ★(7♠)" (a joker naming its card). */
export function actionFace(action) {
  const separator = action.includes("-") ? "–" : " ";
  return parts(action).map((part) => {
    const [card, named] = part.split("=");
    return named ? `${face(card)}(${face(named)})` : face(card);
  }).join(separator);
}
