"""From a message to candidates: sentences and clauses, cue words, the rule table, negation,
elliptical corrections and the fallback that keeps an ununderstood clause as a note.

Rules recognise the common slots of a person and a project; a clause no rule understands is still
kept as a note (the engine files it under the nearest canonical attribute by embedding similarity),
so nothing the user said is silently lost.
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Protocol, runtime_checkable

from .. import text as textlib
from .candidate import Candidate
from .compete import value_kinds
from .requests import instruction, unwrap
from .handlers import Found
from .rules import apply_rules
from ..lexicon import Lexicon
from .casing import names_capitalised, opens_with_name
from .second_language import standard_forms
from .values import clean_value, slug, strip_cue_prefix, value_key
from .vocabulary import (CORRECTION_CUES, DIETS, ENDING_CUES, IMPORTANT, JOB_NOUNS, RELATIVES, SLOTS,
                         TRAILING_PLEASANTRY, UPDATE_CUES, Slot)
from .voice import PAST_TENSE, finish_sentence, person_names, restore_dropped_subject, third_person, unfold

# "I no longer use Vim": the rules read the positive clause, the candidate records the negation.
_NEGATION = re.compile(
    r"^(?:i|we)\s+(?:(?:no longer|don't|do not|never|stopped|quit|gave up|dropped|ditched|am not|'m not|"
    r"are not|'re not)\s+(?:really\s+)?(?:have|own|use|using|play|playing|live|living|work|working|eat|eating|"
    r"drink|drinking|speak|like|love|do|go|drive|run|ride|keep|smoke|smoking)?)\b\s*(?P<rest>.*?)(?:\s+any\s?more)?\s*[.!]*$",
    re.IGNORECASE,
)


def slot_of(attribute: str, mem_type: str | None = None) -> Slot | None:
    """The canonical slot an attribute belongs to ("deadline_backend" -> deadline), if any."""
    if attribute in SLOTS:
        return SLOTS[attribute]
    for name, slot in SLOTS.items():
        if attribute.startswith(name + "_"):
            return slot
    return SLOTS["event"] if mem_type == "event" else None


def informative(clause: str) -> bool:
    """Worth keeping when no rule understood it: a statement with at least two content words, or a habit said in
    a few words ("I do yoga"); never a few words of talk or thought ("I suppose.", "I understand.")."""
    if textlib.is_small_talk(clause) or textlib.is_question_or_request(clause) or _DELIBERATION.match(clause.strip()):
        return False
    short = habit(clause)
    if short is not None:
        return short
    tokens = textlib.tokenize(clause)
    # Scripts without spaces (Japanese, Chinese) give one long token for a whole sentence.
    return (len(tokens) >= 2 or sum(len(t) for t in tokens) >= 6 or bool(_OWN_NAMED.match(clause.strip()))
            or bool(_NAMED_AFTER_PREPOSITION.match(clause.strip())))


# One's own thing said by its name is worth keeping with one content word: "I have a Kindle", "I own a Tesla",
# "we got a PS5"; not "I have a question".
_OWN_NAMED = re.compile(r"^(?:i|we)(?:'ve)?\s+(?:(?:just|also|now|finally)\s+)?(?:have|own|got|bought|use|drive|ride)"
                        r"\s+(?:(?:a|an|the|my|our|two|three)\s+)?(?-i:[A-Z][\w-]*|\w*\d\w*)\b", re.IGNORECASE)


# Saying one will think something over is talk, with or without its "I": "need to sleep on it", "I'll have to think
# about it", "gotta mull it over first".
_DELIBERATION = re.compile(
    r"^(?:i\s+|i'll\s+|ill\s+|we\s+|we'll\s+)?(?:(?:need|needs|have|got|gotta|want|will have|must)\s+(?:to\s+)?)?"
    r"(?:think|sleep|mull|chew|ponder|reflect)\s+(?:on|about|over)?\s*(?:it|that|this|things)?\s*(?:over|through)?"
    r"(?:\s+(?:a bit|a little|first|more|tbh|lol|then|for now|a while))*[\s.!,]*$",
    re.IGNORECASE)


# Where one gets a thing, or whom one is with, said by a name: "I get it from Rave now", "we're with EDF", "I'm on
# Vodafone"; the name is the fact, however short ("rave" alone is three letters).
_NAMED_AFTER_PREPOSITION = re.compile(
    r"^(?:i|we|i'm|im|we're|i've|we've)\s+(?:[a-z']+\s+){0,3}?(?:from|with|at|on|through|via)\s+(?-i:[A-Z][\w&'-]*|\w*\d\w*)",
    re.IGNORECASE)


# A habit or practice said in a few words is a fact about the speaker ("I do yoga", "i cycle", "I code in Go", "I
# don't drink", "we homeschool"), not chatter ("I see", "I guess", "I get it", "I do"): a verb in the present that
# is not one of talk, thought or wanting, and "do" with what is done.
_HABIT = re.compile(r"^(?:i|we)\s+(?:(?:also|still|usually|often|sometimes|mostly|mainly|really|actually|now|just|"
                    r"don't|dont|do not|never|always|kinda|basically|regularly|sure|totally|definitely|absolutely|"
                    r"so|too)\s+)*(?P<verb>[a-z]+)\b(?P<rest>[^?]*)$",
                    re.IGNORECASE)
_NOT_HABITS = frozenset("""
see know agree guess think mean suppose promise understand bet hope wonder care get dunno believe imagine assume
reckon doubt feel forget remember swear wish apologise apologize admit insist concur digress try am was will would
can could should might must shall may have had need want like love hate prefer got go come win lose mind thank miss
recall realise realize figure gotta wanna gonna hear say tell ask appreciate refuse confess object disagree protest
m ve ll d re also still just really did does lol""".split())
_CHATTER_REST = frozenset("it that this so you them too lol haha then there right".split())


def habit(clause: str) -> bool | None:
    """A clause of a few words said by the speaker of themself: True for a habit or practice ("I do yoga", "I
    cycle", "I code in Go"), False for talk or thought ("I suppose.", "I understand.", "I do."), None for any other
    clause (the past, a longer statement, "I know Python": decided by its content words)."""
    match = _HABIT.match(clause.strip(" .!,"))
    if match is None or len(clause.split()) > 6:
        return None
    verb, rest = match["verb"].casefold(), match["rest"]
    content = [w for w in textlib.tokenize(rest) if w not in _CHATTER_REST]
    if verb == "do":
        return bool(content)  # "I do yoga"; "I do.", "I sure do" answer something
    if verb in _NOT_HABITS:
        return None if content else False  # "I understand Spanish" is a fact; "I understand." is not
    if verb in PAST_TENSE or (verb.endswith("ed") and len(verb) > 4):
        return None
    return True


MAX_RULE_CLAUSE = 300
# Words that say a message corrects what was said. "sorry" alone is as often an apology for a state ("Running late,
# sorry", "Stuck in traffic, sorry!") as a correction ("Tuesday, sorry"): with no other of these words, the new value
# must be one of the old value's kind (correct()).
_CORRECTION_BESIDES_SORRY = (r"i meant|i mean|meant to say|make (?:that|it)|correction|oops|my bad|scratch that|rather|"
                             r"not\b|wrong|mistake|typo")
_CORRECTION = re.compile(rf"\b(?:{_CORRECTION_BESIDES_SORRY}|sorry)", re.IGNORECASE)
_CORRECTION_NOT_SORRY = re.compile(rf"\b(?:{_CORRECTION_BESIDES_SORRY})", re.IGNORECASE)
_BARE_VALUE_BUT = re.compile(r"^(?:not\s+(?P<old>[^,]+?),?\s+(?:but\s+)?(?P<new>.+)|(?P<new2>.+?),?\s+not\s+(?P<old2>.+))$",
                             re.IGNORECASE)


def _elliptical_correction(original: str, clause: str) -> tuple[str, str | None] | None:
    """(new value, replaced value or None) when the clause is a bare value said as a correction:
    "Oops, I meant Tuesday", "make that 7pm", "Tuesday, not Monday". Such a clause has no subject
    of its own; it corrects whatever the user said last."""
    if not _CORRECTION.search(original):
        return None
    clause = re.sub(r"^(?:i meant|i mean|meant to say|make (?:that|it)|it's|it is|rather)\s+", "", clause,
                    flags=re.IGNORECASE).strip(" ,.!")
    clause = re.sub(r"[\s,]+(?:sorry|oops|my bad|typo)$", "", clause, flags=re.IGNORECASE).strip(" ,.!")
    if re.search(r"\b(?:is|are|was|were|am|has|have|had)\b", clause, re.IGNORECASE):
        return None  # "Sister's name is Anna, typo": a whole statement, corrected in full, not a bare value
    if not textlib.tokenize(re.sub(r"\bnot\b", "", clause, flags=re.IGNORECASE)):
        return None
    if not clause or len(clause.split()) > 5 or re.match(r"^(?:i|my|we|our|i'm|i've|you|your)\b", clause, re.IGNORECASE):
        return None
    pair = _BARE_VALUE_BUT.match(clause)
    if pair:
        new, old = (pair["new"] or pair["new2"]).strip(" ,."), (pair["old"] or pair["old2"]).strip(" ,.")
        return (new, old) if new and old else None
    return clause, None


def extract(message: str, *, speaker: str | None = None, lexicon: Lexicon | None = None,
            join_pointing_back: bool = True) -> list[Candidate]:
    """Every fact candidate in a message, in order. Small talk, questions and requests give none. With a `lexicon`,
    the names of a message typed all in lower case are capitalised first (casing.py). With `join_pointing_back`, a
    clause pointing back to the fact said before it is kept inside that fact (_pointing_back_joined)."""
    if lexicon is not None:
        message = names_capitalised(message, lexicon)
    subject_key, S, P = person_names(speaker)
    candidates: list[Candidate] = []
    people: list[Candidate] = []  # named inside questions and requests
    question = ""  # the question the sentence before asked, if it asked one
    sentences = _names_joined(textlib.split_sentences(_new_one_named(_titled_names(textlib.normalize(message)))))
    for sentence in _pronouns_resolved([_kin_named(standard_forms(s)) for s in sentences]):
        instructed, rest = instruction(sentence, S) if subject_key == "user" else ([], sentence)
        if instructed:
            candidates.extend(instructed)
            if not rest:
                continue
            sentence = rest  # the reason given with it ("keep it short, I'm a beginner") is a fact of its own
        sentence = unwrap(textlib.strip_leading_filler(sentence))
        identity, sentence = said_as_a_frame(sentence)
        if identity:
            candidates.extend(_extract_clause(identity, subject_key, S, P, False))
        named = _people_named(sentence, subject_key, S, P) if textlib.is_question_or_request(sentence) else []
        people.extend(named)
        cue_in_sentence = bool(UPDATE_CUES.search(sentence))
        corrects = bool(CORRECTION_CUES.search(sentence))
        from_sentence: list[Candidate] = []
        for clause in textlib.split_clauses(sentence):
            found = _extract_clause(clause, subject_key, S, P, cue_in_sentence)
            from_sentence.extend([replace(c, correction=True) for c in found] if corrects else found)
        # A request no rule understood that names something of the user's is kept as said, also beside the
        # facts of the message's other sentences ("Any tips for my trip to Kyoto? I'll be there a week.").
        if not from_sentence and not _only_names(sentence, named):
            from_sentence = _request_as_note(sentence, subject_key, S)
        if question:
            from_sentence = _said_after(from_sentence, question)
        question = sentence.strip() if sentence.rstrip().endswith("?") else ""
        candidates.extend(from_sentence)
    found = _dedupe((_pointing_back_joined(candidates) if join_pointing_back else candidates) + people)
    if lexicon is None:
        return found
    return [replace(c, opens_with_name=True) if opens_with_name(c.text, lexicon) else c for c in found]


# A name typed in lower case after a title ("registered with dr oyelaran now"): the title says it is a name.
# Not after a number: "200 ms on average" is a time.
_LOWER_TITLED = re.compile(r"(?<!\d)(?<!\d )\b(dr|mr|mrs|ms|prof)(\.?\s+)([a-z][a-z'-]+)\b", re.IGNORECASE)


# A thing or a person said before, pointed back to: "had it about 5 years now", "she sleeps on my bed".
_POINTS_BACK = re.compile(r"\b(?:it|its|them|they|their|she|he|her|him)\b", re.IGNORECASE)  # "it's" too
# A duration said up to now ("had it about 5 years now") is no change.
_DURATION_NOW = re.compile(r"\b(?:years?|months?|weeks?|days?|ages|decades?|a while)\s+now\b", re.IGNORECASE)
# Only a short fact and a short clause are joined: a memory says one thing, and a long text's vector says neither
# ("User won a big video game tournament last week and it was awesome." kept inside a chatty paragraph is not found
# for "when did Nate win a tournament?").
POINTING_BACK_WORDS = 15
# Whose clause it is: the speaker's ("I feed it", "my mouth swells if I eat them") or the thing's ("it's 5 years
# old"); one that opens with a name is that person's own ("Sarah says it's too big").
_SPEAKER_OR_POINTED = frozenset("i i'm i've i'd we we're we've my our me us it its it's they they're their she "
                                "she's he he's".split())


def _pointing_back_joined(candidates: list[Candidate]) -> list[Candidate]:
    """A clause no rule understood that points back with a pronoun ("I drive a VW Golf, had it about 5 years now")
    says nothing of what it is about when it stands alone, so it would answer any question of its kind ("how long
    have I played the piano?"). It is kept inside the fact said just before it in the message: one memory, "User
    drives a VW Golf. User had it about 5 years now.", that is found by both and replaced with the car. Both must
    be short (POINTING_BACK_WORDS each), and neither may say that something changed (_updates)."""
    out: list[Candidate] = []
    for c in candidates:
        if out and _points_back_to(out[-1], c):
            # The clause stays the fact's own: conflict resolution reads what it says, not what was said of it.
            out[-1] = replace(out[-1], text=f"{out[-1].text} {c.text}"[:1000],
                              importance=max(out[-1].importance, c.importance))
        else:
            out.append(c)
    return out


def _points_back_to(fact: Candidate, clause: Candidate) -> bool:
    """Is `clause` a short note of the speaker's or of the thing's that points back to `fact`, said just before it,
    with neither saying that something changed?"""
    opens = clause.value.split()[0].casefold() if clause.value.split() else ""
    return (clause.rule == "fallback" and bool(_POINTS_BACK.search(clause.clause)) and opens in _SPEAKER_OR_POINTED
            and fact.subject == clause.subject and not fact.elliptical and fact.attribute != "assistant_instruction"
            and not fact.replaced_value and not _updates(fact.clause) and not _updates(clause.clause)
            and max(len(fact.text.split()), len(clause.text.split())) <= POINTING_BACK_WORDS)


def _updates(clause: str) -> bool:
    """Does a clause say something changed or ended ("I buy it at the Lidl bakery now", "they moved it to 5:30",
    "Sold the Golf")? Such a clause is about a fact said before this message, and conflict resolution compares its
    own words and vector with that fact's: it is not joined, nor is a clause joined to it."""
    clause = _DURATION_NOW.sub("", clause)
    return bool(UPDATE_CUES.search(clause) or ENDING_CUES.search(clause))


def _titled_names(message: str) -> str:
    return _LOWER_TITLED.sub(lambda m: f"{m[1].capitalize()}{m[2]}{m[3].capitalize()}", message)


# "the new one" after "the old X" in one message is the new X: "got rid of the old couch, new one is from DFS".
_OLD_THING = re.compile(r"\b(?:the|my|our|his|her|their)\s+old\s+([a-z][a-z-]+)\b", re.IGNORECASE)
_NEW_ONE = re.compile(r"\bnew one\b", re.IGNORECASE)


def _new_one_named(message: str) -> str:
    old = _OLD_THING.search(message)
    if old is None:
        return message
    return message[:old.end()] + _NEW_ONE.sub(lambda m: f"{m.group(0)[:4]}{old.group(1)}", message[old.end():])


# A sentence that ends naming a new thing of one's own ("New mobile.", "found a new stylist!!!"), and one after it that
# is only a name and where or what it is ("Pixel 8a.", "Marco at the Cutting Room, never going back"): the name is
# that thing's, said as chat says it, with a full stop for a comma. Not a name that does something ("Sarah says
# it's too big"), nor a sentence opening with a word that is no name ("It's a Trek", "The one from Argos").
_NEW_THING_END = re.compile(r"\bnew\s+(?:[a-z-]+\s+){0,2}[a-z-]+\s*(?:[.!…]+)?\s*$", re.IGNORECASE)
_NAME_ALONE = re.compile(r"^(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[A-Z][\w'&.+-]*(?:\s+[A-Z0-9][\w'&.+-]*)*"
                         r"(?=\s*(?:$|[,.!;:…-]|\s(?:at|from|in|on|with|by|for|of|off|near|over)\b))")
_NO_NAME = frozenset("i i'm im i've it it's its the this that these those my our he she they we you there here a an "
                     "new so and but yes no ok okay well anyway also".split())


def _names_joined(sentences: list[str]) -> list[str]:
    joined: list[str] = []
    for sentence in sentences:
        first = sentence.split()[0].casefold().strip(",.!") if sentence.split() else ""
        if (joined and _NEW_THING_END.search(joined[-1]) and _NAME_ALONE.match(sentence) and first not in _NO_NAME
                and not sentence.rstrip().endswith("?")):
            joined[-1] = f"{joined[-1].rstrip(' .!…')}, {sentence}"
        else:
            joined.append(sentence)
    return joined


# What a statement leaves unsaid when it leans on the question before it: "Is it ok to run with asthma? I was
# diagnosed last year." names the asthma only in the question.
_LEANING_WORDS = frozenset("it one them that this last year years month months week weeks ago yesterday today "
                           "recently since for about".split())


def _leans(clause: str) -> bool:
    words = [w.casefold() for w in re.findall(r"[\w']+", clause)]
    content = [t for t in textlib.tokenize(clause) if t not in _LEANING_WORDS]
    return len(content) <= 1 and bool(words) and words[0] in ("i", "i'm", "i've", "we", "we've", "i'd")


def _said_after(candidates: list[Candidate], question: str) -> list[Candidate]:
    """A statement no rule understood that says only a verb and when ("I was diagnosed last year") is kept with
    the question the user asked just before it, as a reply is kept with the question it answers."""
    for n, cand in enumerate(candidates):
        if not cand.understood and not cand.asked and _leans(cand.clause):
            return [*candidates[:n], replace(cand, asked=question), *candidates[n + 1:]]
    return candidates


def _only_names(sentence: str, named: list[Candidate]) -> bool:
    """Does a request name nothing but the people already kept from it ("a gift for my wife Lena?")? Then the
    request itself adds nothing to remember; "a dinner for my aunt Ingrid's retirement in Bruges" does."""
    if not named:
        return False
    names = {c.value.split()[-1].casefold() for c in named}
    said = {re.sub(r"'s$", "", w).casefold() for w in re.findall(r"(?<=\s)(?:[A-Z][\w'-]*|\S*\d\S*)", sentence)}
    return said <= names


def _people_named(sentence: str, subject_key: str, S: str, P: str) -> list[Candidate]:
    """Someone the speaker names inside a question or request ("a card for my Polish neighbour Kasia?") is
    someone they know: "User's Polish neighbour is called Kasia." A mention says the user has such a person, not
    that it is their only one ("for my aunt Marta" after "for my aunt Ingrid"): a note that replaces nothing."""
    found: list[Candidate] = []
    for m in _PERSON_MENTION.finditer(sentence):
        if m["name"]:
            name, who = re.sub(r"'s$", "", m["name"]), f"{m['adj'] or ''}{m['rel'].lower()}"
            found.append(Candidate(subject=subject_key, attribute="note", value=f"{who} {name}", type="fact",
                                   importance=0.5, multi=True, text=f"{P} {who} is called {name}.",
                                   clause=f"my {m['rel'].lower()} is called {name}", rule="person_named"))
    return found


def _alternatives(words) -> str:
    # longest first: "mother-in-law" before "mother"
    return "|".join(sorted(words, key=len, reverse=True))


_FEMALE = _alternatives(w for words, she_or_he in RELATIVES if she_or_he == "f" for w in words.split())
_MALE = _alternatives(w for words, she_or_he in RELATIVES if she_or_he == "m" for w in words.split())
_EITHER = _alternatives([w for words, she_or_he in RELATIVES if not she_or_he for w in words.split()] + (
    "partner spouse colleague coworker co-worker boss manager friend neighbour neighbor teacher mentor kid child "
    "roommate flatmate housemate client doctor dentist therapist landlord landlady coach teammate tutor").split())
_PERSON_MENTION = re.compile(
    rf"\b(?i:my|our)\s+(?P<adj>(?!(?i:and|or)\b)[\w-]+\s+(?=(?i:{_FEMALE}|{_MALE}|{_EITHER})(?!\w)))?"
    rf"(?P<rel>(?i:{_FEMALE}|{_MALE}|{_EITHER}))(?!\w)(?!'s\s+[A-Z])(?:,?\s+(?P<name>[A-Z][\w'-]+)(?![\w'-]))?")
_LEADING_PRONOUN = re.compile(r"^(?P<p>he|she)(?P<be>'s|\s+is)?\b", re.IGNORECASE)


# "Mum", "Dad", "Grandma" written as a name (capitalised, with no "my" before it) are the speaker's own.
_KIN_AS_NAME = re.compile(r"(?<![\w'-])(?<!my )(?<!My )(?<!our )(?<!Our )(?<!your )(?<!his )(?<!her )(?<!their )"
                          r"(?<!'s )(Mum|Mom|Mam|Mummy|Mommy|Dad|Daddy|Grandma|Grandpa|Granny|Gran|Nan|Nana|Grandad|"
                          r"Granddad)(?![\w-])")


def _kin_named(sentence: str) -> str:
    """"Mum moved to Bristol" -> "my mum moved to Bristol"."""
    return _KIN_AS_NAME.sub(lambda m: "my " + m.group(1).lower(), sentence)


def _pronouns_resolved(sentences: list[str]) -> list[str]:
    """A sentence that starts with "he"/"she" after earlier sentences of the message named exactly one
    relative or acquaintance of the speaker's that the pronoun fits ("Any ideas for my sister's birthday?
    She loves climbing.") is about that person: the pronoun becomes "my sister". With two candidates, or
    none that fits, the sentence stays as it was."""
    out: list[str] = []
    mentions: list[tuple[str, str]] = []  # (phrase, gender: f / m / either)
    for sentence in sentences:
        lead = _LEADING_PRONOUN.match(sentence.strip())
        if lead and mentions:
            wanted = "f" if lead["p"].lower() == "she" else "m"
            fitting = {phrase for phrase, gender in mentions if gender in (wanted, "either")}
            if len(fitting) == 1:
                phrase = fitting.pop()
                rest = sentence.strip()[lead.end():]
                sentence = f"{phrase}{' is' if lead['be'] else ''}{rest}"
        named_here = list(_PERSON_MENTION.finditer(sentence))
        for m in named_here:
            rel = m["rel"].lower()
            gender = "f" if re.fullmatch(_FEMALE, rel) else "m" if re.fullmatch(_MALE, rel) else "either"
            phrase = f"my {m['adj'] or ''}{rel}" + (f" {m['name']}" if m["name"] else "")
            mentions.append((phrase, gender))
        if mentions:
            sentence = _object_pronoun_resolved(sentence, mentions, named_here[0].end() if named_here else 0)
        out.append(sentence)
    return out


# "him"/"her" as an object: followed by the end of the clause or a small word, not by what "her" owns ("her car").
_OBJECT_PRONOUN = re.compile(
    r"\b(?P<p>him|her)\b(?=\s*(?:$|[,.;:!?)])|\s+(?:every|each|on|at|in|to|for|with|about|again|once|twice|weekly|"
    r"monthly|daily|tomorrow|today|tonight|next|last|this|since|because|and|but|so|when|after|before|often|"
    r"sometimes|a lot)\b)", re.IGNORECASE)


def _object_pronoun_resolved(sentence: str, mentions: list[tuple[str, str]], after: int) -> str:
    """"My therapist is Dr. Osei, I see her every other Thursday" -> "… I see my therapist every other Thursday":
    an object pronoun after the mention is the one person named so far that it fits; else it stays."""
    def one(m: re.Match[str]) -> str:
        if m.start() < after:
            return m.group(0)
        wanted = "f" if m["p"].lower() == "her" else "m"
        fitting = {phrase for phrase, gender in mentions if gender in (wanted, "either")}
        return fitting.pop() if len(fitting) == 1 else m.group(0)
    return _OBJECT_PRONOUN.sub(one, sentence)


_ASKS_FOR = re.compile(r"\b(?:what|when|where|which|who|whom|whose|how|if|whether)\b", re.IGNORECASE)


def _request_as_note(message: str, subject_key: str, S: str) -> list[Candidate]:
    """A request no rule understood that still tells something of the user's own ("help me with a
    toast for my brother Marco's wedding in Sicily"): the message is kept as a note, so a miss in
    the rules is not a miss in recall. It must name something (a name or a number beyond the first
    word) of the user's (my/our) and not ask for information (what/when/...)."""
    text = message.strip()
    if not text or textlib.is_small_talk(text) or _ASKS_FOR.search(text):
        return []
    if not textlib.is_question_or_request(text) or not re.search(r"\b(?:my|our)\b", text, re.IGNORECASE):
        return []
    if not re.search(r"(?<=\s)(?:[A-Z][\w'-]*|\S*\d)", text) or len(text) > MAX_RULE_CLAUSE:
        return []
    return [Candidate(subject=subject_key, attribute="note", value=clean_value(text)[:500], type="fact",
                      importance=0.45, multi=True, text=f"{S} asked: {third_person(text.rstrip('?'), S)}"[:1000],
                      clause=text, understood=False, rule="request")]


# A liking for a form of what the assistant writes ("I prefer bullet points over long paragraphs", "I hate emojis
# in replies") is how the assistant should answer: an instruction, in the words instructions are kept in. Every
# word of the value must be of that form: "tables made of oak", "reading long answers on reddit" are not.
_REPLY_FORM_WORDS = frozenset("""
bullet bullets bulleted point points list lists numbered paragraph paragraphs table tables heading headings headers
markdown emoji emojis emoticons code example examples snippet snippets block blocks sample samples short shorter
long longer brief concise detailed simple plain formal casual answer answers reply replies response responses
explanation explanations sentence sentences word words language english tl dr tldr tldrs summary summaries step
by jargon wall walls of text exclamation marks over to than rather instead in with and or the a an lots more less
fewer no
""".split())
_REPLY_FORM = re.compile(r"\b(?:bullet|bullets|paragraphs?|tables?|headings?|markdown|emojis?|answers?|replies|"
                         r"code (?:examples?|snippets?|blocks?)|responses?|explanations?|summaries|jargon|tl;?drs?)\b",
                         re.IGNORECASE)


def _as_instruction(found: Found, S: str) -> Found:
    value = found.value.rstrip(".")
    if (found.attribute not in ("likes", "dislikes") or not _REPLY_FORM.search(value)
            or not set(re.findall(r"[a-z]+", value.casefold())) <= _REPLY_FORM_WORDS):
        return found
    wish = "to use" if found.attribute == "likes" else "not to use"
    value = re.sub(r"\bto\b", "rather than", value)  # "prefer tables to walls of text"
    return replace(found, attribute="assistant_instruction", type="preference", subject="user",
                   text=f"{S} wants the assistant {wish} {value}.", rule=f"{found.rule} (instruction)")


_TOGETHER = re.compile(r"^me and (?:(?:my|our)\s+)?[\w'-]+\s+(?P<rest>.+)$", re.IGNORECASE)
# When, said before who: "Since two months I have my own flat in Porto", "In March we moved to Leeds". The rules
# read the speaker first ("I have my own flat in Porto since two months").
_WHEN_FIRST = re.compile(r"^(?P<when>(?:since|for|last|this|in|from|as of|starting|over|during|these|nowadays|lately)"
                         r"(?:\s+(?!(?:i|we|i'm|we're|i've|we've|my|our)\b)[\w'-]+){0,3}),?\s+"
                         r"(?P<rest>(?:i|we|i'm|we're|i've|we've|im)\b.+)$", re.IGNORECASE)


# Who the speaker is, said as the frame of what follows: "As a vegan, any good recipes?", "as a nurse i do nights",
# "as a freelance translator do I need to charge VAT?". The frame may say where or of what ("as a nurse at St
# Thomas'", "as a dad of two"); it ends at a comma, at the speaker, or where the question starts. Only a job, a
# diet, a parent, a learner's level or one who does something ("a season ticket holder", "a wheelchair user"):
# "as a kid", "as a result", "as a reminder" say no one.
_AS_A = re.compile(r"^\s*as\s+an?\s+(?P<np>(?:[\w-]+\s+){0,2}?(?P<head>[\w-]+)"
                   r"(?:\s+(?:at|in|for|with|on|from|of)\s+(?:[\w'-]+\s+){0,3}?[\w'-]+)?)\s*"
                   r"(?:,\s*|\s+(?=(?:i|i'm|im|i've|i'd|my|we|we're|our|do|does|did|can|could|should|would|will|is|"
                   r"are|am|how|what|which|where|when|who|any|anyone)\b))(?P<rest>\S.*)$", re.IGNORECASE)
_IDENTITY = re.compile(rf"(?:{JOB_NOUNS.pattern}|(?:{DIETS})|mum|mom|dad|mother|father|parent|grandparent|grandma|"
                       r"grandmother|grandad|grandpa|grandfather|step(?:mum|mom|dad|mother|father|parent)|beginner|"
                       r"novice|newbie|learner|[a-z]{3,}(?:er|or|ist|ian))s?", re.IGNORECASE)
# Words of a doer's shape that name no one: "as a reminder", "as a matter of fact", "as a starter".
_NO_ONE = frozenset("reminder matter number starter order letter border corner answer cover shelter whisper "
                    "whatever however pointer marker filler factor error mirror favour favor honour honor".split())
# What follows is about someone else ("As a writer, Maria has always loved Paris", "as a teacher, she gets the summers
# off"): the frame is theirs. A capitalised word that opens a question is no name.
_SOMEONE_ELSE_FIRST = re.compile(r"^(?:(?:he|she|they|it|his|her|their)\b|(?!(?:I|I'm|I've|I'd|Im|My|Our|We|We're|Do|"
                                 r"Does|Did|Can|Could|Should|Would|Will|Is|Are|Am|How|What|Which|Where|When|Who|Any|"
                                 r"Anyone|Why|Please)\b)[A-Z][a-z])")
# Told of the past ("as a student I worked in a bar"): who they were then.
_PAST_AFTER_SPEAKER = re.compile(rf"^(?:i|we)\s+(?:\w+ly\s+)?(?:\w+ed|{'|'.join(sorted(PAST_TENSE))}|was|were|used "
                                 r"to)\b", re.IGNORECASE)


def said_as_a_frame(sentence: str) -> tuple[str, str]:
    """("I'm a <who>", the rest) when a sentence opens with who the speaker is as the frame of what follows ("As a
    vegan, any good recipes for tofu?"); ("", the sentence) otherwise."""
    m = _AS_A.match(sentence)
    if (m is None or not _IDENTITY.fullmatch(m["head"]) or m["head"].casefold().rstrip("s") in _NO_ONE
            or _PAST_AFTER_SPEAKER.match(m["rest"]) or _SOMEONE_ELSE_FIRST.match(m["rest"])):
        return "", sentence
    return f"I'm a {m['np']}", m["rest"]


def _speaker_first(clause: str) -> str:
    moved = _WHEN_FIRST.match(clause)
    return f"{moved['rest']} {moved['when'][:1].lower()}{moved['when'][1:]}" if moved else clause


def _extract_clause(clause: str, subject_key: str, S: str, P: str, cue_in_sentence: bool) -> list[Candidate]:
    original = clause.strip()
    clause = textlib.strip_leading_filler(original)
    clause = strip_cue_prefix(clause)
    clause = unfold(restore_dropped_subject(textlib.strip_leading_filler(clause).strip(" ,;:-")))
    if not clause or textlib.is_small_talk(clause) or textlib.is_question_or_request(clause):
        return []
    clause = re.sub(r"^(?:remember that|note that|fyi,?|just so you know,?|for the record,?|please remember(?: that)?|keep in mind(?: that)?)\s+", "", clause, flags=re.IGNORECASE)
    clause = TRAILING_PLEASANTRY.sub("", clause)
    clause = re.sub(r"[.!]+$", "", clause).strip()
    if not clause:
        return []
    cue = bool(UPDATE_CUES.search(original)) or cue_in_sentence
    # Rules are for sentences people say; a very long clause goes straight to the fallback, which
    # also keeps matching time linear in the length of the message.
    # "me and my wife live in Porto": the rules read what the user does ("I live in Porto"); the fact keeps with
    # whom beside it.
    together = _TOGETHER.match(clause)
    rule_clause = f"I {together['rest']}" if together else _speaker_first(clause)
    found = apply_rules(rule_clause, S, P) if len(clause) <= MAX_RULE_CLAUSE else []
    negated = None
    if not found and len(clause) <= MAX_RULE_CLAUSE:
        neg = _NEGATION.match(clause)
        if neg and neg["rest"]:
            positive = re.sub(r"\b(?:no longer|don't|do not|never|stopped|quit|gave up|dropped|ditched|am not|'m not|are not|'re not)\s+", "", clause, count=1, flags=re.IGNORECASE)
            positive = re.sub(r"\s+any\s?more\b", "", positive, flags=re.IGNORECASE)
            positive = re.sub(r"^(i|we)\s+(\w+)ing\b", lambda mm: f"{mm[1]} {mm[2]}", positive, flags=re.IGNORECASE)
            inner = apply_rules(positive, S, P)
            if inner:
                negated = [replace(f, value=f"not {f.value}", text=third_person(clause, S), replaced_value=f.value,
                                   rule=f"{f.rule} (negated)") for f in inner]
        found = negated or []
    out: list[Candidate] = []
    for f in found:
        f = _as_instruction(f, S)
        slot = SLOTS.get(f.attribute)
        subject = f.subject or (slot.subject if slot and slot.subject != "user" else subject_key)
        mem_type = f.type or (slot.type if slot else "fact")
        multi = slot.multi if slot else False
        if subject.startswith("event:"):
            mem_type, multi, slot = "event", False, SLOTS["event"]
        text = f.text or third_person(clause, S)
        if f.text and together:
            text = f"{text} {third_person(clause, S)}"
        elif f.text and _when_left_out(clause, f.text):
            # "I moved to Canada in 2019" is "User lives in Canada."; the year is the user's answer to "when did I
            # move?", so their sentence stays beside the fact.
            text = f"{text} {third_person(clause, S)}"
        value = f.value.strip()
        if not value:
            continue
        out.append(Candidate(
            subject=subject, attribute=f.attribute, value=value[:500], type=mem_type,
            importance=_importance(slot, original), multi=multi, text=text[:1000], clause=original,
            update_cue=cue or f.replaced_value is not None, replaced_value=f.replaced_value, rule=f.rule,
        ))
    if out:
        return out
    elliptical = _elliptical_correction(original, clause)
    if elliptical is not None:
        value, replaced = elliptical
        return [Candidate(subject="", attribute="", value=value, type="fact", importance=0.5, multi=False,
                          text=value, clause=original, update_cue=True, replaced_value=replaced, elliptical=True,
                          rule="correction")]
    if not informative(clause):
        return []
    return [Candidate(
        subject=subject_key, attribute="note", value=clean_value(clause)[:500], type="fact",
        importance=_importance(SLOTS["note"], original) - 0.05, multi=True, text=third_person(clause, S)[:1000],
        clause=original, update_cue=cue, replaced_value=None, understood=False, rule="fallback",
    )]


# When something happened, said as a date, a year, a month or a time ago ("in 2019", "in February 2026", "on Monday
# 23 February 2026", "two years ago").
_WHEN_SAID = re.compile(
    r"\b(?:(?:in|since|back in|during|on|from)\s+(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day\s+)?(?:\d{1,2}\s+)?"
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december|\d{4})\b"
    r"(?:\s+\d{4})?|\w+\s+(?:days|weeks|months|years)\s+ago)\s*$", re.IGNORECASE)


def _when_left_out(clause: str, text: str) -> bool:
    """Did a rule's sentence leave out when the clause says it happened?"""
    when = _WHEN_SAID.search(clause)
    if when is None:
        return False
    date = re.sub(r"^(?:in|since|back in|during|on|from)\s+", "", when.group(0).strip(), flags=re.IGNORECASE)
    return date.casefold() not in text.casefold()


def _importance(slot: Slot | None, clause: str) -> float:
    base = slot.importance if slot else 0.5
    if IMPORTANT.search(clause):
        base += 0.1
    return round(min(1.0, max(0.0, base)), 2)


def _dedupe(candidates: list[Candidate]) -> list[Candidate]:
    seen: set[tuple[str, str, str]] = set()
    out = []
    for c in candidates:
        key = (c.subject, c.attribute, value_key(c.value))
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def correct(previous: "Candidate | object", correction: Candidate) -> Candidate | None:
    """Apply an elliptical correction ("I meant Tuesday") to the fact said last (a Memory or a
    Candidate): same slot, the value swapped in its sentence. None when the swap is not clear."""
    old_value = correction.replaced_value or previous.value
    if not _CORRECTION_NOT_SORRY.search(correction.clause) and not _of_its_kind(correction.value, old_value):
        return None
    text = previous.text
    where = text.casefold().find(old_value.casefold()) if old_value else -1
    if where < 0 and old_value and not correction.replaced_value:
        old_value, where = _value_as_said(old_value, text)
    if where < 0 or len(old_value) > 0.8 * len(text):
        return None  # the old value is not a distinct part of the sentence: nothing clear to swap
    new_text = text[:where] + correction.value + text[where + len(old_value):]
    new_value = correction.value if old_value.casefold() == previous.value.casefold() else \
        re.sub(re.escape(old_value), correction.value, previous.value, flags=re.IGNORECASE)
    multi = getattr(previous, "multi", getattr(previous, "multi_valued", False))
    return Candidate(subject=previous.subject, attribute=previous.attribute, value=new_value, type=previous.type,
                     importance=previous.importance, multi=multi, text=new_text, clause=correction.clause,
                     update_cue=True, replaced_value=previous.value, rule="correction")


def _value_as_said(value: str, text: str) -> tuple[str, int]:
    """The part of a slot's value that its sentence says, and where: a slot keeps a value in its own words ("cat
    named Miso") and the sentence in the user's ("User's cat is called Miso."). The value's last words, as many as
    the sentence has, when they are a name, a time or an amount; (value, -1) when it has none of them."""
    words = value.split()
    for start in range(1, len(words)):
        tail = " ".join(words[start:])
        where = text.casefold().find(tail.casefold())
        if where >= 0 and value_kinds(tail) - {"phrase"}:
            return tail, where
    return value, -1


def _of_its_kind(new_value: str, old_value: str) -> bool:
    """Is a new value one of the old value's kind (a name, a time, an amount), when the old one is of any? A value of
    several words is read as a sentence ("Stuck in traffic" names no one); one word as a value ("Mochi" does)."""
    old = value_kinds(old_value) - {"phrase"}
    return not old or bool(old & value_kinds(new_value, sentence=len(new_value.split()) > 1))


def structured(subject: str, attribute: str, value: str, mem_type: str) -> Candidate:
    """A candidate for a memory given directly as (subject, attribute, value)."""
    attr = slug(attribute)
    slot = SLOTS.get(attr)
    subj = subject.strip().casefold() or "user"
    name = "User" if subj == "user" else ("Project" if subj == "project" else subject.strip())
    label = attribute.strip().replace("_", " ")
    text = finish_sentence(f"{name}'s {label} is {value.strip()}" if name != "Project" else f"Project {label} is {value.strip()}")
    return Candidate(
        subject=subj, attribute=attr, value=value.strip(), type=mem_type,
        importance=slot.importance if slot else 0.6, multi=slot.multi if slot else False, text=text,
        clause=f"{subject}: {attribute} = {value}", update_cue=False, rule="structured",
    )


@runtime_checkable
class Extractor(Protocol):
    """Turns one message into fact candidates. Passed to MemoryEngine(extractor=...), like embedder=.

    `name` identifies it in evaluation runs. An extractor returns [] for small talk, questions and
    requests that hold no fact; it never raises on well-formed text.
    """

    name: str

    def extract(self, message: str, *, speaker: str | None = None) -> list[Candidate]: ...


class RuleExtractor:
    """The default extractor: the rule table of this package, no model needed. `lexicon`: which words are English
    (engine/lexicon.py), to give the names of a message typed in lower case their capitals; None: left as typed.
    `join_pointing_back`: a clause pointing back to the fact before it is kept in that fact's memory."""

    name = "rules"

    def __init__(self, lexicon: Lexicon | None = None, *, join_pointing_back: bool = True):
        self.lexicon = lexicon
        self.join_pointing_back = join_pointing_back

    def extract(self, message: str, *, speaker: str | None = None) -> list[Candidate]:
        return extract(message, speaker=speaker, lexicon=self.lexicon, join_pointing_back=self.join_pointing_back)
