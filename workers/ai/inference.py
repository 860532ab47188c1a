"""What the round's passes and leads suggest of the hidden hands, if the others play as
the rollouts do.

The rules let a seat pass with a playable hand, so ``knowledge`` takes nothing from a
pass. The searches' rollouts, though, play every seat as Normal, which passes only when
nothing fits and leads its cheapest play; sampling the hidden hands as if the others
played that way too keeps the deals and the rollouts of one mind. A seat's hand when it
acted was its hand now and the cards it has played since, so

- after a pass on a single card, the hidden cards that could have gone alone are out
  of its hand: a narrower ``Knowledge.allowed``, which ``sample_hands`` samples;
- after a pass on anything larger, a deal is drawn again (up to ``TRIES`` times) while
  that hand would have held such a play;
- after a lead, the ranks it would have led instead (a clean group weaker than the
  play, any clean group if the play could not be clean) are out of its hand;
- (Expert) after a play on the trick or a lead, a deal is drawn again while that hand
  would have made Normal play something else there (a cleaner or weaker play, the
  exact check the mask above only approximates for leads).

A belief the seat's known cards or its hand size contradict (it did not play as Normal)
is dropped, so a view never becomes impossible. Which play each pass was made on, in
which order and under which lock, the engine says: the round's public actions are
replayed with stand-ins for the hidden cards (only whether a hand is empty matters to
whose turn it is and who wins a trick).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from engine import apply_unchecked
from engine.cards import RANKS, mask_of
from engine.determinize import state_from_view
from engine.legal import follow_plays, lead_plays, lock_of, strength
from engine.observe import HistoryEntry, View
from engine.plays import Play, PlayKind
from engine.rules import Rules
from engine.state import Phase
from workers.ai.endgame import choice, suits_matter
from workers.ai.heuristics import normal_choice, power_rank, weak_strength
from workers.ai.knowledge import Knowledge, sample_hands

TRIES = 20  # draws of a deal before one holding a play a pass denies is kept anyway
_STAND_IN = 1 << 64  # a card no deck holds: stands for a hidden hand in the replay


@dataclass(frozen=True, slots=True)
class PassSeen:
    """``seat`` passed on ``top`` (the order ``reversed``, the trick locked to the suits
    ``lock``, 0: none) and has played the cards ``since`` in this round after it."""

    seat: int
    top: Play
    reversed: bool
    lock: int
    since: int = 0


@dataclass(frozen=True, slots=True)
class LeadSeen:
    """``seat`` led ``play`` (the order ``reversed``) and has played the cards ``since``
    in this round after it."""

    seat: int
    play: Play
    reversed: bool
    since: int = 0


@dataclass(frozen=True, slots=True)
class FollowSeen:
    """``seat`` played ``play`` on ``top`` (the order ``reversed``, the lock ``lock``) and
    has played the cards ``since`` in this round after it."""

    seat: int
    top: Play
    play: Play
    reversed: bool
    lock: int
    since: int = 0


@dataclass(frozen=True, slots=True)
class Evidence:
    passes: tuple[PassSeen, ...] = ()
    leads: tuple[LeadSeen, ...] = ()
    follows: tuple[FollowSeen, ...] = ()


def round_evidence(view: View) -> Evidence:
    """Every pass made on a play and every lead of this round so far, read by replaying
    the round's public actions (none if the history does not lead to the view's table)."""
    entries = [e for e in view.history if e.round_no == view.round_no
               and isinstance(e.action, Play)]
    played = [0] * view.players
    for e in entries:
        played[e.seat] |= e.action.mask  # type: ignore[union-attr]
    hands = [played[s] | (_STAND_IN if view.hand_sizes[s] else 0) for s in range(view.players)]
    if view.seat is not None:
        hands[view.seat] = played[view.seat] | mask_of(view.hand)
    state = state_from_view(view, [0] * view.players, check=False)._replace(
        phase=Phase.PLAY, hands=tuple(hands), to_act=view.leader, trick=(), passed=0,
        discard=0, reversed=False, went_out=(), penalized=0)
    passes: list[tuple[int, PassSeen]] = []
    leads: list[tuple[int, LeadSeen]] = []
    follows: list[tuple[int, FollowSeen]] = []
    for i, e in enumerate(entries):
        action = e.action
        assert isinstance(action, Play)
        if e.seat != state.to_act:
            return Evidence()  # not this round's story from its first lead (a partial history)
        if action and not state.trick:
            leads.append((i, LeadSeen(e.seat, action, state.reversed)))
        elif state.trick:
            lock = lock_of(state.trick) if view.rules.suit_lock else 0
            if action:
                follows.append((i, FollowSeen(e.seat, state.trick[-1][1], action,
                                              state.reversed, lock)))
            else:
                passes.append((i, PassSeen(e.seat, state.trick[-1][1], state.reversed, lock)))
        state = apply_unchecked(state, action)
    if state.trick != view.trick or state.to_act != view.to_act:
        return Evidence()
    after = _played_after(entries, view.players)
    return Evidence(tuple(replace(p, since=after[i]) for i, p in passes),
                    tuple(replace(p, since=after[i]) for i, p in leads),
                    tuple(replace(p, since=after[i]) for i, p in follows))


def _played_after(entries: list[HistoryEntry], players: int) -> list[int]:
    """For each entry, the cards its seat played after it (one walk back)."""
    since = [0] * players
    after = [0] * len(entries)
    for i in range(len(entries) - 1, -1, -1):
        seat = entries[i].seat
        after[i] = since[seat]
        since[seat] |= entries[i].action.mask  # type: ignore[union-attr]
    return after


def fits(hand: int, seen: PassSeen, rules: Rules) -> bool:
    """Would ``hand`` have held a play that could go where ``seen``'s seat passed?"""
    plays = follow_plays(hand, seen.top, rules, seen.reversed, seen.lock)
    return len(plays) > 1  # (the pass comes last)


@dataclass(frozen=True, slots=True)
class Beliefs:
    """Knowledge narrowed by the leads and the passes on single cards, and the other
    passes, the follows and the leads to check."""

    knowledge: Knowledge
    checks: tuple[PassSeen, ...]
    rules: Rules
    follows: tuple[FollowSeen, ...] = ()
    leads: tuple[LeadSeen, ...] = ()


def beliefs_of(view: View, k: Knowledge, *, distrust: bool = False,
               plays: bool = False) -> Beliefs:
    """With ``distrust``, nothing is believed of a seat once one of its passes or leads
    this round is shown not to be Normal's (``not_normal``): a player who passed with a
    play in hand once may have done it again where nothing it played since shows it.
    With ``plays``, every play made this round is checked too, exactly: on the trick
    (``follows_as_normal``) and as a lead (``leads_as_normal``)."""
    allowed = list(k.allowed)
    checks: list[PassSeen] = []
    rules = view.rules
    evidence = round_evidence(view)
    # the seats nothing is read of: this one, those out, those distrusted
    unread = 1 << k.seat | sum(1 << s for s, size in enumerate(k.sizes) if not size)
    unread |= not_normal(evidence, k, rules) if distrust else 0
    for seen in evidence.passes:
        s = seen.seat
        if unread >> s & 1:
            continue
        known = k.pinned[s] | seen.since
        if seen.top.size > 1:
            if not fits(known, seen, rules):
                checks.append(seen)
            continue
        out = 0  # every card that could have gone alone
        for play in follow_plays(allowed[s] | known, seen.top, rules, seen.reversed, seen.lock):
            out |= play.mask
        _narrow(allowed, s, out, known, k.sizes[s])
    for lead in evidence.leads:
        s = lead.seat
        if unread >> s & 1:
            continue
        known = k.pinned[s] | lead.since
        _narrow(allowed, s, _below_lead(lead, allowed[s] | known), known, k.sizes[s])
    if not plays:
        return Beliefs(replace(k, allowed=tuple(allowed)), tuple(checks), rules)
    return Beliefs(replace(k, allowed=tuple(allowed)), tuple(checks), rules,
                   tuple(f for f in evidence.follows if not unread >> f.seat & 1),
                   tuple(lead for lead in evidence.leads if not unread >> lead.seat & 1))


def follows_as_normal(hand: int, seen: FollowSeen, rules: Rules) -> bool:
    """Would Normal, holding ``hand`` now (and what it played since and then), have
    played ``seen.play`` where it did (the same choice: suits aside where they do not
    matter)?"""
    then = hand | seen.since | seen.play.mask
    plays = follow_plays(then, seen.top, rules, seen.reversed, seen.lock)
    return _same_choice(normal_choice(then, plays, seen.reversed, True), seen.play, rules)


def leads_as_normal(hand: int, seen: LeadSeen, rules: Rules) -> bool:
    """Would Normal, holding ``hand`` now (and what it played since and then), have led
    ``seen.play`` (the same choice)?"""
    then = hand | seen.since | seen.play.mask
    plays = lead_plays(then, rules, seen.reversed)
    return _same_choice(normal_choice(then, plays, seen.reversed, False), seen.play, rules)


def _same_choice(chosen: Play, play: Play, rules: Rules) -> bool:
    """Is Normal's ``chosen`` the play made (suits aside where they do not matter)?"""
    if chosen == play:
        return True
    suits = suits_matter(rules)
    return bool(chosen) and choice(chosen, suits) == choice(play, suits)


def not_normal(evidence: Evidence, k: Knowledge, rules: Rules) -> int:
    """The seats (a bit each) shown not to play as Normal this round: one passed on a
    play its known cards then (given to it, played since) could have beaten, or led a
    play above a clean group they show it held."""
    shown = 0
    for seen in evidence.passes:
        if fits(k.pinned[seen.seat] | seen.since, seen, rules):
            shown |= 1 << seen.seat
    for lead in evidence.leads:
        known = k.pinned[lead.seat] | lead.since
        if known & _below_lead(lead, k.allowed[lead.seat] | known):
            shown |= 1 << lead.seat
    return shown


def _narrow(allowed: list[int], seat: int, out: int, known: int, size: int) -> None:
    """Take ``out`` from the seat's allowed cards, unless its known cards or its size
    contradict that (it did not play as Normal)."""
    narrowed = allowed[seat] & ~out
    if out and not known & out and narrowed.bit_count() >= size:
        allowed[seat] = narrowed


def _below_lead(lead: LeadSeen, possible: int) -> int:
    """The cards Normal would not have held when it led ``lead.play`` (its hand then
    within ``possible``): it leads its cheapest play, so it held no clean group (every
    card of a rank, neither the strongest rank nor four) weaker than the play, nor any
    at all when the play could not be clean (a group or straight spending the strongest
    rank or a joker, a quad). Ranks it may hold all four of are kept."""
    play, reversed_ = lead.play, lead.reversed
    power = power_rank(reversed_)
    if play.kind is PlayKind.GROUP:
        clean = play.rank != power and play.size < 4 and not play.jokers
    elif play.kind is PlayKind.STRAIGHT:
        clean = not play.jokers and not play.rank <= power <= play.high
    else:
        return 0
    weakest = weak_strength(play, reversed_) if clean else RANKS
    out = 0
    for rank in range(RANKS):
        cards = 15 << (4 * rank)
        if rank != power and strength(rank, reversed_) < weakest and possible & cards != cards:
            out |= cards
    return out


def sample_believed(b: Beliefs, rng: random.Random) -> list[int]:
    """A deal consistent with the knowledge, drawn again while a seat's hand would have
    held a play one of its passes denies (the last draw is kept after ``TRIES``). With
    plays to check (Expert), also while a hand would have made Normal lead or follow
    otherwise than its seat did; of ``TRIES`` draws the one that breaks the fewest
    beliefs is kept."""
    hands = sample_hands(b.knowledge, rng)
    if b.follows or b.leads:
        return _fewest_broken(b, rng, hands)
    for _ in range(TRIES - 1):
        if not any(fits(hands[c.seat] | c.since, c, b.rules) for c in b.checks):
            break
        hands = sample_hands(b.knowledge, rng)
    return hands


def _fewest_broken(b: Beliefs, rng: random.Random, hands: list[int]) -> list[int]:
    best, fewest = hands, len(b.checks) + len(b.follows) + len(b.leads) + 1
    for _ in range(TRIES):
        broken = 0  # (counted only while it may still be the fewest)
        for c in b.checks:
            broken += fits(hands[c.seat] | c.since, c, b.rules)
        for f in b.follows:
            if broken >= fewest:
                break
            broken += not follows_as_normal(hands[f.seat], f, b.rules)
        for lead in b.leads:
            if broken >= fewest:
                break
            broken += not leads_as_normal(hands[lead.seat], lead, b.rules)
        if broken < fewest:
            best, fewest = hands, broken
            if not broken:
                break
        hands = sample_hands(b.knowledge, rng)
    return best
