"""Which actions are legal, generated in a fixed order or checked one at a time.

Order of ``legal_actions`` (documented, deterministic):

1. Exchange phase: every set of the owed number of cards, as
   ``itertools.combinations`` of the hand in canonical card order (so the
   lowest cards come first).
2. Leading a trick: groups by size (singles, pairs, triples, quads, then groups
   of five); within a size, ranks from weakest to strongest in the order in
   force; within a rank, more natural cards before more jokers, then by suit
   bits; the single jokers follow the singles. Then straights by length,
   weakest to strongest in the order in force, then by suit. Under the suit
   lock a group with a joker comes once per card its joker may name, in suit
   order. With ``lead_pass``, ``pass`` last.
3. Following: the plays of the trick's kind and size that beat (or, with equal
   match, equal) the top play, in the same order, then ``pass`` last.

``check_play`` answers "is this play legal?" without generating anything, and
raises the specific error when it is not.
"""

from __future__ import annotations

from itertools import combinations

from engine.cards import JOKER_BITS, RANKS, SUIT_CHARS, single_bits
from engine.errors import (
    CannotPassLead, CardNotInHand, GroupOnStraight, JokerUnnamed, NotStrongEnough,
    OptionDisabled, StraightOnGroup, SuitLocked, WrongSize,
)
from engine.plays import (
    PASS, Give, Play, PlayKind, group_play, joker_play, straight_play,
)
from engine.rules import Rules

_MAX_RANK = RANKS - 1  # the 2
# (an Enum member read through its class costs about a microsecond on Python 3.11)
_GROUP, _STRAIGHT, _JOKER = PlayKind.GROUP, PlayKind.STRAIGHT, PlayKind.JOKER
_JOKERS = (1 << 52, 1 << 53)
SPADE_THREE = 1 << 3  # rank 3 (0), spades (suit 3): beats the single joker where allowed


def strength(rank: int, reversed_: bool) -> int:
    """How strong a rank is in the order in force: 0 weakest … 12 strongest."""
    return _MAX_RANK - rank if reversed_ else rank


def play_strength(play: Play, reversed_: bool) -> int:
    """Groups by rank; straights by their highest card, or by their lowest during a
    revolution; the single joker above everything in either order."""
    if play.kind is _JOKER:
        return RANKS
    if play.kind is _STRAIGHT:
        return _MAX_RANK - play.rank if reversed_ else play.high
    return _MAX_RANK - play.rank if reversed_ else play.rank


# --- precomputed tables --------------------------------------------------------------

# _SUBNIBS[k][n]: the subsets of suit-nibble n with k cards, in increasing bit order.
_SUBNIBS = [[tuple(s for s in range(1, 16) if s & n == s and s.bit_count() == k)
             for n in range(16)] for k in range(5)]
# _ORDER[reversed]: ranks from weakest to strongest.
_ORDER = (tuple(range(RANKS)), tuple(range(_MAX_RANK, -1, -1)))


def _joker_subsets(jokers: int, count: int) -> tuple[int, ...]:
    """The ways to take ``count`` jokers from the held ones; with both held, taking one
    can be either (they are different cards), taking two is one way."""
    held = [b for b in _JOKERS if jokers & b]
    return tuple(sum(c) for c in combinations(held, count))


_JSUBS = {j: [_joker_subsets(j, k) for k in range(5)] for j in (0, _JOKERS[0], _JOKERS[1], JOKER_BITS)}


def _window(low: int, length: int) -> int:
    """The suit-0 bit of each rank in [low, low + length)."""
    return sum(1 << (4 * r) for r in range(low, low + length))


# _SUITS_EVERY_RANK[suits]: the cards of those suits (bit per suit), every rank.
_SUITS_EVERY_RANK = [sum(suits << (4 * r) for r in range(RANKS)) for suits in range(16)]
_WINDOWS = [[_window(low, length) for length in range(RANKS + 1)] for low in range(RANKS)]


# --- generation ----------------------------------------------------------------------


def beating_ranks(top_rank: int, reversed_: bool, equal: bool) -> tuple[int, ...]:
    """Ranks whose groups beat (or equal) a group of ``top_rank``, weakest first."""
    order = _ORDER[reversed_]
    start = order.index(top_rank) + (0 if equal else 1)
    return order[start:]


_BEATING = {(t, rv, eq): beating_ranks(t, rv, eq)
            for t in range(RANKS) for rv in (False, True) for eq in (False, True)}
# The same as card masks: every suit of every beating rank.
# _BEATING_MASKS[equal_match][reversed][rank], lists: the hot path indexes, not hashes.
_BEATING_MASKS = [[[sum(15 << (4 * r) for r in _BEATING[t, rv, eq]) for t in range(RANKS)]
                   for rv in (False, True)] for eq in (False, True)]


def _rank_groups(r: int, nib: int, size: int, jokers: int) -> tuple[Play, ...]:
    """The groups of ``size`` of rank ``r`` from its naturals ``nib`` and the held
    ``jokers``: more naturals first, then by suit bits, then by jokers."""
    jsubs = _JSUBS[jokers]
    least = max(1, size - jokers.bit_count())
    return tuple(group_play(r, sub << (r << 2) | js)
                 for naturals in range(min(nib.bit_count(), size), least - 1, -1)
                 for sub in _SUBNIBS[naturals][nib] for js in jsubs[size - naturals])


# _HELD_GROUPS[jokers >> 52][size][r][nib]: ``_rank_groups``, for every hand.
_HELD_GROUPS = [[[[_rank_groups(r, nib, size, j) for nib in range(16)] for r in range(RANKS)]
                 for size in range(5)] for j in (0, _JOKERS[0], _JOKERS[1], JOKER_BITS)]


def _groups(hand: int, size: int, ranks: tuple[int, ...], out: list[Play]) -> None:
    """Groups of ``size`` among ``ranks`` (weakest first), jokers standing in."""
    table = _HELD_GROUPS[hand >> 52][size]
    for r in ranks:
        nib = (hand >> (r << 2)) & 15
        if nib:
            out.extend(table[r][nib])


# _BY_SIZE[r][nib][k]: the joker-free groups of rank r, size k, from suit-nibble nib.
_BY_SIZE = [[tuple(tuple(group_play(r, sub << (4 * r)) for sub in _SUBNIBS[k][nib])
                   for k in range(5)) for nib in range(16)] for r in range(RANKS)]


# The joker-free groups of two ranks at a time (a byte of the mask holds ranks 2p and
# 2p + 1): _PAIR_SIZE[reversed][p][byte][size], weakest rank first in that order, and
# _PAIR_SIZES[reversed][p][byte]: (size, groups) for each size present. Half as many
# visits as rank by rank, on the engine's hottest path.
def _pair_table(reversed_: bool, p: int) -> list[tuple[tuple[Play, ...], ...]]:
    low = _BY_SIZE[2 * p]
    high = _BY_SIZE[2 * p + 1] if 2 * p + 1 < RANKS else [((),) * 5] * 16
    if reversed_:
        return [tuple(h + lo for lo, h in zip(low[b & 15], high[b >> 4])) for b in range(256)]
    return [tuple(lo + h for lo, h in zip(low[b & 15], high[b >> 4])) for b in range(256)]


_BYTES = (RANKS + 1) // 2
_PAIR_SIZE = [[_pair_table(rv, p) for p in range(_BYTES)] for rv in (False, True)]
_PAIR_SIZES = [[[tuple((k, row[k]) for k in range(1, 5) if row[k]) for row in by_byte]
                for by_byte in table] for table in _PAIR_SIZE]


def _plain_groups(naturals: int, size: int, reversed_: bool, out: list[Play]) -> None:
    """Fast path without jokers: visit only the bytes (two ranks) present, weakest first."""
    if reversed_:
        table = _PAIR_SIZE[True]
        while naturals:
            p = (naturals.bit_length() - 1) >> 3
            out.extend(table[p][(naturals >> (p << 3)) & 255][size])
            naturals &= (1 << (p << 3)) - 1  # drop these two ranks and the stronger ones
    else:
        table = _PAIR_SIZE[False]
        while naturals:
            p = ((naturals & -naturals).bit_length() - 1) >> 3
            out.extend(table[p][(naturals >> (p << 3)) & 255][size])
            naturals &= -1 << ((p + 1) << 3)


def _plain_leads(naturals: int, reversed_: bool) -> list[list[Play]]:
    """Fast path without jokers: all groups by size, in one visit of the bytes (two ranks
    each) present."""
    by_size: list[list[Play]] = [[], [], [], [], []]
    table = _PAIR_SIZES[reversed_]
    while naturals:
        # the weakest two ranks left in the order in force
        p = (naturals.bit_length() - 1 if reversed_ else (naturals & -naturals).bit_length() - 1) >> 3
        for k, groups in table[p][(naturals >> (p << 3)) & 255]:
            by_size[k].extend(groups)
        naturals &= ~(255 << (p << 3))
    return by_size


# Joker-free straights are runs within a suit: _SUIT_LANES[p][byte] spreads a byte of
# the hand (ranks 2p and 2p + 1, four suits each) to one 16-bit lane a suit (suit s's
# rank r at bit 16s + r), where a run of length k is k shifted copies ANDed together.
def _lanes(p: int, byte: int) -> int:
    return sum(1 << (16 * (bit & 3) + 2 * p + (bit >> 2)) for bit in range(8)
               if byte >> bit & 1 and 2 * p + (bit >> 2) < RANKS)


_SUIT_LANES = [[_lanes(p, byte) for byte in range(256)] for p in range(_BYTES)]
_LANE = (1 << RANKS) - 1
# _PLAIN_STRAIGHTS[length][low][suits]: the joker-free straights from ``low`` in each
# suit of the nibble ``suits``, in suit order.
_PLAIN_STRAIGHTS = [[[tuple(straight_play(low, length, s, _WINDOWS[low][length] << s)
                            for s in range(4) if suits >> s & 1) for suits in range(16)]
                     if low + length <= RANKS else [] for low in range(RANKS)]
                    if length >= 3 else [] for length in range(RANKS + 1)]


def _suit_lanes(naturals: int) -> int:
    lanes, p = 0, 0
    while naturals:
        lanes |= _SUIT_LANES[p][naturals & 255]
        naturals >>= 8
        p += 1
    return lanes


def _runs(lanes: int, length: int) -> int:
    """The lanes' bits where a run of ``length`` starts (its lowest rank)."""
    starts = lanes
    for k in range(1, length):
        starts &= lanes >> k
    return starts


def _plain_lead_straights(hand: int, reversed_: bool, out: list[Play]) -> None:
    """Every joker-free straight, by length, until a length has none."""
    lanes = _suit_lanes(hand)
    starts = lanes & lanes >> 1
    for length in range(3, RANKS + 1):
        starts &= lanes >> (length - 1)
        if not starts:
            return
        _plain_straights(starts, length, reversed_, out)


def _plain_straights(starts: int, length: int, reversed_: bool, out: list[Play],
                     min_strength: int = -1) -> None:
    """Fast path without jokers: the straights of ``length`` starting at ``starts``
    (``_runs``) whose strength is at least ``min_strength``, weakest first, then by suit."""
    lows = (starts | starts >> 16 | starts >> 32 | starts >> 48) & _LANE
    if reversed_:  # strength 12 - low
        lows &= (1 << max(0, RANKS - min_strength)) - 1 if min_strength > 0 else -1
    elif min_strength > length - 1:  # strength low + length - 1
        lows &= -1 << (min_strength - length + 1)
    table = _PLAIN_STRAIGHTS[length]
    while lows:
        low = lows.bit_length() - 1 if reversed_ else (lows & -lows).bit_length() - 1
        lows ^= 1 << low
        x = starts >> low
        out.extend(table[low][x & 1 | x >> 15 & 2 | x >> 30 & 4 | x >> 45 & 8])


def _single_jokers(hand: int, out: list[Play]) -> None:
    for bit in _JOKERS:
        if hand & bit:
            out.append(joker_play(bit))


def _straights(hand: int, length: int, reversed_: bool, out: list[Play],
               min_strength: int = -1, past_ends: bool = False) -> bool:
    """Append the straights of ``length`` whose strength is at least ``min_strength``
    (``past_ends``: a joker may stand below the 3 or above the 2). Returns whether the
    hand holds any straight of that length at all."""
    jokers = hand & JOKER_BITS
    njokers = jokers.bit_count()
    first, last = (-1, RANKS - length + 1) if past_ends and jokers else (0, RANKS - length)
    lows = range(last, first - 1, -1) if reversed_ else range(first, last + 1)
    found = False
    for low in lows:
        strength_ = _MAX_RANK - low if reversed_ else low + length - 1
        if 0 <= low <= RANKS - length:
            window = _WINDOWS[low][length]
        else:  # the naturals' part; the place past the end is a joker's (missing below)
            window = _WINDOWS[max(low, 0)][min(low + length, RANKS) - max(low, 0)]
        for suit in range(4):
            w = window << suit
            have = hand & w
            if not have:
                continue
            missing = length - have.bit_count()
            if missing > njokers:
                continue
            found = True
            if strength_ < min_strength:
                continue
            if not njokers:
                out.append(straight_play(low, length, suit, have))
                continue
            _straights_with_jokers(low, length, suit, have, missing, jokers, out)
    return found


def _straights_with_jokers(low: int, length: int, suit: int, have: int, missing: int,
                           jokers: int, out: list[Play]) -> None:
    """Jokers fill the missing places, and may also stand in for held naturals."""
    naturals = single_bits(have)
    spare = jokers.bit_count() - missing
    for extra in range(0, min(spare, len(naturals) - 1) + 1):
        for removed in combinations(naturals, extra):
            kept = have ^ sum(removed)
            for js in _JSUBS[jokers][missing + extra]:
                out.append(straight_play(low, length, suit, kept | js))



def lead_plays(hand: int, rules: Rules, reversed_: bool) -> list[Play]:
    out: list[Play]
    if hand & JOKER_BITS:
        out = []
        order = _ORDER[reversed_]
        for size in (1, 2, 3, 4):
            _groups(hand, size, order, out)
            if size == 1:
                _single_jokers(hand, out)
        if rules.five_card_groups:
            _five_card_groups(hand, order, out)
        if rules.suit_lock:
            out = _name_jokers(out, 0)
    else:
        _, out, pairs, triples, quads = _plain_leads(hand, reversed_)
        out += pairs
        out += triples
        out += quads
    if rules.straights:
        if hand & JOKER_BITS:
            past_ends = rules.jokers_extend_straights
            for length in range(3, min(RANKS + 2 * past_ends, hand.bit_count()) + 1):
                if not _straights(hand, length, reversed_, out, past_ends=past_ends):
                    break  # no window of this length fits, so no longer one does
        else:
            _plain_lead_straights(hand, reversed_, out)
    return out


def follow_plays(hand: int, top: Play, rules: Rules, reversed_: bool,
                 lock: int = 0) -> list[Play]:
    """Plays that may go on ``top`` (the trick locked to the suits ``lock``, if any),
    then ``pass``."""
    out: list[Play] = []
    kind = top.kind
    jokers = hand & JOKER_BITS
    if lock and not jokers:  # only the locked suits' cards may go (no joker to name)
        hand &= _SUITS_EVERY_RANK[lock & 15]
        lock = 0
    if kind is _GROUP:
        size = top.size
        if not jokers:  # the common case first: no joker in hand, no group of 5
            if size < 5:
                _plain_groups(hand & _BEATING_MASKS[rules.equal_match][reversed_][top.rank],
                              size, reversed_, out)
        elif size == 5:
            _five_card_groups(hand, _BEATING[top.rank, reversed_, rules.equal_match], out)
        else:
            _groups(hand, size, _BEATING[top.rank, reversed_, rules.equal_match], out)
            if size == 1:
                _single_jokers(hand, out)
    elif kind is _STRAIGHT and top.size <= hand.bit_count():
        if not jokers:
            starts = _runs(_suit_lanes(hand), top.size)
            if starts:
                _plain_straights(starts, top.size, reversed_, out,
                                 _straight_needs(top, rules, reversed_))
        else:
            _straights(hand, top.size, reversed_, out, _straight_needs(top, rules, reversed_),
                       rules.jokers_extend_straights)
    elif kind is _JOKER and rules.spade_three_beats_joker and hand & SPADE_THREE:
        out.append(group_play(0, SPADE_THREE))
    # else nothing beats or equals the single joker: only the pass remains
    if rules.suit_lock and out and jokers:
        out = _name_jokers(out, lock)
    out.append(PASS)
    return out


def _five_card_groups(hand: int, ranks: tuple[int, ...], out: list[Play]) -> None:
    """The four naturals of a rank and a joker, ranks weakest first."""
    for r in ranks:
        if (hand >> (r << 2)) & 15 == 15:
            for bit in _JOKERS:
                if hand & bit:
                    out.append(group_play(r, 15 << (r << 2) | bit))


def lock_of(trick: tuple[tuple[int, Play], ...]) -> int:
    """The suits the trick is locked to (bit per suit), or 0: two plays in a row with
    exactly the same suits lock it; a single joker lifts the lock (UECDA.md §2.3).
    Read from the last two plays alone: once locked, every later play has the locked
    suits until a single joker, after which only the closing 3 of spades may come."""
    if len(trick) < 2:
        return 0
    last = trick[-1][1]
    if last.suits == trick[-2][1].suits and last.kind is not _JOKER:
        return last.suits
    return 0


def _name_jokers(plays: list[Play], lock: int) -> list[Play]:
    """Under the suit lock a group's joker names the card it stands for, since its suit
    counts: every choice of free suits, or under a lock the locked ones it needs. Plays
    without the locked suits go (the single joker may still go on a locked single)."""
    out: list[Play] = []
    for play in plays:
        if play.kind is _GROUP and not play.names_joker_suits:
            naturals, jokers = play.suits, play.jokers
            if lock:
                named = lock & ~naturals
                if not naturals & ~lock and named.bit_count() == jokers:
                    out.append(group_play(play.rank, play.mask, named))
            else:
                for named in _SUBNIBS[jokers][15 & ~naturals]:
                    out.append(group_play(play.rank, play.mask, named))
        elif not lock or play.suits == lock or play.kind is _JOKER:
            out.append(play)
    return out


def _straight_needs(top: Play, rules: Rules, reversed_: bool) -> int:
    """The least strength (``play_strength``) of a straight that may go on ``top``:
    stronger by its highest card (its lowest in a revolution), or equal with equal
    match; with ``straights_above``, every card stronger than every card of ``top``
    (its lowest above top's highest, mirrored in a revolution), equal match or not."""
    if rules.straights_above:
        return play_strength(top, reversed_) + top.size
    return play_strength(top, reversed_) + (0 if rules.equal_match else 1)


def gives(hand: int, count: int) -> list[Give]:
    return [Give(sum(combo)) for combo in combinations(single_bits(hand), count)]


# --- checking ------------------------------------------------------------------------


def suit_letters(suits: int) -> str:
    """``HS`` for hearts and spades: a suit set's suits in canonical order."""
    return "".join(SUIT_CHARS[s] for s in range(4) if suits >> s & 1)


def format_suits(suits: int) -> str:
    """A suit set as text, with ``+joker`` for a group of five's joker row."""
    return suit_letters(suits) + ("+joker" if suits >> 4 & 1 else "")


def _check_joker_group(play: Play, rules: Rules) -> None:
    if play.size == 5 and not rules.five_card_groups:
        raise OptionDisabled("5-card groups (four of a kind and a joker) are not played "
                             "under these rules")
    if play.size < 5 and rules.suit_lock and not play.names_joker_suits:
        raise JokerUnnamed(f"under the suit lock a joker names the card it stands for, "
                           f"as in '{play.cards[0]} JR=…': {play} does not")
    if play.size < 5 and not rules.suit_lock and play.names_joker_suits:
        raise OptionDisabled(f"{play}: a joker names its card only under the suit lock")


def check_play(hand: int, top: Play | None, play: Play, rules: Rules, reversed_: bool,
               lock: int = 0) -> None:
    """Raise the specific ``IllegalAction`` if ``play`` may not be made now (the trick
    locked to the suits ``lock``, if any)."""
    if not play:
        if top is None and not rules.lead_pass:
            raise CannotPassLead("the leader must play: a trick cannot open with a pass")
        return
    if play.kind is _STRAIGHT and not rules.straights:
        raise OptionDisabled("straights are not played under these rules")
    if play.kind is _STRAIGHT and (play.rank < 0 or play.high >= RANKS) \
            and not rules.jokers_extend_straights:
        raise OptionDisabled(f"{play}: a joker does not extend a straight below the 3 or "
                             "above the 2 under these rules")
    if play.kind is _GROUP and (play.size == 5 or play.mask & JOKER_BITS):
        _check_joker_group(play, rules)
    if play.mask & ~hand:
        raise CardNotInHand(f"{play} uses cards that are not in your hand")
    if top is None:
        return
    if top.kind is _STRAIGHT:
        if play.kind is not _STRAIGHT:
            raise GroupOnStraight(f"this trick is played with straights of {top.size}: {play} is not one")
    elif play.kind is _STRAIGHT:
        raise StraightOnGroup(f"this trick is played with groups of {top.size}: a straight cannot follow")
    if play.size != top.size:
        raise WrongSize(f"this trick is played with {top.size} card(s) a play, not {play.size}")
    if lock and play.suits != lock and play.kind is not _JOKER:
        raise SuitLocked(f"the trick is locked to {format_suits(lock)}: {play} is not")
    if top.kind is _JOKER:
        if rules.spade_three_beats_joker and play.mask == SPADE_THREE:
            return
        raise NotStrongEnough("nothing beats or equals the single joker"
                              + (" but the 3 of spades" if rules.spade_three_beats_joker
                                 else ""))
    mine = play_strength(play, reversed_)
    if top.kind is _STRAIGHT:
        if mine < _straight_needs(top, rules, reversed_):
            raise NotStrongEnough(f"{play} does not beat {top}"
                                  + (": every card must be stronger" if rules.straights_above
                                     else "")
                                  + (" (revolution order in force)" if reversed_ else ""))
        return
    theirs = play_strength(top, reversed_)
    if mine < theirs or (mine == theirs and not rules.equal_match):
        needed = "beat or equal" if rules.equal_match else "beat"
        raise NotStrongEnough(f"{play} does not {needed} {top}"
                              + (" (revolution order in force)" if reversed_ else ""))
