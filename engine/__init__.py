"""The Président rules engine: pure, standard library only, deterministic given a seed.

    >>> from engine import Rules, new_series, legal_actions, apply, observe
    >>> state = new_series(Rules.preset("classic"), seed=7)
    >>> action = next(iter(legal_actions(state)))
    >>> state, events = apply(state, action)
"""

from engine.cards import ALL_CARDS, Card, Rank, Suit, cards_of, mask_of, parse_card, parse_cards
from engine.errors import (
    AlreadyOut, AlreadyPassed, BadExchange, CannotPassLead, CardNotInHand, DuplicateCard,
    GameOver, GroupOnStraight, IllegalAction, InvalidAction, InvalidRules, JokerUnnamed,
    NotAPlay, NotStrongEnough, NotYourTurn, OptionDisabled, PresidentError, StraightOnGroup,
    SuitLocked, UnknownCard, UnknownOption, UnknownPreset, WrongPhase, WrongSize,
)
from engine.events import (
    CardsGiven, Event, ExchangeDone, Passed, Played, Revolution, RoundEnded, RoundStarted,
    SeriesEnded, Skipped, TrickWon, WentOut,
)
from engine.game import (
    LegalActions, apply, apply_unchecked, check, deal, is_legal, legal_actions, new_series,
    new_series_with_events, replay, round_deal, round_from_hands,
)
from engine.observe import ExchangeView, HistoryEntry, View, observe, redact
from engine.outcome import (
    Exchange, Outcome, Role, RoundResult, Termination, exchange_pairs, roles_by_place,
)
from engine.plays import PASS, Action, Give, Play, PlayKind, parse_action
from engine.rules import PRESETS, FirstLead, LaterLead, Rules, describe_options
from engine.state import Phase, State

__all__ = [
    "ALL_CARDS", "Card", "Rank", "Suit", "cards_of", "mask_of", "parse_card", "parse_cards",
    "AlreadyOut", "AlreadyPassed", "BadExchange", "CannotPassLead", "CardNotInHand",
    "DuplicateCard", "GameOver", "GroupOnStraight", "IllegalAction", "InvalidAction",
    "InvalidRules", "JokerUnnamed", "NotAPlay", "NotStrongEnough", "NotYourTurn",
    "OptionDisabled", "PresidentError", "StraightOnGroup", "SuitLocked", "UnknownCard",
    "UnknownOption", "UnknownPreset",
    "WrongPhase", "WrongSize",
    "CardsGiven", "Event", "ExchangeDone", "Passed", "Played", "Revolution", "RoundEnded",
    "RoundStarted", "SeriesEnded", "Skipped", "TrickWon", "WentOut",
    "LegalActions", "apply", "apply_unchecked", "check", "deal", "is_legal", "legal_actions",
    "new_series", "new_series_with_events", "replay", "round_deal", "round_from_hands",
    "ExchangeView", "HistoryEntry", "View", "observe", "redact",
    "Exchange", "Outcome", "Role", "RoundResult", "Termination", "exchange_pairs",
    "roles_by_place",
    "PASS", "Action", "Give", "Play", "PlayKind", "parse_action",
    "PRESETS", "FirstLead", "LaterLead", "Rules", "describe_options",
    "Phase", "State",
]
