"""The engine's exceptions.

Every one is a ``ValueError`` with a stable machine-readable ``code``. Two
families: ``InvalidAction`` (the input does not describe a play at all:
unknown card, duplicate card, shape that is no play) and ``IllegalAction``
(a well-formed action the rules forbid now). Entry points (HTTP, gRPC) turn
them into their own errors; the engine never does.
"""

from __future__ import annotations


class PresidentError(ValueError):
    code = "president_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


# --- rules configuration -------------------------------------------------------------


class InvalidRules(PresidentError):
    code = "invalid_rules"


class UnknownPreset(InvalidRules):
    code = "unknown_preset"


class UnknownOption(InvalidRules):
    code = "unknown_option"


# --- malformed input -----------------------------------------------------------------


class InvalidAction(PresidentError):
    code = "invalid_action"


class UnknownCard(InvalidAction):
    code = "unknown_card"


class DuplicateCard(InvalidAction):
    code = "duplicate_card"


class NotAPlay(InvalidAction):
    """The cards form no group, straight or single joker."""

    code = "not_a_play"


# --- well-formed but against the rules -------------------------------------------------


class IllegalAction(PresidentError):
    code = "illegal_action"


class NotYourTurn(IllegalAction):
    code = "not_your_turn"


class AlreadyPassed(NotYourTurn):
    code = "already_passed"


class AlreadyOut(NotYourTurn):
    code = "already_out"


class CardNotInHand(IllegalAction):
    code = "card_not_in_hand"


class WrongSize(IllegalAction):
    code = "wrong_size"


class NotStrongEnough(IllegalAction):
    code = "not_strong_enough"


class GroupOnStraight(IllegalAction):
    code = "group_on_straight"


class StraightOnGroup(IllegalAction):
    code = "straight_on_group"


class SuitLocked(IllegalAction):
    """The trick is locked to some suits (the suit lock) and the play has others."""

    code = "suit_locked"


class JokerUnnamed(IllegalAction):
    """Under the suit lock a joker in a group must name the card it stands for."""

    code = "joker_unnamed"


class OptionDisabled(IllegalAction):
    """A straight or a joker where the rules in force have none."""

    code = "option_disabled"


class CannotPassLead(IllegalAction):
    code = "cannot_pass_lead"


class WrongPhase(IllegalAction):
    code = "wrong_phase"


class GameOver(IllegalAction):
    code = "game_over"


class BadExchange(IllegalAction):
    code = "bad_exchange"


ALL_ERRORS: tuple[type[PresidentError], ...] = (
    PresidentError, InvalidRules, UnknownPreset, UnknownOption, InvalidAction, UnknownCard,
    DuplicateCard, NotAPlay, IllegalAction, NotYourTurn, AlreadyPassed, AlreadyOut,
    CardNotInHand, WrongSize, NotStrongEnough, GroupOnStraight, StraightOnGroup,
    OptionDisabled, CannotPassLead, WrongPhase, GameOver, BadExchange,
)
