"""Conflict resolution: does a new fact confirm, replace, or sit beside what the user said before?

Rules, in order:
0. A value said for a while, its end in sight ("I'm taking the tram until Thursday", "for the next two weeks",
   "swimming at the lido this week instead"), replaces nothing, whatever slot it is filed under and by every rule
   below (ingest.py skips rules 11-13 for it): the standing fact holds again when the while ends. Not a bound in
   the past ("lived in Oslo until last year"), a change said done ("this week I switched to ..."), an open end
   ("until further notice") or a correction.
1. Same slot (user, subject, attribute) and same value: confirmed, nothing new is stored.
2. The message names the value it replaces ("from Python to Rust", "no longer use Vim"): that value
   is superseded.
3. A single-valued canonical slot holds one value: a different value replaces it (a person lives in
   one city). For attributes no rule knows (generic "my X is Y" slots), the two facts must also be
   at least `conflict_threshold` similar, so a loose slot name cannot pair unrelated facts.
4. Accumulating slots (hobbies, pets, languages...) only change on an explicit switch ("switched
   to", "instead", "no longer") or correction, also one said earlier in the sentence ("oops, I meant Biscuit
   is the cat, my dog is called Pepper"): "I also play piano" leaves "I play guitar" alone.
5. A clause no rule understood, said with an update cue ("I've cut down to one coffee a day"),
   replaces the most similar memory in its (best-guess) slot when at least `conflict_threshold` similar.
   A guessed slot, above all the catch-all one, holds sentences about anything: the two must also compete
   (compete.competes) or both be short states of their person with the change said of the new one ("User is
   single" / "User is in a relationship now").
6. An update cue with no slot to match ("actually, it's at 10 now") searches the user's active
   memories by meaning and replaces the nearest one when it is at least `conflict_threshold +
   cue_margin` similar. Memories in accumulating slots (hobbies, pets) are never replaced this way.
Facts from the same message never replace each other, and a fact about one named person never
replaces a fact about another ("Dara Haddad switched jobs" leaves Dara Silva's job alone), also in a slot the
people of one conversation share ("Gina is working on ..." leaves "Jon is working on ..." alone). The names of
the people in the conversation (whom memories are about, who said them) are no topic and no value: in a chat
between John and Maria nearly every sentence names one of them.
7. Open world, for what the slot table misses (the fact was filed under another attribute, or under
   none): a clause that names an old memory's value with a switch ("sold the Clio", "replaced
   Rollbar with Sentry", "switched from Django to FastAPI") replaces that memory wherever it was
   filed; a change said of a thing ("changed the venue to …") replaces the memory filed under that thing or
   about it ("The wedding venue is …"); otherwise a memory about the same thing (a shared topic word) with a value of the same kind
   (compete.py) is replaced when the new one is a quantity or carries an update cue, and the two are
   at least `open_world_floor` similar. The same sentence said again with another value replaces the old
   one without any cue when the value is one its frame holds once: a time or an amount ("goes to bed at
   10:30" after "... around midnight"), or anything said of a definite thing ("Band practice is at ...");
   never a told event, a thing had or a plan (compete.restates). So does a time, amount or name given again of
   the same thing in other words (compete.same_thing: one owner, one head noun, qualifiers that do not
   disagree: "Emergency contact: my friend Joe" after "My emergency contact is my sister Ana", never "Our
   production server ..." after "Our staging server ..."). So does a role held once filled again in other
   words, when the two are at least `role_update_floor` similar (compete.fills_same_role: "User drives a
   Corolla" after "User's car is a Golf", "User banks with Starling" after "User's bank is Monzo"; never a
   plural or many-held role, a wish or denial, a past event, nor a verb that says more than the role: "rents a
   garage from Mr. Cole" is no new landlord). The same role named again in words with an update cue ("User's boss
   is Marcus now, seems decent" after "User's manager is Helen") replaces its holder at any similarity: the frame
   names the role, the cue says it changed hands; so does its doing with a name before it ("Fatima manages User
   now" after "User's manager at work is Derek"). A new sentence opening with a name holds it as a value
   (Candidate.opens_with_name). Accumulating slots (hobbies, tools, languages) are never replaced by topic alone,
   only when their value is named; a slot only guessed for a clause is no accumulating kind.
8. A bare value said as an update, with nothing of what it is the value of ("I'm on 68k now", "actually a
   43 in most brands": no topic word shared with any memory holding a value of its kind), replaces the
   memory holding a value of that kind it is nearest, when at least `value_update_floor` similar and no
   other such memory is within `value_update_margin` of it (two candidates: anyone's guess, nothing goes).
9. A name, time or amount said with an update cue in words none of the rules above pairs with the old fact
   ("all my pictures sync to iCloud now" after "I back up my photos to Google Photos") replaces the one memory
   holding a value of its kind that is nearest in meaning, when at least `cued_update_floor` similar and no
   other memory holding such a value is within `cued_update_margin` of it. The new sentence must say a value
   the old one lacks ("John" said in both is whom they are about), say it in place of something (not an
   addition, a wish, a denial or a one-off), not be said to the listener ("you'll love your new flat"), and
   carry a word of change: one that says an amount moved ("grew", "raised") changes no name ("grew up in
   Dublin"). Never a memory of an accumulating slot or someone else's; a sentence that names its own thing
   ("User's rent is 950 now") goes by that thing (rule 7).
10. An amount said as how far it moved ("put the rent up by 75", "got a 4k raise", "knocked 5 dollars off my
   phone plan", "10 more push-ups each morning now"; extraction/deltas.py) is no value of its own: it replaces the
   nearest memory (at least `delta_floor` similar) about the same thing, of the same person, holding one amount in
   a unit the change fits, and that memory is restated with the amount moved ("User's rent is 1275 a month."). With
   no such memory, and for an amount said in comparison ("5 cheaper than my gym"), it replaces nothing: none of the
   rules above reads its number as a new value ("User's rent is 75 a month."); a switch said beside it ("Moved the
   car insurance over to Admiral, Aviva wanted 300 more") still goes by the rules above.
11. A clause that says a value again, with a word of change, of a thing only its message's clause before names
   ("dentist kept cancelling on me, I see Dr. Brennan now", "energy bills went mad, we switched to EDF") replaces
   the memory of that thing: the clause before shares a topic word with it and is at least `clause_before_floor`
   similar to it, the memory holds a name, time or amount the clause says another of. The clause opens pointing
   back ("I", "we", "it's", "so ..."), not with a thing of its own ("my water bill is 30 now"); being somewhere now
   ("I'm at Costa now") holds nothing; never a memory of an accumulating slot or about someone else (ingest.py
   calls it with the previous clause and its nearest memories when the rules above replaced nothing).
12. A clause that says an old fact's frame again, its verb and preposition, with another value and a word of
   change, its thing said by a pronoun or the speaker ("book club outgrew the room, we meet at Jen's house now"
   after "Our book club meets at the library", "I get it from Rave now" after "My coffee subscription is from
   Pact", "they go out on Mondays now" after "The bins go out on Thursdays"; extraction/frames.py) replaces the
   memory said that way whose thing the rest of the message names, or the only memory said that way. "I'm with
   X" stands for a thing ("my broadband is with Virgin") only when the message names it. A clause that names a
   thing of its own ("my band rehearses at ...", "I buy my clothes at ...") is not this rule's; neither is a
   memory of an accumulating slot or about someone else (ingest.py calls it after rule 11).
13. A change said with a word pointing back ("it went up to 1,290", "they moved it to 5:30", "he moved to
   Manchester in the end", "not anymore, moved everything to Starling") replaces the newest memory holding a value
   of its kind among the user's last few messages (resolve.pointed_back; ingest.py calls it after rule 12 with the
   memories of those messages). A pronoun points no further back than that.
14. Another thing of the kind an old memory names (kinds.Kinds.kind_shared: two vegetables, two sweeteners, two
   board games), said with a word of change and in place of it, about the same thing (a topic word both say, or
   one the other names an instance of, with no qualifier of its own on each side: "the front garden" is not "the
   back garden"), replaces the nearest such memory at least `kind_update_floor` similar ("it's only lettuce up
   there now" after "User is growing tomatoes on the balcony"). Never a memory of an accumulating slot or someone
   else's; ingest restates the old sentence with the one word swapped (Plan.swapped).
15. An end said of a whole kind of thing ("gave up soft drinks", "dont touch spirits anymore", "I stopped eating fish
   altogether", "fizzy drinks are off the menu", "knocked the booze on the head"; compete.ended_kinds) replaces every
   memory of the same person naming a thing of that kind (kinds.Kinds.is_a: cola is a soft drink, whisky a spirit,
   salmon a fish; kinds.Kinds.covers: cheddar a dairy product, a piano a keyboard instrument) or made with it (an
   espresso with caffeine, a cigarette with nicotine) at least `ended_kind_floor` similar. Not
   an end only wished for ("should really cut out meat"), said of some days or one occasion ("no wine tonight"),
   or of someone else ("my husband quit alcohol").
16. The thing an old memory names, called by another word for it (kinds.Kinds.same_thing: "specs" and "glasses",
   "pram" and "stroller", "flat" and "apartment"), said with a word of change of one's own ("finally got new glasses,
   tortoiseshell Ray-Bans", "swapped to a lighter stroller", "got rid of the couch") replaces the nearest such memory
   at least `synonym_update_floor` similar. The two words share no stem, and MiniLM puts the two sentences far apart
   (0.15 to 0.2 for these), so the floor is low: the other word is what says they are one thing. The new sentence
   must say another value (or a switch or an end), in place of the old; never a wish, an addition, someone else's
   thing, or a memory of an accumulating slot. An end said of "the old" thing ("sold the old laptop", "binned my old
   kettle") ends the memory naming it by the same word too: "old" says which one. What the message says next as the
   new one ("the new one is a MacBook Air") then takes the ending's place (takes_the_place).
A single-valued canonical slot has one active value: an update replaces every active holder (also
one kept beside another), and within one message the later statement wins.
A new single-valued fact that does not replace the slot's holder is kept beside it, accumulating.

This module is a pure function of plain inputs: no engine, no SQL. The ingest pipeline fetches
the slot's state from the ledger and passes a "nearest by meaning" callable.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Callable

from .extraction import CATCH_ALL, SLOTS, Candidate, deltas, frames, value_key
from .extraction.vocabulary import ENDING_CUES, CuePattern
from .extraction.compete import (ADDS, about_a_person, another_of_its_kind, changed_thing, changes_level_of,
                                 changes_value_of, competes, ended_kinds, fills_same_role, held_values, holds_one,
                                 holds_users_role, in_place, measured_again, names_old_value, names_slot,
                                 names_subject, relation, NAMES_ITS_THING, qualified_apart, renames_role, restates,
                                 same_thing, states, things_said, topic_words, value_kind, value_kind_besides_when,
                                 value_kinds, values_differ, value_tokens)
from .extraction.voice import PAST_TENSE
from .kinds import Kinds, kinds_in
from .model import Memory
from .text import tokenize

STRONG_CUES = CuePattern(
    r"\b(?:switched|switching|switch|changed|changing|instead|no longer|any\s?more|replaced|migrated|migrating|"
    r"moved|moving|quit|stopped|gave up|ditched|dropped|correction|i meant|wrong|not .+ but)\b",
)


# Saying that one thing took another's place: enough to replace a memory whose value the clause names.
SWITCH_CUES = CuePattern(
    r"\b(?:switch(?:ed|ing)?|swapp?(?:ed|ing)?|replac(?:ed|ing|e)|traded|sold|cancel+(?:ed|led)?|ditch(?:ed)?|closed|"
    r"shut down|"
    r"dropped|quit|stopped|migrat(?:ed|ing)|ported|renamed|rewr(?:ote|itten|iting)|retired|no longer|any\s?more|"
    r"instead|scratch|not .+ but|moved (?:[\w'-]+\s+){0,3}?(?:off|away from|on from)|got rid of|"
    r"(?:not|never) going back to|done with|no going back|"
    # a thing of one's own that is no more: "the thinkpad is dead", "the civic finally died", "got my bike stolen"
    r"(?:is|was|'s) (?:finally |completely |totally )?(?:dead|gone|broken|kaput|toast|stolen|totalled|written off)"
    r"(?=\s*(?:$|[,.;:!?)]|(?:now|for good|lol|so|and|but|after|since|last|this|yesterday)\b))|died|broke down|(?:got|was) stolen|"
    r"gave away|given away|wrote off|totalled|cracked|smashed|shattered|stopped working|packed up|conked out|"
    r"gave up the ghost|bit the dust|fell apart|"
    # a thing thrown out, a person one parted from
    r"ripped out|tore out|threw out|thrown out|binned|scrapped|axed|killed off|split up|broke up|divorced)\b",
)
# Saying that what holds is now another one. Rule 9 takes only these for a name or a time: the words that say an
# amount went up or down ("grew", "raised") change no name ("grew up in Dublin").
_CHANGE_WORDS = (
    r"now|new|latest|these days|nowadays|since|anymore|no longer|instead|actually|upgrad(?:e|ed|ing)|"
    r"downgrad(?:e|ed|ing)|promoted|demoted|migrat(?:ed|ing)|switch(?:ed|ing)?|mov(?:ed|ing)|relocated|"
    r"replac(?:ed|ing)|swapped|traded|ported|renamed|rewr(?:ote|itten|iting)|changed|shifted|slipped|slid|rescheduled|"
    r"postponed|pushed|updated|(?:went|gone) with|(?:not|never) going back|done with|"
    # a role or task that passed to someone else: "her student took over my lessons", "handed over to Viktor"
    r"(?:took|taken|takes|taking) over|hand(?:ed|s|ing) (?:it |them |us |me )?over|"
    # a change that takes effect later: "1350 from next month", "starting next week"
    r"(?:from|starting|as of) (?:next|this|the (?:next|start of)) (?:week|month|year|term|season|spring|summer|"
    r"autumn|winter)"
)
_AMOUNT_CHANGE_WORDS = (
    r"rais(?:ed|e)|lower(?:ed)?|increas(?:ed|e)|decreas(?:ed|e)|bump(?:ed)?|dropped|went (?:up|down)|upped|hiked|"
    r"doubled|halved|tripled|reduced|up to|down to|cut (?:down|back)|grew|shrank|"
    r"(?:went|gone) (?:down |up )?to (?=\d|(?:one|two|three|four|five|six|seven|eight|nine|ten)\b)"
)
CHANGE_CUES = CuePattern(rf"\b(?:{_CHANGE_WORDS})\b")
# Saying that a value changed, for a memory about the same thing with a value of the same kind. Whole words ("new"
# is not in "newsletter"); an amount word may take an "s" ("the landlord raises it").
OPEN_CUES = CuePattern(rf"\b(?:{_CHANGE_WORDS}|(?:{_AMOUNT_CHANGE_WORDS})s?)\b")
# Saying one has gone off a thing, with what one has instead these days ("been on oat lattes lately, flat whites feel
# too strong", "audiobooks on the commute these days, podcasts got repetitive"): the thing named is replaced. Without
# the word for "these days", or with "but"/"still", it is a complaint about something one keeps.
_SOURED = re.compile(r"\b(?:got|gets|getting|feel|feels|felt|taste|tastes|are|is|was|were|became|become)\s+"
                     r"(?:a bit\s+|way\s+|far\s+|so\s+|kind of\s+|kinda\s+)?(?:too\s+(?:strong|sweet|bitter|heavy|"
                     r"rich|milky|salty|spicy|greasy|expensive|pricey|much)|boring|old|repetitive|stale|samey|tedious|bland|"
                     r"meh)\b", re.IGNORECASE)
_LATELY = re.compile(r"\b(?:lately|these days|nowadays|now|recently|anymore|any more)\b", re.IGNORECASE)
_KEPT_ANYWAY = re.compile(r"\b(?:but|still|though|although|love|loving|enjoy|worth it)\b", re.IGNORECASE)


def gone_off(clause: str) -> bool:
    """Does a clause say one has gone off something, with "lately" or the like for what holds instead?"""
    return bool(_SOURED.search(clause) and _LATELY.search(clause) and not _KEPT_ANYWAY.search(clause))


# Rule 0. A value said for a stretch of time whose end is in sight: "until Thursday", "till the end of the month",
# "until the roadworks are done", "for the next two weeks", or "instead" with a day or "for now".
_UNTIL = re.compile(
    r"\b(?:until|till|til|thru)\s+(?:(?:next|this|the end of(?:\s+(?:the|this|next))?)\s+)?"
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|(?:the\s+)?weekend|week|month|"
    r"it(?:'s|\s+is)\s+(?:fixed|repaired|back|over|done|sorted|open)|"
    r"(?:the\s+)?(?:strikes?|repairs?|works|renovations?|roadworks|building work)\b)", re.IGNORECASE)
_NEXT_SPAN = re.compile(r"\bfor\s+the\s+(?:next|coming)\s+(?:(?:few|couple of|\d+|two|three|four|five)\s+)?"
                        r"(?:days?|weeks?|nights?|months?)\b", re.IGNORECASE)
_INSTEAD = re.compile(r"\binstead\b(?!\s+of\b)", re.IGNORECASE)
# One occasion or a short stretch: with "instead", a value for a while (rule 0); in a part pointing back, a one-off
# that replaces nothing (rule 13: "it's at the Hilton this time", "we're at my mum's for now").
_ONE_OCCASION = re.compile(r"\b(?:today|tonight|tomorrow|this (?:time|once|week|weekend|morning|afternoon|evening)|"
                           r"for (?:now|today|tonight|the week))\b", re.IGNORECASE)
# Said of the past, the bound ends an old fact ("I lived in Oslo until last year", "I worked at Acme until
# Friday"): no exception to a current one. A change said done is no exception either ("this week I switched ...").
_DONE_OR_PAST = re.compile(r"\b(?:was|were|used to|lived|worked|switched|moved|changed|replaced|swapped|ditched|"
                           r"migrated|upgraded|sold|quit|left|cancell?ed)\b", re.IGNORECASE)


FOR_A_WHILE = "a value said for a while, its end in sight, sits beside the standing one"


def for_a_while(clause: str) -> bool:
    """Is a clause a value held for a while, beside the standing one ("I'm taking the tram until Thursday" next
    to "User cycles to work")? Such a clause replaces nothing: the standing fact holds again when the while ends,
    and a question about how things normally are still has its answer."""
    if _DONE_OR_PAST.search(clause):
        return False
    return bool(_UNTIL.search(clause) or _NEXT_SPAN.search(clause)
                or (_INSTEAD.search(clause) and _ONE_OCCASION.search(clause)))


# Saying that something one was doing is done, and a memory of something going on ("User is reading Dune").
_ENDED = re.compile(r"\b(?:finished|completed|done with|wrapped up|through with)\b", re.IGNORECASE)
_ONGOING = re.compile(r"\b(?:is|are|am)\s+(?:(?:currently|still|now|slowly)\s+)?\w+ing\b", re.IGNORECASE)
# A sentence said to the listener ("you'll love your new flat"), kept in its own words when no rule read it.
_ADDRESSED = re.compile(r"\b(?:you|you'll|you're|you've|you'd|your|yours)\b", re.IGNORECASE)

_NOT_NAMES = {"the", "a", "an", "this", "that", "these", "those", "my", "our", "it", "its", "there", "project",
              "actually", "now", "also", "today", "tomorrow", "yesterday",
              # a pronoun stands for someone; it names no one ("They've added 3 pounds to the ticket price.")
              "they", "they've", "they're", "they'd", "they'll", "he", "he'd", "he'll", "she", "she'd", "she'll",
              "we", "we've", "we're", "we'd", "you", "you've", "you're", "i", "someone", "somebody", "everyone",
              "everybody", "nobody",
              # a day of the week names no one ("User's Sunday league team plays at ...")
              "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}


# "Babysitter: Chloe.", "Dog walker: Fern": a label with what it is given as, no one the sentence is about.
_LABEL = re.compile(r"^[A-Z][a-z]+(?:\s[a-z]+){0,2}:\s")


def named_subject(text: str) -> str:
    """Whom a memory's sentence is about when it is not the user: the leading proper name
    ("User's colleague Sven Silva moved to Bergen." -> "sven silva"); "" for the user or nothing. Whoever fills one
    of the user's roles, said first, is no one it is about ("Kofi is User's personal trainer": the user's role is)."""
    if holds_users_role(text) or _LABEL.match(text.strip()):
        return ""
    rest = re.sub(r"^User(?:'s)?\s+(?:(?:colleague|friend|neighbour|neighbor|boss|manager|coworker|co-worker|"
                  r"cousin|teammate|client|partner|sister|brother|mother|father|mom|dad|son|daughter|wife|husband)\s+)?",
                  "", text.strip())
    if rest == text.strip() and text.startswith("User"):
        return ""
    words = []
    for word in rest.split():
        bare = word.strip(",.;:!?'\"()")
        if bare.endswith("'s"):
            bare = bare[:-2]
        if not words and len(bare) > 1 and bare.isupper() and text.startswith("User's"):
            continue  # an acronym ("User's GP is ...", "User's CTO Maya ...") is a role, not whom it is about
        if not bare or not bare[0].isupper() or bare.casefold() in _NOT_NAMES:
            break
        if not words and _done_not_named(bare):
            break  # a chat clause said without its "I" ("Cancelled puregym, ...") is the speaker's
        if not words and _plural_thing(rest.split()):
            break  # "Tickets cost 15 pounds.", "Parking permits are ...": a kind of thing, no one
        words.append(bare.casefold())
        if word != bare and not word.endswith("'s"):
            break
    return " ".join(words)


# Words after a plural noun that show it is no verb's subject in the singular: what a name never takes.
_PLURAL_VERBS = frozenset("are were have do don't can can't will won't cost".split())
_NOT_A_VERB = frozenset("of for from in on at to with by and or but the a an".split())


def _plural_thing(words: list[str]) -> bool:
    """Does a sentence open with a plural noun said with a plain verb ("Tickets cost", "Lessons are", "Parking
    permits sell out")? A person's name takes "loves", "is": "James loves sailing" is about James."""
    bare = [w.strip(",.;:!?\"()").casefold() for w in words[:4]]
    for k, (word, after) in enumerate(zip(bare, bare[1:])):
        if k > 1 or not word.isalpha():
            return False
        if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
            # a past verb fits both ("James moved", "Tickets sold out"): the name is the safer reading; "cost" is
            # said of prices, hardly ever of a person
            plain_verb = (after.isalpha() and words[k + 1][:1].islower() and not after.endswith(("s", "ed"))
                          and after not in _NOT_A_VERB and after not in PAST_TENSE)
            return after in _PLURAL_VERBS or plain_verb
    return False


def _done_not_named(word: str) -> bool:
    """Is a capitalised first word a past verb, not a name: "Went", "Cancelled", "Finished" (not "Alfred")? A
    sentence opening with an activity ("Working together.", "Losing the job was hard.") is about that activity, not
    about the speaker, and stays apart from the speaker's facts."""
    low = word.casefold()
    return low in PAST_TENSE or (len(low) >= 6 and low.endswith("ed") and not low.endswith("fred"))


@dataclass(frozen=True)
class Neighbour:
    """An existing memory and its cosine similarity to the new fact's vector."""

    memory: Memory
    similarity: float


@dataclass(frozen=True)
class SlotState:
    """What the ledger holds in the new fact's slot (user, subject, attribute), active memories only.
    Memories whose message_id is the new fact's message are that message's own earlier facts."""

    same_value: Memory | None = None  # already holds the new value
    single_holders: list[Neighbour] = field(default_factory=list)  # single-valued memories, any message
    others: list[Memory] = field(default_factory=list)  # up to 2 memories from other messages
    named_value: list[Memory] = field(default_factory=list)  # other messages' memories matching replaced_value


@dataclass
class Plan:
    action: str  # created | superseded | confirmed
    supersede_ids: list[int] = field(default_factory=list)
    multi: bool = False
    confirmed_id: int | None = None
    reason: str = ""  # which rule decided, for an ingest trace
    compared: list[tuple[int, float]] = field(default_factory=list)  # (memory id, similarity) looked at
    ends: bool = False  # the fact says the memory it replaces is no more ("sold the Clio"), not what holds instead
    # Rule 14's (old word, new word): the replaced memory is restated with the one thing swapped for the other
    # ("This year User is growing lettuce on the balcony."), not with what the restate rules read as its new value.
    swapped: tuple[str, str] | None = None


Nearest = Callable[[int], list[Neighbour]]  # n -> the user's n memories nearest the new fact, best first


def plan_candidate(cand: Candidate, slot: SlotState, nearest: Nearest, *, user_id: str, message_id: int,
                   conflict_threshold: float, cue_margin: float, slot_neighbours: int = 50,
                   cue_neighbours: int = 5, open_world_floor: float = 0.40, value_update_floor: float = 0.45,
                   value_update_margin: float = 0.05, role_update_floor: float = 0.50,
                   cued_update_floor: float | None = 0.45, cued_update_margin: float = 0.08,
                   delta_floor: float | None = 0.35, for_a_while_beside: bool = True,
                   kinds: Kinds | None = None, kind_update_floor: float | None = 0.40,
                   ended_kind_floor: float | None = 0.25, synonym_update_floor: float | None = 0.10) -> Plan:
    """Decide what one new fact does (rules in the module docstring). `delta_floor` None: an amount said as how
    far it moved replaces nothing (rule 10 off); `for_a_while_beside` False: rule 0 off; `kinds` None: rules 14
    to 16 off; `kind_update_floor` / `ended_kind_floor` / `synonym_update_floor` None: rule 14 / 15 / 16 off."""
    nearest = _asked_once(nearest, max(slot_neighbours, cue_neighbours))
    if slot.same_value is not None:
        return Plan("confirmed", confirmed_id=slot.same_value.id, reason="same slot, same value")
    if for_a_while_beside and not cand.correction and for_a_while(cand.clause):
        return Plan("created", multi=True, reason=FOR_A_WHILE)
    if cand.rule == "person_named":
        # "for my friend Tom" after "for my friend Jenny": a person named in passing says the user has such a
        # person, not that it is their only one
        return Plan("created", multi=True, reason="a person named in passing replaces no one")
    if cand.rule != "structured":
        delta = deltas.find(cand.clause)
        if delta is not None or deltas.compares(cand.clause):
            moved = _moved(cand, delta, nearest(cue_neighbours), user_id, message_id, delta_floor)
            # A switch said beside it ("Moved the car insurance over to Admiral, Aviva wanted 300 more") is news of
            # its own, for the rules below; else the clause replaces nothing its number could be read as.
            if moved.action == "superseded" or not (cand.replaced_value or SWITCH_CUES.search(cand.clause)
                                                    or changed_thing(cand.clause)):
                return moved
    # Facts from the same message never replace each other: in "I sold the car and bought a bike"
    # the second clause is not a correction of the first. They still occupy the slot (see `multi`).
    taken = [n.memory.id for n in slot.single_holders]
    # A slot shared by the people of one conversation (the project several of them talk about) holds one value for
    # each one its sentences name: "Gina is working on her online store" is no news of "Jon is working on his dance
    # routines". What it holds for another stays beside the new fact.
    slot = replace(slot, single_holders=[n for n in slot.single_holders
                                         if not _another_named_person(n.memory.text, cand.text)],
                   others=[m for m in slot.others if not _another_named_person(m.text, cand.text)])
    holders = [n for n in slot.single_holders if n.memory.message_id != message_id]
    others = slot.others
    compared: list[tuple[int, float]] = []
    targets: list[int] = []
    reason = ""
    if cand.replaced_value and value_key(cand.replaced_value):
        targets = [m.id for m in slot.named_value]
        reason = f"the message names the replaced value {cand.replaced_value!r}" if targets else ""
    canonical = cand.attribute in SLOTS and not SLOTS[cand.attribute].multi
    # "I also cycle to work on Fridays" beside "User drives to work": one more, said as one more, replaces nothing
    adds = bool(ADDS.search(cand.clause)) and not cand.update_cue and not cand.correction
    if not targets and canonical and not cand.multi and cand.understood and (slot.single_holders or others) and not adds:
        # One value per canonical single-valued slot: every active holder goes, also one an earlier
        # statement of this very message put there ("I live in Oslo. Actually I live in Bergen.").
        compared = [(n.memory.id, n.similarity) for n in slot.single_holders]
        targets = list(dict.fromkeys([n.memory.id for n in slot.single_holders] + [m.id for m in others]))
        reason = "a single-valued slot holds one value"
    if not targets and others:
        if not cand.multi and cand.understood:
            compared = [(n.memory.id, n.similarity) for n in holders]
            targets = [n.memory.id for n in holders if (canonical or n.similarity >= conflict_threshold) and not adds]
            reason = ("a single-valued slot holds one value" if canonical else
                      f"same slot and at least {conflict_threshold} similar") if targets else ""
        elif ((not cand.understood and cand.update_cue and not _accumulating(cand.attribute)
               and not _one_more(cand.clause))
              or (cand.multi and (cand.correction or STRONG_CUES.search(cand.clause)))):
            # A guessed accumulating slot ("I now also speak Turkish" filed under languages) only
            # changes on an explicit switch, like an understood one (rule 4).
            ranked = _nearest_in_slot(cand, nearest(slot_neighbours), user_id, message_id)
            compared = [(n.memory.id, n.similarity) for n in ranked]
            if not cand.understood:
                # A guessed slot, and above all the catch-all one, holds sentences about anything: being near one
                # in meaning is no sign of being about the same thing ("John is feeling a sense of purpose now"
                # after "John has been networking"). The two must compete (a shared topic and values of one kind
                # that differ) or both be short states of their person with the change said of the new one ("User
                # is single" / "User is in a relationship now").
                people = _people([n.memory for n in ranked], cand)
                state_change = states(cand.text) and bool(cand.correction or OPEN_CUES.search(cand.clause))
                ranked = [n for n in ranked
                          if competes(n.memory.text, cand.text, people=people, new_opens_with_name=cand.opens_with_name)
                          or (state_change and states(n.memory.text))]
            if ranked and ranked[0].similarity >= conflict_threshold:
                targets = [ranked[0].memory.id]
                reason = f"update cue; nearest in the slot is at least {conflict_threshold} similar"
            elif cand.understood and len(others) == 1 and named_subject(others[0].text) == named_subject(cand.text):
                # an explicit switch in a slot holding one value needs no similarity to know its target
                targets = [others[0].id]
                reason = "explicit switch in a slot holding one value"
    if not targets and not others and cand.update_cue:
        found, looked = _replaced_elsewhere(cand, nearest(cue_neighbours), conflict_threshold + cue_margin,
                                            user_id, message_id)
        compared += looked
        if found is not None:
            targets = [found]
            reason = f"update cue; nearest memory anywhere is at least {conflict_threshold + cue_margin:.2f} similar"

    swapped: tuple[str, str] | None = None
    if (not targets or cand.replaced_value) and cand.rule != "structured":
        # A named replaced value is replaced wherever it was filed, besides in its own slot. A fact given as
        # (subject, attribute, value) names its slot itself: only that slot's rules apply to it.
        found, looked, why = _open_world(cand, nearest(slot_neighbours), user_id, message_id, open_world_floor,
                                         named_only=bool(targets), role_floor=role_update_floor)
        if not found and not targets:
            found, why = _bare_value_update(cand, nearest(slot_neighbours), user_id, message_id, value_update_floor,
                                            value_update_margin)
        if not found and not targets and cued_update_floor is not None:
            found, why = _cued_value_update(cand, nearest(slot_neighbours), user_id, message_id, cued_update_floor,
                                            cued_update_margin)
        if not found and not targets and kinds is not None and kind_update_floor is not None:
            found, why, swapped = _kind_update(cand, nearest(slot_neighbours), user_id, message_id, kind_update_floor,
                                               kinds)
        if not found and not targets and kinds is not None and ended_kind_floor is not None:
            found, why = _ended_kind(cand, nearest(slot_neighbours), user_id, message_id, ended_kind_floor, kinds)
        if not found and not targets and kinds is not None and synonym_update_floor is not None:
            found, why = _other_word_update(cand, nearest(slot_neighbours), user_id, message_id, synonym_update_floor,
                                            kinds)
        compared += [c for c in looked if c not in compared]
        extra = [i for i in found if i not in targets]
        if extra:
            targets, reason = targets + extra, (f"{reason}; {why}" if reason else why)

    # A single-valued fact that replaces nothing while the slot is taken sits beside it instead.
    multi = cand.multi or any(mid not in targets for mid in taken)
    if not targets:
        reason = "kept beside the slot's current value" if taken else "nothing it replaces"
    # A clause that only ends what it replaces ("sold the Clio", "sam and I broke up") leaves room for what holds
    # instead, said next (takes_the_place).
    ends = bool(targets) and not cand.understood and bool(ENDING_CUES.search(cand.clause))
    return Plan("superseded" if targets else "created", supersede_ids=targets, multi=multi, reason=reason,
                compared=compared, ends=ends, swapped=swapped)


def _moved(cand: Candidate, delta: deltas.Delta | None, nearest: list[Neighbour], user_id: str, message_id: int,
           floor: float | None) -> Plan:
    """Rule 10: the memory whose one amount the clause says moved, or nothing."""
    compared: list[tuple[int, float]] = []
    if delta is not None and floor is not None:
        for n in nearest:  # best first
            memory = n.memory
            if n.similarity < floor:
                break
            if memory.status != "active" or memory.user_id != user_id or memory.message_id == message_id:
                continue
            compared.append((memory.id, n.similarity))
            if not _same_person(memory.text, cand) or _another_named_person(memory.text, cand.text):
                continue  # "my sister got a 3k raise" moves nothing of the user's
            if deltas.same_thing(memory.text, delta) and deltas.apply(memory.text, delta) is not None:
                return Plan("superseded", supersede_ids=[memory.id], compared=compared,
                            reason=f"the message says how far this memory's amount moved ({delta.said}); "
                                   f"at least {floor} similar")
    why = ("an amount said in comparison replaces nothing" if delta is None else
           "an amount said as how far it moved, of no memory holding one amount of that thing")
    return Plan("created", multi=True, reason=why, compared=compared)


ENDS_NAMED = "the message names this memory's value with a switch"
ENDS_ACTIVITY = "the message says an activity this memory has going on is done"
# What holds instead, said right after an ending: "Sold the Clio, I only have an e-bike now", "stopped seeing dr moore,
# I see a counsellor called Aisha now", "finished dune!! started project hail mary".
_SPEAKER_FIRST = re.compile(r"^(?:i|i'm|im|i've|we|we're|we've)\b", re.IGNORECASE)
_HOLDS_INSTEAD = CuePattern(r"\b(?:now|instead|these days|nowadays|only|started|starting|switched|got|bought|"
                            r"picked up|joined|using|went with|gone with|moved)\b")


# ... or said as the new one of what was ended: "got rid of the old tv!! the new one is a huge LG OLED" (the extractor
# has made "the new one" "the new tv").
_NEW_ONE_FIRST = re.compile(r"^(?:(?:the|my|our)\s+)?new\s+(?P<thing>[\w-]+)", re.IGNORECASE)


def takes_the_place(cand: Candidate, ended: Plan | None, ending: Candidate | None = None) -> bool:
    """Is a fact what took the place of the memory the message's previous fact (`ending`) said was no more? Said by
    the same person, with a word for what holds now, or as the new one of the thing that fact ended; and replacing
    nothing of its own."""
    if ended is None or not ended.ends or cand.subject != "user" or cand.asked:
        return False
    said = cand.clause if cand.understood else cand.value  # a clause no rule read keeps its restored "I" as value
    if _SPEAKER_FIRST.match(said.strip()) and _HOLDS_INSTEAD.search(cand.clause):
        return True
    new_one = _NEW_ONE_FIRST.match(cand.clause.strip())
    return bool(new_one and ending is not None and (
        new_one["thing"].casefold() in ("one", "ones")
        or set(tokenize(new_one["thing"])) & set(tokenize(ending.clause))))


def _another_named_person(old_text: str, new_text: str) -> bool:
    """Are two sentences about two different named people ("Jon is ..." / "Gina is ...")?"""
    old, new = named_subject(old_text), named_subject(new_text)
    return bool(old and new and old != new)


def _same_relative(old_text: str, new_text: str) -> bool:
    """May a new fact be about whom an old one is? A fact about a relative, friend or colleague only updates
    a fact about the same one: "User's colleague Anja moved to Graz" is not news about the user's own job,
    nor "User's uncle moved to York" about the aunt. (A fact with the user as its subject may update a
    relative's: "We increased her allowance" updates "User's daughter's allowance is 5 euros".)"""
    new = relation(new_text)
    return new is None or new == relation(old_text)


# A word that points at someone besides the speaker: "we increased her allowance" may be about the daughter.
_POINTS_AT_SOMEONE = re.compile(r"\b(?:her|hers|him|his|she|he|their|them|they)\b", re.IGNORECASE)


# A sentence naming who fills one of the user's roles is about the user's role, not about that person's life:
# "User's dentist is Dr. Patel." may be replaced by "User had to find a new dentist, Dr. Okafor is lovely".
_ROLE_NAMED = re.compile(r"^User's\s+[\w' -]{1,40}?\s+(?:is|was|are)\s+(?:called\s+|named\s+)?"
                         r"(?:(?:Dr|Mr|Mrs|Ms|Miss|Prof)\.?\s+)?[A-Z]")


def _own_against_relatives(old_text: str, new_text: str) -> bool:
    """Is the new sentence about the user alone and the old one about the life of a relative, friend or colleague?
    "User works at KPMG now" says nothing of "User's sister works at Deloitte"; "We increased her allowance" may."""
    return (relation(old_text) is not None and relation(new_text) is None and not _ROLE_NAMED.match(old_text)
            and not _POINTS_AT_SOMEONE.search(new_text))


def _in_slot(memory: Memory, cand: Candidate, user_id: str) -> bool:
    return (memory.status == "active" and memory.user_id == user_id and memory.subject == cand.subject
            and memory.attribute == cand.attribute)


def _nearest_in_slot(cand: Candidate, nearest: list[Neighbour], user_id: str, message_id: int) -> list[Neighbour]:
    """The slot's memories among the nearest, best first, from other messages and about the same
    person: "Dara Haddad switched jobs" never replaces a fact about Dara Silva."""
    about = named_subject(cand.text)
    in_slot = [n for n in nearest if _in_slot(n.memory, cand, user_id) and n.memory.message_id != message_id
               and named_subject(n.memory.text) == about and _same_relative(n.memory.text, cand.text)]
    return sorted(in_slot, key=lambda n: (n.similarity, n.memory.id), reverse=True)


def _replaced_elsewhere(cand: Candidate, nearest: list[Neighbour], min_similarity: float, user_id: str,
                        message_id: int) -> tuple[int | None, list[tuple[int, float]]]:
    looked: list[tuple[int, float]] = []
    for n in sorted(nearest, key=lambda n: n.similarity, reverse=True):
        if n.similarity < min_similarity:
            break
        memory = n.memory
        if memory.status != "active" or memory.user_id != user_id or memory.message_id == message_id:
            continue
        looked.append((memory.id, n.similarity))
        accumulating_slot = memory.attribute in SLOTS and SLOTS[memory.attribute].multi
        if memory.multi_valued and accumulating_slot and not cand.replaced_value:
            continue
        if cand.understood and memory.subject != cand.subject and not memory.subject.startswith("event:"):
            continue
        if named_subject(memory.text) != named_subject(cand.text) or not _same_relative(memory.text, cand.text):
            continue  # a fact about someone else
        return memory.id, looked
    return None, looked


def _asked_once(nearest: Nearest, most: int) -> Nearest:
    """Several rules look at the nearest memories: one index query for the most any of them wants."""
    fetched: list[list[Neighbour]] = []

    def first(n: int) -> list[Neighbour]:
        if not fetched:
            fetched.append(sorted(nearest(most), key=lambda x: x.similarity, reverse=True))
        return fetched[0][:n]
    return first


def _one_more(clause: str) -> bool:
    """Does a clause add one more, though it says "now" ("the pond has a few carp too now")? A switch said beside it
    ("also switched to ...") still changes what it names."""
    return bool(ADDS.search(clause)) and not STRONG_CUES.search(clause)


def _accumulating(attribute: str) -> bool:
    return attribute in SLOTS and SLOTS[attribute].multi and attribute != CATCH_ALL


def _same_person(old_text: str, cand: Candidate) -> bool:
    """Could the new fact be about whom the old memory is about? An old fact about a named person
    needs the new clause to name them; a new fact about a named person (a capitalised name inside
    the clause, not just its first word) needs the old memory to name them. A fact about the user alone is not
    about a relative ("User works at KPMG now" against "User's sister works at Deloitte")."""
    if not _same_relative(old_text, cand.text) or _own_against_relatives(old_text, cand.text):
        return False
    old_name, new_name = named_subject(old_text), named_subject(cand.text)
    if old_name and old_name not in cand.text.casefold():
        return False
    if new_name and new_name not in old_text.casefold():
        first = new_name.split()[0]
        inside = re.search(rf"(?<=\S)\s+{re.escape(first)}\b", cand.clause, re.IGNORECASE)
        if inside and inside.group(0).strip()[:1].isupper():
            return False
    return True


def _open_world(cand: Candidate, nearest: list[Neighbour], user_id: str, message_id: int, floor: float,
                named_only: bool = False, role_floor: float = 0.50) -> tuple[list[int], list[tuple[int, float]], str]:
    """Rule 7: the memories this fact replaces outside its slot, what was looked at, and why."""
    mine = [n for n in sorted(nearest, key=lambda n: (n.similarity, n.memory.id), reverse=True)
            if n.memory.status == "active" and n.memory.user_id == user_id and n.memory.message_id != message_id
            and _same_person(n.memory.text, cand)]
    looked = [(n.memory.id, n.similarity) for n in mine]
    new_value = cand.value if cand.understood else ""
    # The value a switch names: "from Django to FastAPI" names Django; else the clause itself.
    naming = cand.replaced_value or (cand.clause if SWITCH_CUES.search(cand.clause) or gone_off(cand.clause) else "")
    if naming:
        named = [n.memory.id for n in mine if names_old_value(n.memory.value, naming, new_value,
                                                              sentence=n.memory.attribute == CATCH_ALL)]
        if named:
            return named, looked, ENDS_NAMED
    if _ENDED.search(cand.clause):
        # "finished dune!!" after "User is reading Dune": what one was doing and is done with is no longer so
        ended = [n.memory.id for n in mine if _ONGOING.search(n.memory.text) and _same_subject(n.memory, cand)
                 and names_old_value(n.memory.value, cand.clause, new_value,
                                     sentence=n.memory.attribute == CATCH_ALL)]
        if ended:
            return ended, looked, ENDS_ACTIVITY
    if named_only:
        return [], looked, ""
    for n in mine:
        if _same_subject(n.memory, cand) and changes_value_of(cand.clause, n.memory.text):
            # the message names the memory's thing and what it became, whatever slot either was filed under
            return [n.memory.id], looked, "the message changes a thing this memory names into another of its kind"
    levelled = [n.memory.id for n in mine if _same_subject(n.memory, cand) and changes_level_of(cand.clause, n.memory.text)]
    if len(levelled) == 1:
        # One memory of a plan, tier or subscription, and the message takes a level up or down: that one's level,
        # under whichever slot it sits (one is on one plan of a thing, although "the tools" accumulate).
        return levelled, looked, "the message takes the plan or tier this memory holds up or down"
    thing = changed_thing(cand.clause)
    if thing is not None:
        for n in mine:
            if not _accumulating(n.memory.attribute) and (names_slot(thing, n.memory.attribute)
                                                         or names_subject(thing, n.memory.text)):
                return [n.memory.id], looked, f"the message changes the {thing!r} this memory is filed under"
    # A sentence said again and a role judge themselves by their words, whatever slot either sentence was filed
    # under ("User drives a Corolla" and "User runs the nightly jobs on Airflow" may sit among the tools).
    for n in mine:
        if n.similarity < floor or not _same_subject(n.memory, cand):
            continue
        if restates(n.memory.text, cand.text):
            return [n.memory.id], looked, "the same sentence again with another value of a kind it holds once"
        if n.similarity >= role_floor and fills_same_role(n.memory.text, cand.text):
            return [n.memory.id], looked, (f"a role held once filled again in other words, at least {role_floor} "
                                           "similar")
    if _accumulating(cand.attribute) and cand.understood:
        # a guessed slot is a guess of a topic, not a kind of value held many times ("her student took over my
        # piano lessons" guessed as instruments)
        return [], looked, ""
    cued = cand.correction or bool(OPEN_CUES.search(cand.clause))
    if cued and in_place(cand.text):
        # "User's boss is Marcus now" after "User's manager is Helen": the frame names the role, the cue says it
        # changed hands; what else either sentence says ("seems decent") may keep them far apart in meaning.
        for n in mine:
            if (not _accumulating(n.memory.attribute) and _same_subject(n.memory, cand)
                    and renames_role(n.memory.text, cand.text)):
                return [n.memory.id], looked, "the same role named again with another value and an update cue"
    if cued:
        # "down to 74kg after the diet": an amount in a unit with no thing of its own is what the memory measuring
        # in that unit measures; the two sentences share no word to be near in meaning by.
        for n in mine:
            if (not _accumulating(n.memory.attribute) and _same_subject(n.memory, cand)
                    and measured_again(n.memory.text, cand.clause)):
                return [n.memory.id], looked, "another amount in the unit this memory measures, with an update cue"
    people = _people([n.memory for n in nearest], cand)
    for n in mine:
        if (n.similarity < floor or _own_against_relatives(n.memory.text, cand.text)
                or frames.value_of_another_thing(topic_words(n.memory.text), cand.text)):
            continue
        if _accumulating(n.memory.attribute) and (cand.understood or not holds_one(n.memory.text)):
            continue  # "User's GP surgery is Parkside Medical." names one holder, though a guess filed it as health
        same_subject = _same_subject(n.memory, cand)
        if (not competes(n.memory.text, cand.text, people=people, new_opens_with_name=cand.opens_with_name)
                or _one_more(cand.clause)):
            continue
        if cued or value_kind(cand.text, sentence=True) == "amount":
            return [n.memory.id], looked, (f"same topic, same kind of value and at least {floor} similar"
                                           + (", with an update cue" if cued else ", a quantity"))
        if (same_subject and same_thing(n.memory.text, cand.text)
                and value_kind(cand.text, sentence=True) in _HELD_ONCE
                and value_kind(n.memory.text, sentence=True) in _HELD_ONCE):
            return [n.memory.id], looked, "a value of the same thing again, without a cue"
    return [], looked, ""


def _people(memories: list[Memory], cand: Candidate) -> frozenset[str]:
    """Stems of the names of the people in the conversation: whom the memories and the new fact are about and
    who said the memories ("john" and "maria" in a chat between John and Maria, where "That's great, Maria" and
    "Maria, since John talked, it's been tough" share no topic)."""
    names: set[str] = set()
    for who in [cand.subject] + [w for m in memories for w in (m.subject, m.speaker or "")]:
        if who and ":" not in who and who not in ("user", "project"):
            names.update(tokenize(who))
    return frozenset(names)


def _same_subject(memory: Memory, cand: Candidate) -> bool:
    # A clause no rule understood has its speaker as subject by default, not by finding: against a memory
    # about a thing (an event, the project) its words decide. Two people are never one subject.
    return memory.subject == cand.subject or (not cand.understood and _about_a_thing(memory))


def _about_a_thing(memory: Memory) -> bool:
    return ":" in memory.subject or memory.subject == "project"


# What one thing holds one of at a time: a time, an amount, a name ("the dentist appointment is on the 9th").
# A phrase may be one more description of it ("The office is in Camden" / "The office is bright and noisy").
_HELD_ONCE = frozenset({"time", "amount", "name"})


def _value_holders(cand: Candidate, nearest: list[Neighbour], user_id: str, message_id: int,
                   kind: str) -> list[Neighbour]:
    """The user's other active memories holding a value of this kind, about whom the new fact may be, nearest
    first (rules 8 and 9)."""
    return [n for n in sorted(nearest, key=lambda n: (n.similarity, n.memory.id), reverse=True)
            if n.memory.status == "active" and n.memory.user_id == user_id and n.memory.message_id != message_id
            and kind in value_kinds(n.memory.text, sentence=True) and _same_person(n.memory.text, cand)
            # "standup ran long today, lunch is at 1 now": the time is lunch's, not the standup's
            and not frames.value_of_another_thing(topic_words(n.memory.text), cand.text)]


# Rule 11. A clause that says a value again of something only its message's clause before names: "dentist kept
# cancelling on me, I see Dr. Brennan now", "the office lease ended, we're based in Shoreditch now". It opens
# with a word pointing back ("I", "we", "it's", "so"), not with a thing of its own ("my water bill is 30 now").
_POINTS_BACK = re.compile(r"^(?:(?:so|and|but|now|anyway)\s+)?(?:i|i'm|im|i've|we|we're|we've|it|it's|its|that's|"
                          r"she|she's|he|he's|they|they're|her|his|their)\b", re.IGNORECASE)
# Being somewhere now is no new holder of anything: "gym was heaving, I'm at Costa now".
_BEING_THERE = re.compile(r"^(?:(?:so|and|but|anyway)\s+)?(?:i'm|im|i am|we're|we are)\s+"
                          r"(?:(?:just|still|currently|now|finally|already)\s+)?"
                          r"(?:at|in|on the way|off|out|home|back|here|there)\b", re.IGNORECASE)


def thing_said_before(cand: Candidate, before: Candidate | None, neighbours: list[Neighbour] | Nearest, *,
                      user_id: str, message_id: int, floor: float, n: int = 10) -> tuple[list[int], str]:
    """Rule 11: the memory whose thing the message's previous clause names (a shared topic word, that clause at
    least `floor` similar to it) and whose value of one kind this clause says again, with a word of change. Never
    an accumulating slot's memory, someone else's, or one this clause's values already hold. `neighbours`: the
    previous clause's nearest memories, or a callable giving its `n` nearest (asked only when the clause fits)."""
    if before is None or cand.asked or before.asked or cand.subject != "user" or before.subject != "user":
        return [], ""
    said = cand.clause.strip()
    if (not _POINTS_BACK.match(said) or _BEING_THERE.match(said) or relation(cand.text) is not None
            or not (cand.correction or OPEN_CUES.search(said)) or not in_place(said)):
        return [], ""
    kinds = value_kinds(cand.text, sentence=True) & _HELD_ONCE
    thing = topic_words(before.clause)
    if not kinds or not thing:
        return [], ""
    if callable(neighbours):
        neighbours = neighbours(n)
    for near in sorted(neighbours, key=lambda nb: (nb.similarity, nb.memory.id), reverse=True):
        memory = near.memory
        if near.similarity < floor:
            break
        if (memory.status != "active" or memory.user_id != user_id or memory.message_id == message_id
                or _accumulating(memory.attribute) or relation(memory.text) is not None
                or not _same_subject(memory, cand)):
            continue
        if (topic_words(memory.text) & thing and value_kinds(memory.text, sentence=True) & kinds
                and values_differ(memory.text, cand.text)):
            return [memory.id], (f"the message's clause before names this memory's thing (at least {floor} "
                                 "similar); this one says its value again, with a word of change")
    return [], ""


# Rule 12. A change said in the old fact's frame with a pronoun or the speaker in the thing's place: "book club
# outgrew the room, we meet at Jen's house now" after "Our book club meets at the library", "I get it from Rave now"
# after "My coffee subscription is from Pact", "they're on Sundays now" after "The kids' lessons are on Saturdays".
# Words that say this time round, besides the words of change: a provider named "this year" is this year's one.
# What has held lately is said with "have been ...ing": "we've been ordering them from Ocado".
_THIS_TIME = re.compile(r"\bthis (?:year|term|season|time round|time)\b|(?:'ve|\bhave|\bhas|'s) been \w+ing\b",
                        re.IGNORECASE)


def frame_kept(cand: Candidate, context: str, neighbours: list[Neighbour] | Nearest, *, user_id: str,
               message_id: int, n: int = 20) -> tuple[list[int], str]:
    """Rule 12: the memory whose frame (verb and preposition) this clause says again with another value, its
    thing said by a pronoun or by the speaker ("we meet at ...", "I get it from ...", "it's on ..."). `context`:
    the rest of the message. Among the memories of that frame, the one whose thing the rest of the message names;
    failing that, the only one, unless the clause's speaker stands for a thing with "be" ("I'm with Admiral"),
    which needs the thing named ("I'm with Sarah now" says nothing of the car insurance). Never an accumulating
    slot's memory, someone else's, one of this message, or a clause that adds rather than replaces."""
    if cand.asked or not (cand.subject == "user" or cand.subject.startswith("event:")) or relation(cand.text):
        return [], ""  # "we're meeting at the library from now on" may have been read as an event of the user's
    found = frames.last_frame(cand.text)
    if found is None or found[0].subject == "thing" or not in_place(found[1]):
        return [], ""
    new, context = found[0], f"{found[2]} {context}"
    if not (cand.correction or CHANGE_CUES.search(cand.clause) or _THIS_TIME.search(cand.clause)):
        return [], ""
    if callable(neighbours):
        neighbours = neighbours(n)
    fits = []
    for near in neighbours:
        memory = near.memory
        if (memory.status != "active" or memory.user_id != user_id or memory.message_id == message_id
                or _accumulating(memory.attribute) or relation(memory.text) is not None
                or not _same_person(memory.text, cand)):
            continue
        old = frames.frame(memory.text)
        if old is not None and frames.kept(old, new):
            fits.append((memory, old))
    if not fits:
        return [], ""
    named = topic_words(context)
    told = [(m, old) for m, old in fits if old.thing & named]
    if len(told) == 1:
        return [told[0][0].id], ("says this memory's verb and preposition again with another value, its thing "
                                 "named in the rest of the message")
    if told or len(fits) > 1:
        return [], ""
    memory, old = fits[0]
    if new.subject == "user" and old.subject == "thing" and new.verb == "be":
        return [], ""
    return [memory.id], "says the verb and preposition of the only memory said that way again, with another value"


def _clearly_nearest(holders: list[Neighbour], floor: float, margin: float) -> Neighbour | None:
    """The nearest holder when at least `floor` similar, not of an accumulating slot, and no other holder is
    within `margin` of it (two candidates: anyone's guess, nothing goes)."""
    if not holders:
        return None
    best = holders[0]
    if best.similarity < floor or _accumulating(best.memory.attribute):
        return None
    if len(holders) > 1 and best.similarity - holders[1].similarity < margin:
        return None
    return best


# What the clock says is no update: "it's 5pm now, heading home" ("actually, it's at 10 now" is one).
_CLOCK_READING = re.compile(r"^\W*(?:it's|its|it is)\s+(?:already\s+|nearly\s+|almost\s+|just\s+)?(?:past\s+)?"
                            r"\d{1,2}(?:[:.]\d\d)?\s*(?:am|pm|o'clock)?\s+(?:now|already)\b", re.IGNORECASE)


# A thing denied: "no alcohol", "no screens" (not "no longer", "no more", which end a value said again).
_NO_THING = re.compile(r"\bno\s+(?!longer\b|more\b|one\b|idea\b|way\b)[a-z]", re.IGNORECASE)


def _bare_value_update(cand: Candidate, nearest: list[Neighbour], user_id: str, message_id: int, floor: float,
                       margin: float) -> tuple[list[int], str]:
    """Rule 8: the memory a bare value said as an update replaces, and why; ([], "") for none."""
    kind = value_kind_besides_when(cand.text)  # "1350 from next month" is an amount, said with when it holds
    if cand.understood or kind not in ("amount", "time") or _accumulating(cand.attribute):
        return [], ""
    if NAMES_ITS_THING.match(cand.text.strip()):
        return [], ""  # "User's rent is 950 now" says what the value is of: rule 7 judges it by that thing
    if not (cand.correction or OPEN_CUES.search(cand.clause)) or _CLOCK_READING.match(cand.clause):
        return [], ""
    if _NO_THING.search(cand.clause):
        return [], ""  # "new rule: no alcohol monday to thursday": the time is when a thing is denied, no new value
    holders = _value_holders(cand, nearest, user_id, message_id, kind)
    said = topic_words(cand.text)
    if any(topic_words(n.memory.text) & said for n in holders):
        return [], ""  # it says what the value is of: rule 7 judges it by that thing
    best = _clearly_nearest(holders, floor, margin)
    if best is None:
        return [], ""
    return [best.memory.id], (f"a bare {kind} said as an update; the one memory holding a {kind} at least "
                              f"{floor} similar")


def _cued_value_update(cand: Candidate, nearest: list[Neighbour], user_id: str, message_id: int, floor: float,
                       margin: float) -> tuple[list[int], str]:
    """Rule 9: a value said as an update in words no other rule pairs ("all my pictures sync to iCloud now"
    after "I back up my photos to Google Photos") replaces the one memory holding a value of its kind that is
    nearest in meaning, when at least `floor` similar and no other such memory is within `margin`."""
    said = value_kinds(cand.text, sentence=True)
    # A name said beside a time word is the value ("new line manager started monday, Tomasz"); a clock time's
    # digits are no amount.
    kind = next((k for k in ("name", "time", "amount") if k in said), None)
    if kind is None or _accumulating(cand.attribute) or not in_place(cand.clause):
        return [], ""
    if NAMES_ITS_THING.match(cand.text.strip()):
        return [], ""  # "User's rent is 950 now" says what the value is of: rule 7 judges it by that thing
    if _ADDRESSED.search(cand.text):
        return [], ""  # "you'll find a place for your new dog" is said to someone: nothing of the speaker's changed
    if not (cand.correction or (OPEN_CUES if kind == "amount" else CHANGE_CUES).search(cand.clause)):
        return [], ""
    if _CLOCK_READING.match(cand.clause):
        return [], ""  # "it's 5pm now": the clock, not a change
    holders = [n for n in _value_holders(cand, nearest, user_id, message_id, kind) if _same_subject(n.memory, cand)]
    best = _clearly_nearest(holders, floor, margin)
    if best is None or not values_differ(best.memory.text, cand.text):
        return [], ""
    return [best.memory.id], (f"a {kind} said as an update; the one memory holding a {kind} at least {floor} "
                              f"similar, {margin} ahead of any other")


# Rule 14's words of change: what holds now in place of the old thing. Not "new", "latest" or "since": chat names
# new things all the time ("always up for some new book recommendations") without one replacing another.
_KIND_CHANGE = CuePattern(r"\b(?:now|these days|nowadays|any\s?more|no longer|instead|switched|swapped|replaced|"
                          r"changed)\b")


def _kind_update(cand: Candidate, nearest: list[Neighbour], user_id: str, message_id: int, floor: float,
                 kinds: Kinds) -> tuple[list[int], str, tuple[str, str] | None]:
    """Rule 14: another thing of the kind an old memory names, said with a word of change about what that memory is
    about ("it's only lettuce up there now" after "User is growing tomatoes on the balcony"), replaces the nearest
    such memory at least `floor` similar, and says which word took which one's place. What it is about is a topic
    word both say, or one that one of them names an instance of ("a retired greyhound snoozing on the sofa now" is
    about "User's family dog")."""
    if _accumulating(cand.attribute) or not in_place(cand.clause) or _ADDRESSED.search(cand.text):
        return [], "", None
    if not (cand.correction or _KIND_CHANGE.search(cand.clause)) or _CLOCK_READING.match(cand.clause):
        return [], "", None
    people = _people([n.memory for n in nearest], cand)
    said = topic_words(cand.text) - people
    for n in sorted(nearest, key=lambda n: (n.similarity, n.memory.id), reverse=True):
        memory = n.memory
        if (n.similarity < floor or memory.status != "active" or memory.user_id != user_id
                or memory.message_id == message_id or _accumulating(memory.attribute)
                or _ADDRESSED.search(memory.text)):
            continue  # advice ("you could try dark chocolate") is no thing of the speaker's
        if not (_same_subject(memory, cand) and _same_person(memory.text, cand)):
            continue
        old_topic = topic_words(memory.text) - people
        if not (old_topic & said or kinds_in(cand.text, kinds, old_topic) or kinds_in(memory.text, kinds, said)):
            continue
        if frames.value_of_another_thing(old_topic, cand.text):
            continue
        found = another_of_its_kind(memory.text, cand.text, kinds.kind_shared)
        # "the front garden" is another garden than "the back garden"
        if found is not None and not qualified_apart(memory.text, cand.text, old_topic & said, found[:2]):
            old_word, new_word, kind = found
            return [memory.id], (f"another {kind} ({new_word!r} for {old_word!r}) said with a word of change about "
                                 f"the same thing, at least {floor} similar"), (old_word, new_word)
    return [], "", None


# Rule 15's ends said only of some days or times ("no alcohol monday to thursday", "no sweets on weeknights") or of
# one occasion ("no wine tonight") hold beside the habit, not in its place.
_ONLY_SOMETIMES = re.compile(
    r"\b(?:(?:mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?|weekdays?|weeknights?|weekends?|"
    r"school nights?|work nights?|during the week|except|unless)\b|(?:after|before)\s+\d)", re.IGNORECASE)


def _ended_kind(cand: Candidate, nearest: list[Neighbour], user_id: str, message_id: int, floor: float,
                kinds: Kinds) -> tuple[list[int], str]:
    """Rule 15: an end said of a whole kind of thing ("gave up soft drinks", "dont touch spirits anymore") replaces
    every memory of the same person naming a thing of that kind ("User drinks a can of cola with lunch") at least
    `floor` similar."""
    said = ended_kinds(cand.clause)
    if not said or _ONLY_SOMETIMES.search(cand.clause) or _ONE_OCCASION.search(cand.clause):
        return [], ""
    ended = []
    for n in sorted(nearest, key=lambda n: (n.similarity, n.memory.id), reverse=True):
        memory = n.memory
        if (n.similarity < floor or memory.status != "active" or memory.user_id != user_id
                or memory.message_id == message_id or _ADDRESSED.search(memory.text)):
            continue
        # a habit may have been filed as an event ("User has salmon for dinner every Friday."): whose it is, its
        # sentence says
        if not ((_same_subject(memory, cand) or _about_a_thing(memory)) and _same_person(memory.text, cand)):
            continue
        if any(kinds.covers(word, kind) for word in things_said(memory.text) for kind in said):
            ended.append(memory.id)
    return ended, (f"the message ends a kind of thing ({', '.join(said)}) this memory names one of, at least {floor} "
                   "similar" if ended else "")


# Rule 16's words of change: rule 14's, a switch or an end ("got rid of the couch"), or a new one of one's own ("got
# new glasses", "my new phone", "started seeing a new counsellor", "New mobile is ..."); not "new" said of a thing out
# in the world ("the new movie by Nolan").
_MOVED = re.compile(r"\b(?:mov(?:ed|ing)|relocated|upgraded|downgraded|traded)\b", re.IGNORECASE)
_OWN_NEW = re.compile(r"(?:\b(?:my|our|got|get|gotten|bought|buy|found|find|picked up|ordered|seeing|see|using|use|"
                      r"have|has|joined|registered with|signed up (?:with|to|for)|treated (?:myself|ourselves|us) to)"
                      r"\s+(?:(?:a|an|the|some|myself|ourselves|us|me)\s+)?(?:[\w'-]+\s+)?|^(?:User's\s+)?)new\b",
                      re.IGNORECASE)


# An end said of "the old" thing ("sold the old laptop", "binned my old kettle"): the old one is the one a memory
# holds, by that word or another for it. The thing is the last of the two words after "old" that may name one ("the
# old sofa cushions" are cushions).
_OLD_THING = re.compile(r"\b(?:the|my|our)\s+old\s+(?P<words>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)", re.IGNORECASE)


def _old_one_ended(cand: Candidate) -> str:
    """The thing an ending clause says the speaker's old one of has gone ("laptop" in "sold the old laptop"), or ""."""
    if not ENDING_CUES.search(re.sub(r"\bleft\b", " ", cand.clause, flags=re.IGNORECASE)):
        return ""  # "left the old laptop at my mum's" put it somewhere
    found = _OLD_THING.search(_TOLD_WHEN.sub(" ", cand.text))  # "sold the old laptop last week"
    if found is None:
        return ""
    things = set(things_said(cand.text))
    named = [word for word in found["words"].casefold().split() if word in things]
    return named[-1] if named else ""


def _other_word_update(cand: Candidate, nearest: list[Neighbour], user_id: str, message_id: int, floor: float,
                       kinds: Kinds) -> tuple[list[int], str]:
    """Rule 16: the thing an old memory names, called by another word for it, with a word of change of one's own
    ("finally got new glasses, tortoiseshell Ray-Bans" after "User's specs are ... from Specsavers"), replaces the
    nearest such memory at least `floor` similar."""
    if _accumulating(cand.attribute) or not in_place(cand.clause) or _ADDRESSED.search(cand.text):
        return [], ""
    switched = bool(SWITCH_CUES.search(cand.clause))
    old_one = _old_one_ended(cand)
    if not (cand.correction or switched or old_one or _KIND_CHANGE.search(cand.clause) or _MOVED.search(cand.clause)
            or _OWN_NEW.search(cand.clause) or _OWN_NEW.search(cand.text)) or _one_more(cand.clause):
        return [], ""
    new_things = things_said(cand.text)
    for n in sorted(nearest, key=lambda n: (n.similarity, n.memory.id), reverse=True):
        memory = n.memory
        if (n.similarity < floor or memory.status != "active" or memory.user_id != user_id
                or memory.message_id == message_id or _accumulating(memory.attribute)
                or _ADDRESSED.search(memory.text)):
            continue
        if not (_same_subject(memory, cand) and _same_person(memory.text, cand)):
            continue
        old_things = things_said(memory.text)
        if old_one and any(tokenize(word) == tokenize(old_one) or kinds.same_thing(word, old_one)
                           for word in old_things):
            return [memory.id], (f"an end of the old {old_one}, the thing this memory holds, at least {floor} "
                                 "similar")
        if not (switched or values_differ(memory.text, cand.text)):
            continue  # "User wears glasses for reading" says no other value of the specs
        pair = next(((old, new) for old in old_things if old not in new_things
                     for new in new_things if new not in old_things and kinds.same_thing(old, new)), None)
        if pair is not None:
            return [memory.id], (f"the same thing called by another word ({pair[1]!r} for {pair[0]!r}) with a word of "
                                 f"change, at least {floor} similar")
    return [], ""


# Rule 13. Words that point back to something said before: a pronoun, "that" said as a thing ("cancelled that"),
# "everything", or a message opening by ending what was said ("not anymore, ...").
_POINTER = re.compile(r"\b(?:it|its|it's|they|them|their|they're|he|he's|him|his|she|she's|her|everything)\b|"
                      r"\bthat(?=\s*(?:[,.;!?]|$))|^\W*(?:not any\s?more|no longer)\b", re.IGNORECASE)
_PERSON_POINTER = re.compile(r"\b(?:he|he's|him|his|she|she's|her)\b", re.IGNORECASE)
# Ending what was said is no denial of the new value: "not anymore lol moved everything to Starling".
_NO_LONGER = re.compile(r"\b(?:not any\s?more|no longer)\b", re.IGNORECASE)
# The one who held it left: "he stepped down, a dad called Pete runs it now", "she retired, I see Dr. Okafor now".
_LEFT = re.compile(r"\b(?:stepped down|resigned|retired|left (?:the|his|her|their|us|for)|moved away|moved on)\b",
                   re.IGNORECASE)
# "now" or "new" alone is said of a clock, a price or the weather as often as of a change ("it's 5pm now", "it's
# sunny in Madrid now"): with only such a word, the part must say nothing but the name and what the old memory says.
_WEAK_CHANGE = re.compile(r"\b(?:now|new|latest|these days|nowadays|since|actually)\b", re.IGNORECASE)
_POINTER_WORDS = frozenset("it its it's they them their they're he he's him his she she's her everything that user "
                           "i i'm im we we're".split())
# A thing pointed back to as the object: whoever is named before the verb did it ("the teacher moved it to 8:15").
_DONE_TO_IT = re.compile(r"\b(?:it|them)\b", re.IGNORECASE)
# A change word said of a thing is no change: "a moving experience", "such a raised voice".
_SAID_OF_A_THING = re.compile(r"\b(?:a|an|the|so|very|really|such a|truly|deeply)\s*$", re.IGNORECASE)
# When a memory's news happened is no value it holds: "Maya got a gold star today" holds no time to move.
_TOLD_WHEN = re.compile(r"\b(?:yesterday|today|tonight|(?:last|this) (?:night|week|weekend|month|year|morning|afternoon|"
                        r"evening)|(?:a|one|two|three|a few|a couple of) (?:days|weeks|months|years) ago)\b",
                        re.IGNORECASE)
# A title's full stop ends no sentence: "he has them with Mr. Ortega now".
_SENTENCE_END = re.compile(r"(?<=[.!?])(?<!\bmr\.)(?<!\bmrs\.)(?<!\bms\.)(?<!\bdr\.)(?<!\bst\.)(?<!\bprof\.)\s+",
                           re.IGNORECASE)
# Where a sentence's parts meet; a comma inside a number ("£1,290") is none.
_VALUE_PARTS = re.compile(r"[,;](?=\s)|:(?!\d)|\s[-\u2013\u2014]\s|\s(?:so|but|and then)\s", re.IGNORECASE)


def _value_part(text: str) -> tuple[str, str] | None:
    """The last part of a sentence that says a name, a time or an amount, and that kind."""
    for part in reversed([p.strip() for p in _VALUE_PARTS.split(text) if p and p.strip()]):
        kind = value_kind_besides_when(part)
        if kind in _HELD_ONCE:
            return part, kind
    return None


def _said_besides_the_name(part: str) -> frozenset[str]:
    """The content words of a part besides its names, its pointing words and its word of change ("it's sunny in
    Madrid now" -> {"sunny"}; "it's Hyperoptic now" -> nothing)."""
    words = re.findall(r"[A-Za-z][\w'-]*", _WEAK_CHANGE.sub(" ", part))
    kept = [w for i, w in enumerate(words) if w.casefold() not in _POINTER_WORDS and not (i and w[:1].isupper())]
    return frozenset(tokenize(" ".join(kept)))


def pointed_back(cand: Candidate, message_text: str, recent: list[Memory] | Callable[[], list[Memory]], *,
                 user_id: str, message_id: int) -> tuple[list[int], str]:
    """Rule 13: the memory a change said with a word pointing back replaces ("it went up to £1,290 in january",
    "they moved it to 5:30", "he moved to Manchester in the end", "not anymore, moved everything to Starling").
    `recent`: the user's active memories of their last few messages, newest first (or a callable giving them, asked
    only once the clause qualifies): a pronoun points no further back. The part of the clause that says a name, time or amount, with no thing of its own ("my water bill is 30
    now" names its thing: rule 7's), said in place of something and not for one occasion, replaces the newest of
    those memories holding a value of that kind when the message says a change: a word saying it moved or
    switched, or the old holder left; with only "now" (a clock, a price, the weather are "now" too) the value must
    be a name and the part say nothing the memory does not ("it's Hyperoptic now"). "he"/"she" prefer a memory
    that speaks of a person. Two such memories of one message: anyone's guess, nothing goes. Never an
    accumulating slot's memory, nor one of this message."""
    if cand.asked or _ADDRESSED.search(cand.text):
        return [], ""
    found = _value_part(cand.text)
    if found is None:
        return [], ""
    part, kind = found
    at = message_text.find(cand.clause)
    # what the clause's own sentence says up to its end: a pointer or a change in another sentence ("Don't quit!
    # ...") is about something else
    said_so_far = message_text[: at + len(cand.clause)] if at >= 0 else cand.clause
    said_so_far = _SENTENCE_END.split(said_so_far)[-1] if at >= 0 else said_so_far
    if not _POINTER.search(said_so_far):
        return [], ""  # in the user's own words: the memory's "their" may have been their "our"
    if NAMES_ITS_THING.match(part) and not _DONE_TO_IT.search(part):
        return [], ""  # "my phone bill went up to 30" names its thing; "the teacher moved it to 8:15" does not
    if relation(part) is not None or not in_place(_NO_LONGER.sub(" ", part)) or _ONE_OCCASION.search(part):
        return [], ""
    strong = _WEAK_CHANGE.sub(" ", part)
    moved = bool(cand.correction or SWITCH_CUES.search(said_so_far) or _LEFT.search(said_so_far)
                 or any(not _SAID_OF_A_THING.search(strong[: m.start()]) for m in OPEN_CUES.regex.finditer(strong)))
    if not moved and not (kind == "name" and _WEAK_CHANGE.search(part)):
        return [], ""
    besides = frozenset() if moved else _said_besides_the_name(part)
    person = bool(_PERSON_POINTER.search(said_so_far))
    if callable(recent):
        recent = recent()
    # the people of the conversation are no value: "... makes Maria feel humble" holds no name to replace
    people = _people(recent, cand) if kind == "name" else frozenset()
    if kind == "name" and not value_tokens(part) - people:
        return [], ""  # "Hey John, it's been ages": whom one talks to is no new value
    holders = [m for m in recent
               if m.status == "active" and m.user_id == user_id and m.message_id != message_id
               and (kind != "name" or held_values(m.text) - people)
               and not _accumulating(m.attribute) and kind in value_kinds(_TOLD_WHEN.sub(" ", m.text), sentence=True)
               and values_differ(m.text, part) and besides <= topic_words(m.text)
               and not frames.value_of_another_thing(topic_words(m.text), cand.text)]
    if person and any(about_a_person(m.text) for m in holders):
        holders = [m for m in holders if about_a_person(m.text)]
    if not holders:
        return [], ""
    newest = max(m.message_id or 0 for m in holders)
    said_last = [m for m in holders if (m.message_id or 0) == newest]
    if len(said_last) != 1:
        return [], ""
    return [said_last[0].id], (f"a {kind} said as a change with a word pointing back; the newest memory holding a "
                               f"{kind} in the user's last messages")
