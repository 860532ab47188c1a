from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PHASE_UNSPECIFIED: _ClassVar[Phase]
    PHASE_EXCHANGE: _ClassVar[Phase]
    PHASE_PLAY: _ClassVar[Phase]
    PHASE_OVER: _ClassVar[Phase]

class Role(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ROLE_UNSPECIFIED: _ClassVar[Role]
    ROLE_PRESIDENT: _ClassVar[Role]
    ROLE_VICE_PRESIDENT: _ClassVar[Role]
    ROLE_NEUTRE: _ClassVar[Role]
    ROLE_VICE_TROU: _ClassVar[Role]
    ROLE_TROU: _ClassVar[Role]
PHASE_UNSPECIFIED: Phase
PHASE_EXCHANGE: Phase
PHASE_PLAY: Phase
PHASE_OVER: Phase
ROLE_UNSPECIFIED: Role
ROLE_PRESIDENT: Role
ROLE_VICE_PRESIDENT: Role
ROLE_NEUTRE: Role
ROLE_VICE_TROU: Role
ROLE_TROU: Role

class DecideRequest(_message.Message):
    __slots__ = ("view", "level", "seed", "budget", "explain", "weigh_also")
    VIEW_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    BUDGET_FIELD_NUMBER: _ClassVar[int]
    EXPLAIN_FIELD_NUMBER: _ClassVar[int]
    WEIGH_ALSO_FIELD_NUMBER: _ClassVar[int]
    view: SeatView
    level: str
    seed: int
    budget: Budget
    explain: bool
    weigh_also: str
    def __init__(self, view: _Optional[_Union[SeatView, _Mapping]] = ..., level: _Optional[str] = ..., seed: _Optional[int] = ..., budget: _Optional[_Union[Budget, _Mapping]] = ..., explain: _Optional[bool] = ..., weigh_also: _Optional[str] = ...) -> None: ...

class DecideResponse(_message.Message):
    __slots__ = ("action", "candidates")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    action: str
    candidates: _containers.RepeatedCompositeFieldContainer[Candidate]
    def __init__(self, action: _Optional[str] = ..., candidates: _Optional[_Iterable[_Union[Candidate, _Mapping]]] = ...) -> None: ...

class Candidate(_message.Message):
    __slots__ = ("action", "expected_points", "simulations")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_POINTS_FIELD_NUMBER: _ClassVar[int]
    SIMULATIONS_FIELD_NUMBER: _ClassVar[int]
    action: str
    expected_points: float
    simulations: int
    def __init__(self, action: _Optional[str] = ..., expected_points: _Optional[float] = ..., simulations: _Optional[int] = ...) -> None: ...

class Budget(_message.Message):
    __slots__ = ("simulations", "milliseconds")
    SIMULATIONS_FIELD_NUMBER: _ClassVar[int]
    MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    simulations: int
    milliseconds: float
    def __init__(self, simulations: _Optional[int] = ..., milliseconds: _Optional[float] = ...) -> None: ...

class SeatView(_message.Message):
    __slots__ = ("seat", "rules", "round", "phase", "to_act", "hand", "hand_sizes", "trick", "discard", "reversed", "passed", "went_out", "penalized", "roles", "scores", "leader", "pending", "exchanges", "history", "results", "legal_actions")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    REVERSED_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    WENT_OUT_FIELD_NUMBER: _ClassVar[int]
    PENALIZED_FIELD_NUMBER: _ClassVar[int]
    ROLES_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    EXCHANGES_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    rules: Rules
    round: int
    phase: Phase
    to_act: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    trick: _containers.RepeatedCompositeFieldContainer[TrickPlay]
    discard: _containers.RepeatedScalarFieldContainer[str]
    reversed: bool
    passed: _containers.RepeatedScalarFieldContainer[int]
    went_out: _containers.RepeatedScalarFieldContainer[int]
    penalized: _containers.RepeatedScalarFieldContainer[int]
    roles: _containers.RepeatedScalarFieldContainer[Role]
    scores: _containers.RepeatedScalarFieldContainer[int]
    leader: int
    pending: _containers.RepeatedCompositeFieldContainer[PendingGift]
    exchanges: _containers.RepeatedCompositeFieldContainer[ExchangeView]
    history: _containers.RepeatedCompositeFieldContainer[HistoryEntry]
    results: _containers.RepeatedCompositeFieldContainer[RoundResult]
    legal_actions: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., rules: _Optional[_Union[Rules, _Mapping]] = ..., round: _Optional[int] = ..., phase: _Optional[_Union[Phase, str]] = ..., to_act: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., trick: _Optional[_Iterable[_Union[TrickPlay, _Mapping]]] = ..., discard: _Optional[_Iterable[str]] = ..., reversed: _Optional[bool] = ..., passed: _Optional[_Iterable[int]] = ..., went_out: _Optional[_Iterable[int]] = ..., penalized: _Optional[_Iterable[int]] = ..., roles: _Optional[_Iterable[_Union[Role, str]]] = ..., scores: _Optional[_Iterable[int]] = ..., leader: _Optional[int] = ..., pending: _Optional[_Iterable[_Union[PendingGift, _Mapping]]] = ..., exchanges: _Optional[_Iterable[_Union[ExchangeView, _Mapping]]] = ..., history: _Optional[_Iterable[_Union[HistoryEntry, _Mapping]]] = ..., results: _Optional[_Iterable[_Union[RoundResult, _Mapping]]] = ..., legal_actions: _Optional[_Iterable[str]] = ...) -> None: ...

class Rules(_message.Message):
    __slots__ = ("players", "max_players", "jokers", "straights", "revolution", "equal_match", "skip_on_match", "twos_close", "eights_close", "exchange", "no_finish_on_two", "first_lead", "later_lead", "rounds", "straight_revolution", "straights_above", "spade_three_beats_joker", "play_on_own", "suit_lock", "five_card_groups", "jokers_extend_straights", "deal_from_president", "reset_every", "lead_pass", "pass_limit")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MAX_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    JOKERS_FIELD_NUMBER: _ClassVar[int]
    STRAIGHTS_FIELD_NUMBER: _ClassVar[int]
    REVOLUTION_FIELD_NUMBER: _ClassVar[int]
    EQUAL_MATCH_FIELD_NUMBER: _ClassVar[int]
    SKIP_ON_MATCH_FIELD_NUMBER: _ClassVar[int]
    TWOS_CLOSE_FIELD_NUMBER: _ClassVar[int]
    EIGHTS_CLOSE_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_FIELD_NUMBER: _ClassVar[int]
    NO_FINISH_ON_TWO_FIELD_NUMBER: _ClassVar[int]
    FIRST_LEAD_FIELD_NUMBER: _ClassVar[int]
    LATER_LEAD_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    STRAIGHT_REVOLUTION_FIELD_NUMBER: _ClassVar[int]
    STRAIGHTS_ABOVE_FIELD_NUMBER: _ClassVar[int]
    SPADE_THREE_BEATS_JOKER_FIELD_NUMBER: _ClassVar[int]
    PLAY_ON_OWN_FIELD_NUMBER: _ClassVar[int]
    SUIT_LOCK_FIELD_NUMBER: _ClassVar[int]
    FIVE_CARD_GROUPS_FIELD_NUMBER: _ClassVar[int]
    JOKERS_EXTEND_STRAIGHTS_FIELD_NUMBER: _ClassVar[int]
    DEAL_FROM_PRESIDENT_FIELD_NUMBER: _ClassVar[int]
    RESET_EVERY_FIELD_NUMBER: _ClassVar[int]
    LEAD_PASS_FIELD_NUMBER: _ClassVar[int]
    PASS_LIMIT_FIELD_NUMBER: _ClassVar[int]
    players: int
    max_players: int
    jokers: int
    straights: bool
    revolution: bool
    equal_match: bool
    skip_on_match: bool
    twos_close: bool
    eights_close: bool
    exchange: bool
    no_finish_on_two: bool
    first_lead: str
    later_lead: str
    rounds: int
    straight_revolution: bool
    straights_above: bool
    spade_three_beats_joker: bool
    play_on_own: bool
    suit_lock: bool
    five_card_groups: bool
    jokers_extend_straights: bool
    deal_from_president: bool
    reset_every: int
    lead_pass: bool
    pass_limit: int
    def __init__(self, players: _Optional[int] = ..., max_players: _Optional[int] = ..., jokers: _Optional[int] = ..., straights: _Optional[bool] = ..., revolution: _Optional[bool] = ..., equal_match: _Optional[bool] = ..., skip_on_match: _Optional[bool] = ..., twos_close: _Optional[bool] = ..., eights_close: _Optional[bool] = ..., exchange: _Optional[bool] = ..., no_finish_on_two: _Optional[bool] = ..., first_lead: _Optional[str] = ..., later_lead: _Optional[str] = ..., rounds: _Optional[int] = ..., straight_revolution: _Optional[bool] = ..., straights_above: _Optional[bool] = ..., spade_three_beats_joker: _Optional[bool] = ..., play_on_own: _Optional[bool] = ..., suit_lock: _Optional[bool] = ..., five_card_groups: _Optional[bool] = ..., jokers_extend_straights: _Optional[bool] = ..., deal_from_president: _Optional[bool] = ..., reset_every: _Optional[int] = ..., lead_pass: _Optional[bool] = ..., pass_limit: _Optional[int] = ...) -> None: ...

class TrickPlay(_message.Message):
    __slots__ = ("seat", "play")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    seat: int
    play: str
    def __init__(self, seat: _Optional[int] = ..., play: _Optional[str] = ...) -> None: ...

class PendingGift(_message.Message):
    __slots__ = ("giver", "receiver", "count")
    GIVER_FIELD_NUMBER: _ClassVar[int]
    RECEIVER_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    giver: int
    receiver: int
    count: int
    def __init__(self, giver: _Optional[int] = ..., receiver: _Optional[int] = ..., count: _Optional[int] = ...) -> None: ...

class ExchangeView(_message.Message):
    __slots__ = ("giver", "receiver", "count", "cards", "cards_known", "automatic")
    GIVER_FIELD_NUMBER: _ClassVar[int]
    RECEIVER_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    CARDS_KNOWN_FIELD_NUMBER: _ClassVar[int]
    AUTOMATIC_FIELD_NUMBER: _ClassVar[int]
    giver: int
    receiver: int
    count: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    cards_known: bool
    automatic: bool
    def __init__(self, giver: _Optional[int] = ..., receiver: _Optional[int] = ..., count: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., cards_known: _Optional[bool] = ..., automatic: _Optional[bool] = ...) -> None: ...

class HistoryEntry(_message.Message):
    __slots__ = ("round", "seat", "action", "hidden")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    HIDDEN_FIELD_NUMBER: _ClassVar[int]
    round: int
    seat: int
    action: str
    hidden: bool
    def __init__(self, round: _Optional[int] = ..., seat: _Optional[int] = ..., action: _Optional[str] = ..., hidden: _Optional[bool] = ...) -> None: ...

class RoundResult(_message.Message):
    __slots__ = ("round", "went_out", "ranking", "roles", "points", "penalized", "exchanges")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    WENT_OUT_FIELD_NUMBER: _ClassVar[int]
    RANKING_FIELD_NUMBER: _ClassVar[int]
    ROLES_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    PENALIZED_FIELD_NUMBER: _ClassVar[int]
    EXCHANGES_FIELD_NUMBER: _ClassVar[int]
    round: int
    went_out: _containers.RepeatedScalarFieldContainer[int]
    ranking: _containers.RepeatedScalarFieldContainer[int]
    roles: _containers.RepeatedScalarFieldContainer[Role]
    points: _containers.RepeatedScalarFieldContainer[int]
    penalized: _containers.RepeatedScalarFieldContainer[int]
    exchanges: _containers.RepeatedCompositeFieldContainer[ExchangeView]
    def __init__(self, round: _Optional[int] = ..., went_out: _Optional[_Iterable[int]] = ..., ranking: _Optional[_Iterable[int]] = ..., roles: _Optional[_Iterable[_Union[Role, str]]] = ..., points: _Optional[_Iterable[int]] = ..., penalized: _Optional[_Iterable[int]] = ..., exchanges: _Optional[_Iterable[_Union[ExchangeView, _Mapping]]] = ...) -> None: ...
