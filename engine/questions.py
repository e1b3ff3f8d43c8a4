"""Question rewriting for recall: does a query ask about the past, the query in the third person
memories are stored in, and the start of the statement a question asks for.

Pure functions of the query string, like text.py, and tested the same way.
"""
from __future__ import annotations

import re
from functools import lru_cache
from itertools import takewhile
from typing import Callable, Iterable

from .extraction.compete import (MEALS, PEOPLE, about_a_person, followed_by_a_noun, has_time,
                                 of_someone_elses_life, things_said)
from .extraction.requests import assistant_voice
from .extraction.vocabulary import JOB_NOUNS, RELATIVES
from . import text as textlib
from .kinds import Kinds, common_words
from .text import STOPWORDS


# --- history cues in queries --------------------------------------------------------------------

_HISTORY_CUES = re.compile(
    r"\b(?:used to|use to|previously|previous|originally|original|formerly|former|earlier|"
    r"in the past|prior|back then|at first|anymore|no longer|changed from|"
    # "my old rent", "the old one"; not "how old am I?"
    r"(?<!how )old(?! (?:am|is|are|was|were|will|do|does|did)\b))\b",
    re.IGNORECASE,
)


# "before" asks about the past at the end of a question ("where did I live before?") or in a question said in the
# past ("what car did I have before the Tesla?"); in the present it says when: "what do I have before bed?".
_BEFORE_AT_THE_END = re.compile(r"\bbefore\W*$", re.IGNORECASE)
_BEFORE = re.compile(r"\bbefore\b", re.IGNORECASE)
_PAST = re.compile(r"\b(?:did|was|were|had|used)\b", re.IGNORECASE)


def wants_history(query: str) -> bool:
    """Does the question ask about the past ("where did I live before?")?"""
    return bool(_HISTORY_CUES.search(query) or _BEFORE_AT_THE_END.search(query)
                or (_BEFORE.search(query) and _PAST.search(query)))


# --- first-person questions -------------------------------------------------------------------

_QUESTION_PERSON = [
    (re.compile(r"\b(?:do|don't) i\b", re.IGNORECASE), "does the user"),
    (re.compile(r"\bam i\b", re.IGNORECASE), "is the user"),
    (re.compile(r"\b(?:have|haven't) i\b", re.IGNORECASE), "has the user"),
    (re.compile(r"\bwas i\b", re.IGNORECASE), "was the user"),
    (re.compile(r"\b(?:i am|i'm|im)\b", re.IGNORECASE), "the user is"),
    (re.compile(r"\bi've\b", re.IGNORECASE), "the user has"),
    (re.compile(r"\bi'd\b", re.IGNORECASE), "the user would"),
    (re.compile(r"\bi'll\b", re.IGNORECASE), "the user will"),
    (re.compile(r"\b(?:my|mine|our|ours)\b", re.IGNORECASE), "the user's"),
    (re.compile(r"\b(?:me|myself|us)\b", re.IGNORECASE), "the user"),
    (re.compile(r"\b(?:do|don't) we\b", re.IGNORECASE), "does the user"),
    (re.compile(r"\bi\b|\bwe\b", re.IGNORECASE), "the user"),
]


def as_third_person_question(query: str) -> str:
    """Memories are stored in the third person ("User lives in Oslo"); asking "where do I live?" as
    "where does the user live?" puts the question in the same voice, which MiniLM rewards."""
    for pattern, replacement in _QUESTION_PERSON:
        query = pattern.sub(replacement, query)
    return query


# Words that only say "at present" name no topic, yet MiniLM weighs them like one: "which city am I based in
# nowadays" scores "User lives in Reykjavik." 0.38, without "nowadays" 0.53; "what's my job at the moment"
# 0.55 vs 0.68. Recall already ranks current memories first, so the embedded question leaves them out.
# "now" stays in "from now on", "until now", "by now" and "up to now", which say something else.
_AT_PRESENT = re.compile(
    r"(?<!\w)(?:right now|these days|nowadays|at the moment|at present|presently|currently|lately|for now|"
    r"(?<!from )(?<!until )(?<!till )(?<!by )(?<!to )now(?! on\b))(?!\w)[,]?",
    re.IGNORECASE)


def without_present_fillers(question: str) -> str:
    """"where do I live now?" -> "where do I live?"; a question that is nothing but fillers is kept."""
    stripped = _AT_PRESENT.sub("", question)
    stripped = re.sub(r"\s+([?.!,])", r"\1", re.sub(r"\s{2,}", " ", stripped)).strip(" ,")
    return stripped if re.search(r"\w", stripped) else question


# --- the statement a question asks for -----------------------------------------------------------
# MiniLM scores a statement that repeats the question's words higher than the statement that answers
# it ("What is the user making?" vs "User is making a budgeting tool": cosine 0.36). Recall also embeds
# the start of the answering statement ("User is making") and takes the better match. Input is the
# third-person question (as_third_person_question); the output speaks in the voice memories are
# embedded in ("User ...").

_AUX_BE_HAVE_MODAL = "is|are|was|were|has|have|had|will|would|can|could|should"
_AUX_DO = "do|does|did"
# The noun a "what"/"which" question asks by, with at most one word before it ("what combat sport").
_WH_NOUN = re.compile(r"^(?:what|which)\s+(?:(?:kinds?|types?|sorts?)\s+of\s+)?([^\W\d_]+(?:\s+[^\W\d_]+)?)$",
                      re.IGNORECASE)
_SUBJECT = r"the\s+user(?:'s\s+[^\W\d_]+)?"
_WH = r"what|which|who|whom|where|when|why|how(?:\s+(?:many|much))?"
_WH_QUESTION = re.compile(
    rf"^(?P<wh>(?:{_WH})(?:\s+(?:(?:kinds?|types?|sorts?)\s+of\s+)?[^\W\d_]+(?:\s+[^\W\d_]+)?)?)\s+"
    rf"(?P<aux>{_AUX_BE_HAVE_MODAL}|{_AUX_DO})\s+(?P<subject>{_SUBJECT})\b\s*(?P<rest>.*)$",
    re.IGNORECASE)
_YES_NO = re.compile(rf"^(?P<aux>{_AUX_BE_HAVE_MODAL}|{_AUX_DO})\s+(?P<subject>{_SUBJECT})\b\s*(?P<rest>.*)$",
                     re.IGNORECASE)
_WH_CONTRACTED = re.compile(r"^(what|where|who|when|how)'s\b", re.IGNORECASE)
# What the answer adds after the statement: a time, a place, a reason.
_WH_TAIL = {"when": {"did": "on", "": "at"}, "where": {"": "in"}, "why": {"": "because"}}
# Questions whose wh-phrase asks for a time ("what time does ...") read like "when".
_TIME_NOUNS = frozenset({"time", "day", "date", "year", "month", "hour"})
_IRREGULAR_PAST = {
    "go": "went", "have": "had", "do": "did", "make": "made", "buy": "bought", "get": "got", "take": "took",
    "see": "saw", "meet": "met", "come": "came", "give": "gave", "find": "found", "think": "thought",
    "tell": "told", "say": "said", "leave": "left", "feel": "felt", "begin": "began", "run": "ran",
    "write": "wrote", "read": "read", "eat": "ate", "drink": "drank", "win": "won", "lose": "lost",
    "bring": "brought", "teach": "taught", "build": "built", "send": "sent", "spend": "spent", "pay": "paid",
    "sell": "sold", "grow": "grew", "know": "knew", "become": "became", "fly": "flew", "drive": "drove",
    "ride": "rode", "swim": "swam", "sing": "sang", "draw": "drew", "wear": "wore", "hear": "heard",
    "keep": "kept", "sleep": "slept", "sit": "sat", "catch": "caught", "fall": "fell", "break": "broke",
    "choose": "chose", "forget": "forgot", "hold": "held", "lead": "led", "put": "put", "set": "set",
    "cut": "cut", "hit": "hit", "let": "let", "quit": "quit", "speak": "spoke", "throw": "threw",
    "understand": "understood", "wake": "woke", "stand": "stood", "lend": "lent", "hurt": "hurt",
}
_PARTICIPLE_TAIL = re.compile(r"^(?P<head>.+?)\s+(?P<tail>(?:called|named|located|based|made|from|like)\b.*)$",
                              re.IGNORECASE)


def _present_third_person(verb: str) -> str:
    low = verb.lower()
    if low == "have":
        return "has"
    if low in ("do", "go"):
        return verb + "es"
    if re.search(r"(?:s|sh|ch|x|z)$", low):
        return verb + "es"
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ies"
    return verb + "s"


def _past(verb: str) -> str:
    low = verb.lower()
    if low in _IRREGULAR_PAST:
        return _IRREGULAR_PAST[low]
    if low.endswith("e"):
        return verb + "d"
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ied"
    return verb + "ed"


def _statement_subject(subject: str) -> str:
    return "User" + subject.strip()[len("the user"):] if subject else "User"


_ASSISTANT_QUESTION = re.compile(
    rf"^(?:(?P<wh>(?:{_WH})(?:\s+(?:(?:kinds?|types?|sorts?)\s+of\s+)?[^\W\d_]+(?:\s+[^\W\d_]+)?)?)\s+)?"
    rf"(?P<aux>should|must|shall|can|could|may)\s+you\s+(?P<verb>[^\W\d_]+)\b\s*(?P<rest>.*)$",
    re.IGNORECASE)
# What the assistant writes, asked about as a thing: "how long should your answers be?", "which language should
# code be in?". Its own output only: "when should the meeting be?" is not about the assistant.
_OUTPUT = (r"answers?|repl(?:y|ies)|responses?|code|summar(?:y|ies)|recommendations?|recs?|suggestions?|emails?|"
           r"examples?|explanations?|messages?|texts?|feedback|translations?|drafts?|lists?|notes|posts?|captions?")
_ASSISTANT_OUTPUT_QUESTION = re.compile(
    rf"^(?P<wh>(?:{_WH})(?:\s+(?:(?:kinds?|types?|sorts?)\s+of\s+)?[^\W\d_]+)?)\s+(?:should|must|can|could)\s+"
    rf"(?:your\s+|the\s+assistant's\s+)?(?P<thing>(?:[^\W\d_]+\s+){{0,2}}?(?:{_OUTPUT}))\s+be\b\s*(?P<rest>.*)$",
    re.IGNORECASE)


def _instruction_statement(q: str) -> str | None:
    """"what kind of books should you recommend to the user" -> "User wants the assistant to recommend
    books to them": how an instruction to the assistant is stored (extraction/requests.py)."""
    output = _ASSISTANT_OUTPUT_QUESTION.match(q)
    if output is not None:
        # "how long should your answers be" -> "User wants the assistant's answers to be long"
        wh = output["wh"].split()
        asked = wh[-1].lower() if len(wh) > 1 and wh[-1].lower() not in ("many", "much") else ""
        return " ".join(w for w in ("User wants the assistant's", output["thing"].lower(), "to be", output["rest"],
                                    asked) if w)
    match = _ASSISTANT_QUESTION.match(q)
    if match is None:
        return None
    wh_noun = ""
    if match["wh"]:
        noun = _WH_NOUN.match(match["wh"])
        counted = re.match(r"^how\s+(?:many|much)\s+(.+)$", match["wh"], re.IGNORECASE)  # "how many bullet points"
        wh_noun = noun.group(1).lower() if noun else counted.group(1).lower() if counted else ""
    rest = re.sub(r"\bthe user's\b", "their", match["rest"], flags=re.IGNORECASE)
    rest = re.sub(r"\bthe user\b", "them", rest, flags=re.IGNORECASE)
    rest = assistant_voice(rest)
    return " ".join(w for w in ("User wants the assistant to", match["verb"].lower(), wh_noun, rest) if w)


def asks_for_instruction(question: str) -> bool:
    """Does a (third-person) question ask how the assistant should behave ("what should you call the user?")?"""
    q = re.sub(r"\s+", " ", question.strip().rstrip("?!. ").strip())
    return _ASSISTANT_QUESTION.match(q) is not None or _ASSISTANT_OUTPUT_QUESTION.match(q) is not None


# After "the user", a word already in its third-person or modal form is said as it is; a bare verb ("the user do",
# "the user have") takes its -s. (Not the auxiliary lists above: they hold "do" and "have".)
_NOT_BARE_VERBS = frozenset("is was are were am has had does did can could will would should must may might".split())
# "is there a sport the user does", "are there any apps the user uses for budgeting": the kind, then who and what.
_THERE_IS_A = re.compile(rf"^(?:is|are)\s+there\s+(?:a|an|any)\s+(?P<kind>[^\W\d_]+(?:\s+[^\W\d_]+)?)\s+"
                         rf"(?:that\s+|which\s+)?(?P<subject>{_SUBJECT})\s+(?P<rest>\S.*)$", re.IGNORECASE)


def as_statement(question: str) -> str | None:
    """The start of the statement a third-person question asks for, or None when it has no question shape.

    "What is the user making?" -> "User is making"; "When does the user work out?" -> "User works out at";
    "How many kids does the user have?" -> "User has kids"; "Is the user vegan?" -> "User is vegan".
    """
    q = re.sub(r"\s+", " ", question.strip().rstrip("?!. ").strip())
    q = _WH_CONTRACTED.sub(lambda m: f"{m.group(1)} is", q)
    instruction = _instruction_statement(q)
    if instruction is not None:
        return instruction
    there = _THERE_IS_A.match(q)
    if there:  # "is there a sport the user does" -> "User does sport"
        rest = there["rest"].split()
        if rest[0].lower() not in _NOT_BARE_VERBS:  # "the user do" as the question was turned: "User does"
            rest[0] = _present_third_person(rest[0])
        return assistant_voice(" ".join([_statement_subject(there["subject"]), *rest, there["kind"]]))
    wh_noun = ""
    match = _WH_QUESTION.match(q)
    if match:
        wh_words = match.group("wh").lower().split()
        wh = wh_words[0]
        noun = _WH_NOUN.match(match.group("wh"))
        if wh == "how" and len(wh_words) > 2:
            wh_noun = wh_words[-1]
        elif noun:
            wh_noun = noun.group(1).lower()
            if wh_noun in _TIME_NOUNS:
                wh, wh_noun = "when", ""
    else:
        match = _YES_NO.match(q)
        if not match:
            return None
        wh = ""
    aux = match.group("aux").lower()
    subject = _statement_subject(match.group("subject"))
    rest = match.group("rest").strip()
    if aux in ("do", "does", "did"):
        verb, _, rest = rest.partition(" ")
        if not verb:
            return None
        words = [subject, _past(verb) if aux == "did" else _present_third_person(verb), rest]
    else:
        if aux in ("is", "are", "was", "were") and subject != "User" and wh:
            noun_phrase = f"{subject} {rest}".strip()
            head_tail = _PARTICIPLE_TAIL.match(noun_phrase)
            if head_tail:  # "What are the user's kids called" -> "User's kids are called"
                words = [head_tail.group("head"), aux, head_tail.group("tail")]
            else:
                words = [noun_phrase, aux]
        else:
            words = [subject, aux, rest]
    tails = _WH_TAIL.get(wh, {})
    tail = tails.get(aux, tails.get("", ""))
    words += [wh_noun, tail]
    return assistant_voice(" ".join(w for w in words if w))


# --- near misses: another member of the same family, no value of the asked kind ------------------
# MiniLM puts "where does the user's brother live?" close to "User's sister lives in Porto" (0.58): the
# sentences differ in one word of the same kind. These checks are pure functions of the question and one
# memory's text; recall drops the memories they flag (Settings.contrast_filter, Settings.answer_type_filter).

_WORDS = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


# Families of mutually exclusive alternatives. Each member is a set of words naming the same thing (synonyms,
# plurals are folded by _singular); a hypernym (partner, parent, kid, pet, staff) belongs to no member, so a
# question or memory using one is never a mismatch.
_CONTRAST_FAMILIES: tuple[tuple[frozenset[str], ...], ...] = tuple(
    # each word as _word_set reads it: "missus", "gramps" and "sis" lose their "s" there
    tuple(frozenset(_singular(word) for word in member.split()) for member in family) for family in (
        tuple(words for words, _ in RELATIVES),
        (  # pets
            # a breed names its animal ("a golden retriever named Maple" is the dog)
            "dog puppy pup doggo retriever labrador lab poodle terrier spaniel beagle collie husky shepherd "
            "bulldog dachshund corgi pug chihuahua greyhound whippet schnauzer rottweiler doberman dalmatian "
            "labradoodle cockapoo cavapoo pomeranian shih-tzu malamute akita sheepdog mastiff weimaraner "
            "pointer setter vizsla basset bloodhound",
            "cat kitten kitty moggy moggie siamese persian tabby ragdoll sphynx bengal maine-coon",
            "rabbit bunny", "hamster", "parrot", "goldfish",
            "horse pony", "tortoise turtle", "guinea-pig", "snake", "lizard",
        ),
        (  # roles on a team
            "engineer developer programmer dev coder", "designer", "tester qa", "intern",
            "accountant", "lawyer", "recruiter",
        ),
        (  # people one sees for care: an appointment with one is not with another
            "dentist orthodontist", "physio physiotherapist", "doctor gp physician", "optician optometrist",
            "therapist", "vet veterinarian", "hairdresser barber stylist", "chiropractor", "dermatologist",
        ),
    )
)


@lru_cache(maxsize=1024)
def _members_asked(query: str) -> tuple[tuple[tuple[frozenset[str], ...], frozenset[int]], ...]:
    """Each contrast family the question names a member of, with the members it names. Cached: recall asks it of
    one question once per candidate memory."""
    asked = _word_set(query)
    found = []
    for family in _CONTRAST_FAMILIES:
        in_question = frozenset(i for i, member in enumerate(family) if member & asked)
        if in_question:
            found.append((family, in_question))
    return tuple(found)


@lru_cache(maxsize=4096)
def _word_set(text: str) -> frozenset[str]:
    # Cached: recall asks it of the same question once per candidate memory.
    return frozenset(_singular(w) for w in _WORDS.findall(text.casefold()))


# What a favourite is of: the words in one group name one kind ("band" and "music", "film" and "movie").
_FAVOURITE_OF = re.compile(r"\b(?:favou?rites?|faves?|favs?)\s+(?P<kind>[a-z]+)", re.IGNORECASE)
_FAVOURITE_KINDS = {word: i for i, group in enumerate((
    "food dish meal cuisine snack dessert", "drink beverage cocktail beer wine tea coffee",
    "colour color", "music band song artist singer album genre group musician composer",
    "movie film", "book novel author writer poet", "show series programme program tv", "sport", "game",
    "team club", "animal", "city country place destination", "restaurant cafe bar pub", "season",
    "holiday", "flower", "fruit", "vegetable", "actor actress")) for word in group.split()}


_NO_KIND = frozenset("thing one kind type way time part bit stuff activity".split())


def _favourite_kind(text: str) -> int | str | None:
    match = _FAVOURITE_OF.search(text)
    if match is None:
        return None
    kind = _singular(match["kind"].casefold())
    if kind in STOPWORDS or kind in _NO_KIND:
        return None  # "my favourite thing to do", "my favourite is ...": of no kind in particular
    return _FAVOURITE_KINDS.get(kind, kind)


# A code or password is of one thing: "the alarm code" is not "the wifi password".
_CREDENTIAL = re.compile(r"\b([\w-]+)\s+(?:codes?|passwords?|passcodes?|pins?|combinations?|combos?)\b", re.IGNORECASE)


@lru_cache(maxsize=4096)
def _credential_kinds(text: str) -> frozenset[str]:
    # Cached, like _word_set: recall asks it of the same question once per candidate memory.
    return frozenset(kind for m in _CREDENTIAL.finditer(text)
                     if (kind := m.group(1).casefold().replace("-", "")) not in STOPWORDS)


# A question whose subject is the speaker: "where do I live?", "do I have any allergies?", "am I vegan?".
_ASKS_OF_THE_SPEAKER = re.compile(r"^\s*(?:(?:what|which|where|when|why|how|who|whom)\b[^?]*?\s)?"
                                  r"(?:do|did|am|was|have|had|can|could|should|will|would)\s+I\b", re.IGNORECASE)


@lru_cache(maxsize=1024)
def asks_of_the_speaker_alone(query: str) -> bool:
    """Is a question about the one asking, naming no one else: no relation, role or title ("my sister", "my GP"),
    no name ("Maya")?"""
    if not _ASKS_OF_THE_SPEAKER.match(query) or about_a_person(query):
        return False
    return not any(word != "I" for word in re.findall(r"\b[A-Z][\w'-]*", query.strip()[1:]))


def contrast_mismatch(query: str, memory_text: str) -> bool:
    """Does the question ask about one member of a family (a relative, a pet, a team role) while the memory
    names only other members of it ("where does my brother live?" vs "User's sister lives in Porto")? Or ask
    for a favourite of one kind while the memory is a favourite of another ("favourite drink" vs "favorite food"),
    or for the code of one thing while the memory holds another's ("alarm code" vs "wifi password")? Or ask about
    the speaker alone while the memory tells another person's life ("do I have any allergies?" vs "User's brother
    Omar is allergic to penicillin")? Or, the other way round, ask about another person alone while the memory is
    the user's own ("what car does my sister drive?" vs "User drives a VW Golf")?"""
    if asks_of_the_speaker_alone(query) and of_someone_elses_life(memory_text):
        return True
    if asks_of_someone_else_alone(query) and of_the_user_alone(memory_text):
        return True
    asked_favourite = _favourite_kind(query)
    if asked_favourite is not None:
        held = _favourite_kind(memory_text)
        if held is not None and held != asked_favourite:
            return True
    asked_credentials = _credential_kinds(query)
    if asked_credentials:
        held = _credential_kinds(memory_text)
        if held and not held & asked_credentials:
            return True
    # most questions name no member: the memory's words are never looked at
    for family, in_question in _members_asked(query):
        said = _word_set(memory_text)
        in_memory = {i for i, member in enumerate(family) if member & said}
        if in_memory and not in_question & in_memory:
            return True
    return False


# --- questions about someone else, memories of the user alone ---------------------------------------
# The people a user talks about by relation or role, as chat writes them: each relative's words, the people the
# extractor files facts under, the carers and team roles the contrast families know, and chat's short forms.
_OTHERS_WORDS = frozenset(
    {word for words, _ in RELATIVES for word in words.split()}
    | set(PEOPLE.split("|"))
    | {word for family in _CONTRAST_FAMILIES[2:] for member in family for word in member}
    | set("bf gf ma pa bestie mate mates flatmates roommates housemates colleagues friends neighbours neighbors "
          "sisters brothers sons daughters kids kid children baby twins folks fam family grandkids grandson "
          "granddaughter".split())
)
_OTHERS = "|".join(sorted(map(re.escape, _OTHERS_WORDS), key=len, reverse=True))
# "my sister", "our landlord", "my little brother's": the person a question asks about, by relation or role. Not
# when an "-s" word follows: a plural noun the person word only says whose it is ("where are our client documents
# stored?", "my kids clothes"); an "-s" verb ("where my brother lives?") is left too, which only drops less.
_ANOTHER_ASKED = re.compile(rf"\b(?:my|our)\s+(?:[a-z-]+\s+)?(?P<who>{_OTHERS})(?:'s)?\b(?!\s+[a-z-]{{2,}}s\b)",
                            re.IGNORECASE)
_OTHER_SAID = re.compile(rf"\b(?:{_OTHERS})\b", re.IGNORECASE)
# The speaker in a question: "I", "me", "we" ("what did I buy my sister?" is about what the user did).
_SPEAKER_IN_QUESTION = re.compile(r"\b(?:I|me|myself|we|us|ourselves)\b|\b(?:i'm|im|i've|ive|i'd|we're|we've)\b",
                                  re.IGNORECASE)
# ... and what _ASKS_PERSON and _ASKS_NAME leave: "whose birthday is it?", "what is my boss called?"
_WHOSE_OR_CALLED = re.compile(r"^\s*whose\b|\bcalled\b", re.IGNORECASE)


def _asks_of_others_only(query: str) -> bool:
    """Does a question say nothing of the speaker and not ask who fills a role or what someone is called ("who is my
    boss?", "what's my sister's name?": a memory of the user may name them; lacks_asked_value's patterns)?"""
    return not (_SPEAKER_IN_QUESTION.search(query) or _ASKS_PERSON.search(query) or _ASKS_NAME.search(query)
                or _WHOSE_OR_CALLED.search(query))


@lru_cache(maxsize=1024)
def asks_of_someone_else_alone(query: str) -> str | None:
    """The relation or role a question asks about when it asks about that person alone ("what car does my sister
    drive?" -> "sister"); None otherwise (_asks_of_others_only)."""
    match = _ANOTHER_ASKED.search(query) if _asks_of_others_only(query) else None
    return match["who"].casefold() if match else None


def names_asked_alone(query: str) -> set[str]:
    """The names a question asks about when it asks about those people alone ("what phone does Tom have?" ->
    {"Tom"}): as names_asked_about, but empty unless _asks_of_others_only."""
    return names_asked_about(query) if _asks_of_others_only(query) else set()


def of_the_user_alone(memory_text: str) -> bool:
    """Is a memory sentence about the user and no one else: its subject is the user and it speaks of no person by
    relation, role or title ("User drives a VW Golf.", not "User's bro lives in Leeds." nor "User visits their
    mother every summer.")?"""
    text = memory_text.strip()
    return (re.match(r"User\b", text) is not None and not about_a_person(text)
            and _OTHER_SAID.search(text) is None)


# --- questions naming one thing, memories naming another of its kind ---------------------------------
# Where a question's verb stands ("does the user play", "who drives", "does my sister drive"): a word there names a
# doing, not a thing a memory may name another of.
_QUESTION_VERB_SLOTS = (
    re.compile(r"\b(?:the user|I|we|you|he|she|they)\s+(?:\w+ly\s+)?([a-z]+)\b"),
    re.compile(r"^\s*(?:who|what)\s+([a-z]+s)\b", re.IGNORECASE),
    re.compile(r"\b(?:does|do|did|will|would|can|could|should|is|are)\s+(?:(?:my|our|his|her|their|the|a|an)\s+)?"
               r"(?:[\w-]+'s\s+)?[\w-]+\s+([a-z]+)\b", re.IGNORECASE),
)


@lru_cache(maxsize=1024)
def _things_asked(query: str) -> dict[str, str]:
    """The words of a question that may name one thing it asks about, by their stem: not the kind it asks by
    (asked_kind_words: "what instrument ..." asks for any), not a word in its verb's place, not "-ing"/"-ed"."""
    third = as_third_person_question(query)
    kinds = {textlib.term(word) for phrase in asked_kind_words(query) for word in phrase.split()}
    verbs = {m.group(1).casefold() for pattern in _QUESTION_VERB_SLOTS for m in pattern.finditer(third)}
    found = {}
    for word in common_words(third):
        if (len(word) < 3 or word in STOPWORDS or word in verbs or word.endswith(("ing", "ed"))
                or textlib.term(word) in kinds):
            continue
        found[textlib.term(word)] = word
    return found


def names_another_of_its_kind(query: str, memory_text: str, kinds: Kinds) -> tuple[str, str, str] | None:
    """(asked word, memory word, kind) when a question names one specific thing and the memory, not naming it, names
    another thing of its kind ("how long have I been playing the flute?" of "User has played the violin since they
    were 7": two musical instruments; "what do I have for breakfast?" of "User's Friday dinner is pizza": two meals);
    None otherwise. Both words must name one specific thing (kinds.Kinds.specific_thing): not a whole field of things
    ("what do I do for work?" asks of any job), nor an act, an idea or a text, which chat names beside the thing talked
    about ("what articles has Tim been writing for the magazine?" of "Tim has been writing about fantasy novels");
    and neither a kind of the other ("what material are my summer clothes?" of "User's summer shirts are linen"), by
    kinds.Kinds.kinds_of. A meal pairs only with a meal: it is when a thing is had, not a thing ("porridge for
    breakfast")."""
    # Most questions name no specific thing: then the memory's words are never read.
    asked = {stem: word for stem, word in _things_asked(query).items() if word in MEALS or kinds.specific_thing(word)}
    if not asked:
        return None
    memory_words = common_words(memory_text)
    said_terms = {textlib.term(word) for word in memory_words}
    missing = {stem: word for stem, word in asked.items() if stem not in said_terms}
    if not missing:
        return None
    memory_things = [word for word in things_said(memory_text) if textlib.term(word) not in asked]
    memory_meals = [word for word in memory_words if word in MEALS and textlib.term(word) not in asked]
    for word in missing.values():
        if word in MEALS:
            if memory_meals:
                return word, memory_meals[0], "meal"
            continue
        for other in memory_things:
            if (not kinds.specific_thing(other) or textlib.term(word) in kinds.kinds_of(other)
                    or textlib.term(other) in kinds.kinds_of(word)):
                continue
            kind = kinds.kind_shared(word, other)
            if kind is not None:
                return word, other, kind
    return None


# Only the word "name" asks for one: "what bank am I with?" is answered by "User banks with monzo", and chat
# writes names in lower case as often as not, so a kind of thing asked for is no test of a capital letter.
_ASKS_NAME = re.compile(r"\b(?:name|names|surname|first name|last name|full name|maiden name|nickname)\b",
                        re.IGNORECASE)
# Days and months are capitalised and name nothing asked for.
_CALENDAR_WORDS = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july august "
    "september october november december".split())
# A number asked for ("phone number", "registration number", "what number bus") is written with digits or words.
_ASKS_NUMBER = re.compile(r"\b(?:phone|telephone|mobile|fax) (?:number|no)\b|^\s*(?:what|what's|whats|which)\b.*\bnumbers?\b",
                          re.IGNORECASE)
# An email address asked for has an "@" (or is said to be one).
_ASKS_EMAIL = re.compile(r"^\s*(?:what|what's|whats|which)\b.*\b(?:email|e-mail)(?: address)?\b", re.IGNORECASE)
_ASKS_PRICE = re.compile(r"\bhow much\b(?=.*\b(?:cost|costs|price|pay|paid|rent|bill|fee|fees|salary|earn|earns|"
                         r"charge|charges|is|are|was|were)\b)|"
                         # "what's the reno costing us?", "what did the boiler set us back?", "the price of ..."
                         r"^(?:what|what's|whats)\b"
                         r"(?=.*\b(?:cost|costs|costing|cost us|price|priced|set (?:me|us|them) back)\b)",
                         re.IGNORECASE)
# A measure of the user's (a best time, a pace, an age, a height, a weight, a distance) is a number: "what's my
# marathon personal best?" is not answered by "User is training for a half marathon".
_ASKS_MEASURE = re.compile(
    r"\b(?:personal (?:best|record)|pb|best time|record time|(?:running |race )?pace|how (?:old|tall|heavy|far|fast)|"
    r"(?:what|what's|whats) (?:is |was )?(?:the user's |my |his |her |their )?(?:\w+ )?(?:height|weight|age)\b)",
    re.IGNORECASE)
# "when ..." and "what time/day ..." ask for a time. A past event ("when did ...") may be dated by the message it
# was told in; anything else must say its time.
_ASKS_TIME = re.compile(rf"^\s*(?:when|when's|whens)\b|\b(?:what|which) (?:{'|'.join(sorted(_TIME_NOUNS))})\b|"
                        r"\bhow long ago\b", re.IGNORECASE)
_ASKS_PAST = re.compile(r"^\s*when (?:did|was|were|had)\b", re.IGNORECASE)
# Words that say when, besides the clock times, days, dates, months and frequencies compete.has_time knows: they
# make no value a time to update, but they answer "when".
_WHEN_WORDS = re.compile(
    r"\b(?:\d{4}|mornings?|afternoons?|evenings?|nights?|lunch(?:time)?|breakfast|dinner|bedtime|after|before|"
    r"during|until|since|ago|spring|summer|autumn|fall|winter|years?|months?|weeks?|days?|weekdays?|hours?|"
    r"soon|later|early|late|recently|last|next)\b|"
    # the feasts and breaks a year is told by: "every Christmas", "over Easter", "at half-term"
    r"\b(?:christmas|xmas|easter|thanksgiving|halloween|new year(?:'s)?|hanukkah|chanukah|diwali|ramadan|eid|"
    r"passover|lent|half[- ]term|term time|bank holidays?|the holidays|spring break|payday)\b|"
    # "May" is a month after a word that says when ("in May", "since May", "every May", "late May")
    r"\b(?:in|since|until|till|by|from|before|after|every|next|last|this|early|late|mid|mid-|through|over)\s+may\b|"
    # an hour said bare after a word of time: "moved to 10", "at 6 now", "by half 9"
    r"\b(?:at|by|around|from|till|until|to)\s+(?:half\s+)?\d{1,2}(?:[:.]\d{2})?(?![\d:%]|[.,]\d)"
    r"(?!\s*(?:percent|kg|km|mi|miles|people|euros?|dollars?|pounds?|quid|k|m|grand|times|of)\b)", re.IGNORECASE)
# "what year ..." asks for a year: four digits, or a year told by a word ("last year", "three years ago").
_ASKS_YEAR = re.compile(r"\b(?:what|which) year\b|\bin what year\b", re.IGNORECASE)
_YEAR_SAID = re.compile(r"\b(?:1[89]|20)\d{2}\b|'\d{2}\b|\b(?:last|this|next|that|the same) year\b|"
                        r"\byears? ago\b|\b(?:new year|newyear)", re.IGNORECASE)
# How long something has lasted or lasts ("married 10 years", "for three weeks", "a couple of months now") is no
# answer to "when"; "in 3 weeks", "3 weeks ago", "2 days later" are.
_HOW_LONG_ONLY = re.compile(
    r"(?<!\bin )(?<!\bwithin )(?<!\bafter )(?<!\bbefore )(?<!\bevery )(?<!\bnext )(?<!\blast )"
    r"\b(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|a few|a couple of|"
    r"several|many)\s+(?:years?|months?|weeks?|days?|hours?|yrs?|mins?|minutes?)\b"
    r"(?!\s+(?:ago|later|from now|before|after|earlier|old|time|back)\b)", re.IGNORECASE)
_NAMING = re.compile(r"\b(?:named|called|nicknamed|name is|name's)\s+(?P<v>[\w'-]+)", re.IGNORECASE)
_CAPITALISED = re.compile(r"\b[A-Z][\w'-]*")
_NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million "
    "dozen half free".split())
_CURRENCY = re.compile(r"[$€£¥₹]|\d")
_MEASURE_WORDS = _NUMBER_WORDS - {"half", "free"}  # "a half marathon" names a distance, no measure


def _names_something_new(query: str, memory_text: str) -> bool:
    asked = _word_set(query)
    for match in _NAMING.finditer(memory_text):
        word = match.group("v").casefold()
        if word not in STOPWORDS and _singular(word) not in asked:
            return True
    for match in _CAPITALISED.finditer(memory_text):
        word = match.group().casefold().removesuffix("'s")
        if (word in ("user", "users") or word in STOPWORDS or _singular(word) in _CALENDAR_WORDS
                or _singular(word) in asked):
            continue
        return True
    return False


# "where ..." asks for a place: a place said with a preposition ("in Porto", "at the gym", "near work"), a
# capitalised name, or a word that is a place itself. "where does my brother live?" is not answered by "User's
# brother is a chef".
_ASKS_PLACE = re.compile(r"^\s*(?:where|where's|wheres)\b|\b(?:what|which) (?:city|town|country|address|place|"
                         r"neighbou?rhood|area)\b", re.IGNORECASE)
_PLACE_SAID = re.compile(r"\b(?:in|at|near|from|to|on|for|with|into|inside|under|behind|around|outside|by|across|off|"
                         r"home|abroad|here|there|downtown|upstairs|downstairs|locally|remote(?:ly)?|online|nearby|"
                         r"overseas|away)\b", re.IGNORECASE)
# "who ..." asks for a person: a name, or a person named by what they are to someone ("User's sister").
_ASKS_PERSON = re.compile(r"^\s*(?:who|who's|whos|whom)\b", re.IGNORECASE)
_PERSON_WORDS = frozenset(
    "mother mom mum dad father sister brother son daughter wife husband partner girlfriend boyfriend fiance fiancee "
    "friend colleague coworker boss manager neighbour neighbor cousin aunt uncle grandma grandpa grandmother "
    "grandfather niece nephew roommate flatmate housemate mentor teacher tutor coach doctor dentist therapist "
    "landlord landlady team someone somebody people family parents kids children everyone nobody myself".split())


# A person said by what they do: a job noun ("a local carpenter"), or a noun of a trade or a field after a determiner
# ("a nutritionist", "an orthodontist", "a physician"); "a playlist", "my wrist" are no one.
_ROLE_SAID = re.compile(r"\b(?:a|an|the|my|our|his|her|their|your|some)\s+(?:[\w-]+\s+){0,2}?"
                        r"(?P<role>[a-z]{2,}ists?|[a-z]{3,}ians?)\b", re.IGNORECASE)
# The doer of a passive is someone: "the garden was redesigned by a landscaper", "the cake is being made by Jo's
# aunt" (not "held in the park by the river": "park" is no participle).
# ("garden by the", "bed by the window", "town by the station" are no participles: the irregular ones are listed.)
_DONE_BY = re.compile(r"\b(?:[a-z]{3,}ed|done|made|built|sold|paid|bought|brought|caught|taught|found|told|sent|kept|"
                      r"held|led|read|cut|set|put|run|won|sung|taken|written|given|driven|eaten|broken|chosen|stolen|"
                      r"spoken|ridden|beaten|hidden|woken|frozen|shaken|drawn|grown|shown|known|seen|thrown|blown|"
                      r"flown|sewn|worn|torn)"
                      r"\s+(?:\w+ly\s+)?by\s+(?:a|an|the|my|our|his|her|their|some|two|three|several|local)\b",
                      re.IGNORECASE)
_NOT_ROLES = frozenset("""
list playlist checklist wishlist shortlist waitlist setlist tracklist watchlist blacklist whitelist booklist mist wrist
twist fist gist exist assist insist resist persist consist desist enlist median meridian
""".split())


def _names_a_person(query: str, memory_text: str) -> bool:
    said, asked = _word_set(memory_text), _word_set(query)
    roles = [m.group(0).split()[-1] for m in JOB_NOUNS.finditer(memory_text)]
    # a trade noun said as a modifier ("an Italian place", "a dentist appointment") names no one
    roles += [m["role"] for m in _ROLE_SAID.finditer(memory_text) if not followed_by_a_noun(memory_text, m.end())]
    return (_names_something_new(query, memory_text) or bool(_NAMING.search(memory_text))
            or bool(said & _PERSON_WORDS - asked) or bool(_DONE_BY.search(memory_text))
            or any(_singular(r.casefold()) not in asked | _NOT_ROLES for r in roles))


def lacks_asked_value(query: str, memory_text: str, *, dated: bool = False) -> bool:
    """Does the question ask for a value of a kind (a name, a phone number, a price, a time) the memory holds none of?

    A name is a capitalised word or the word after "named"/"called" that the question does not already
    contain ("what's Helen's surname?" is not answered by "User's boss is called Helen"); a phone number, a
    price or a measure (a personal best, a pace, an age, a height, a weight) needs a digit, a number word or a
    currency sign; a time needs a clock time, a day, a date, a month, a
    year, a part of the day or a word like "ago" ("when is Elena's birthday?" is not answered by "User's wife is
    named Elena"), except that a past event told in a dated message (`dated`) is dated by it."""
    asked = _asked_value(query)
    if asked == "year":
        return not _YEAR_SAID.search(memory_text)  # "what year was I born?" is not answered by "born on 12 June"
    if asked in ("time", "past time"):
        if dated and asked == "past time":
            return False
        said = _HOW_LONG_ONLY.sub(" ", memory_text)  # "married 10 years" says how long, not when
        return not (has_time(said) or _WHEN_WORDS.search(said))
    if asked == "name":
        return not _names_something_new(query, memory_text)
    if asked == "measure":
        return not (re.search(r"\d", memory_text) or _word_set(memory_text) & _MEASURE_WORDS)
    if asked == "place":
        return not (_PLACE_SAID.search(memory_text) or _names_something_new(query, memory_text))
    if asked == "person":
        return not _names_a_person(query, memory_text)
    if asked == "email":
        return not re.search(r"@|\b(?:email|e-mail)\b", memory_text, re.IGNORECASE)
    if asked == "number":
        return not (_CURRENCY.search(memory_text) or _word_set(memory_text) & _NUMBER_WORDS)
    return False


@lru_cache(maxsize=1024)
def _asked_value(query: str) -> str:
    """The kind of value a question asks for, as lacks_asked_value reads it, in its order; "" for none. Cached:
    recall asks it of one question once per candidate memory."""
    if _ASKS_YEAR.search(query):
        return "year"
    if _ASKS_TIME.search(query):
        return "past time" if _ASKS_PAST.search(query) else "time"
    for kind, pattern in (("name", _ASKS_NAME), ("measure", _ASKS_MEASURE), ("place", _ASKS_PLACE),
                          ("person", _ASKS_PERSON), ("email", _ASKS_EMAIL), ("number", _ASKS_NUMBER),
                          ("number", _ASKS_PRICE)):
        if pattern.search(query):
            return kind
    return ""


# --- names a question is about ------------------------------------------------------------------
# "When did Caroline go to the support group?" asked of a store that has never heard of Caroline can only
# be answered by memories about someone else; recall serves nothing (Settings.unknown_name_filter).

_NAME_WORD = r"[A-Z][a-z]+(?:-[A-Z][a-z]+)?"
_NAME_ASKED = re.compile(
    rf"\b(?:does|did|is|was|has|had|do|are|were|would|will|can|could|should)\s+(?P<after_aux>{_NAME_WORD}"
    rf"(?:\s+{_NAME_WORD})?)\b(?!')|\b(?P<possessive>{_NAME_WORD})'s\b")
_NOT_A_NAME = frozenset("""
i user users the my our your his her their this that these those there it its what which who when where why how
monday tuesday wednesday thursday friday saturday sunday january february march april may june july august
september october november december mom mum dad mother father grandma grandpa
""".split())


def names_asked_about(question: str) -> set[str]:
    """Names the question is about: after an auxiliary ("did Caroline ..."), or a possessive ("Melanie's")."""
    names = set()
    for match in _NAME_ASKED.finditer(question):
        words = takewhile(lambda w: w.lower() not in _NOT_A_NAME, (match["after_aux"] or match["possessive"]).split())
        name = " ".join(words)
        if name:
            names.add(name)
    return names


# --- the kind a question asks by --------------------------------------------------------------------
# "what drink do I have ...", "which sport does my son do", "what kind of dog do we have", "what's my favourite
# cheese", "do I have any chronic health conditions": the words naming what is asked for, up to the first word
# that names nothing (an auxiliary, a pronoun, a preposition). recall credits a memory naming an instance of one
# of them (kinds.py) with it.
_ASKED_KIND = re.compile(
    r"\b(?:what|which|whats|wat|any)(?:'s|\s+(?:is|are|was|were))?\s+"
    r"(?:(?:my|our|your|his|her|their|the)\s+)?"
    r"(?:(?:kinds?|types?|sorts?|pieces?|styles?|items?)\s+of\s+)?"
    r"(?P<words>[^\W\d_][\w'-]*(?:\s+[^\W\d_][\w'-]*){0,2})", re.IGNORECASE)
# A yes/no question asks by kind with "a"/"an" too: "do I play an instrument?", "have we got a pet?", "am I on a
# medication?", "is there a sport I do?". Only a question about the speaker or the user, whose verb comes first:
# "when did I buy a car?" asks when, not whether.
_ASKED_KIND_YES_NO = re.compile(
    r"^\s*(?:(?:do|does|did|am|are|is|was|were|have|has|had|can|could)(?:n'?t)?\s+(?:i|we|the\s+user)\b"
    r"[^?]*?\b(?:a|an)|(?:is|are)\s+there\s+(?:a|an|any))\s+"
    r"(?P<words>[^\W\d_][\w'-]*(?:\s+[^\W\d_][\w'-]*){0,2})", re.IGNORECASE)
# "I" is no name: in "any allergies I have?" the kind is not a verb before someone named.
_NOT_NAMES = frozenset({"I", "I'm", "I've", "I'd", "I'll", "Im", "Ive"})


def asked_kind_words(question: str) -> tuple[str, ...]:
    """The lower-case words naming the kind of thing a question asks for ("what combat sport do I do?" ->
    ("combat", "sport")); () when it asks by no kind ("what did I do on Friday?")."""
    found: list[str] = []
    for match in (*_ASKED_KIND.finditer(question), *_ASKED_KIND_YES_NO.finditer(question)):
        said = match["words"].split()
        following = question[match.end("words"):].split()[:1]
        for word, after in zip(said, said[1:] + following):
            # a word before a name is a verb ("what helps Joanna ...", "what attributes describe John?")
            if word.lower() in STOPWORDS or after[:1].isupper() and after.rstrip("?.!,") not in _NOT_NAMES:
                break
            found.append(word.lower())
    return tuple(dict.fromkeys(found))


# "what combat sport do I do?", "which water sport does the user do?": a kind said with a word before it.
_KIND_PHRASE = re.compile(r"^\s*(?:what|which)\s+(?:(?:kinds?|types?|sorts?)\s+of\s+)?(?P<phrase>[a-z]+\s+[a-z]+)\s+"
                          r"(?:do|does|did|is|are|am|was|were|have|has|had)\b", re.IGNORECASE)


def asked_kind_phrase(question: str) -> str | None:
    """The kind a question asks by when it says it in two words ("what combat sport do I do?" -> "combat sport"),
    lower case; None otherwise. An instance of the last word alone is no instance of it ("surfing" is a sport, no
    combat sport)."""
    match = _KIND_PHRASE.match(question)
    if not match or any(word in STOPWORDS for word in match["phrase"].lower().split()):
        return None
    return match["phrase"].lower()


# Kinds a question asks by that say what a thing is for, not what it is: WordNet files no instance under them ("User
# is a nurse" is no "job" there), and the words of a memory are no test of them.
_ROLE_KINDS = frozenset("job profession occupation career role work living position title hobby pastime interest "
                        "passion habit treat".split())
# A thing asked for by its kind, the kind right before the question's verb: "which accounting software do I use?",
# "what kind of coffee do I get?". Not "what's my salary?", which asks for the value of one thing of the user's.
_THING_ASKED_BY_KIND = re.compile(
    r"^\s*(?:what|which)\s+(?:(?:kinds?|types?|sorts?)\s+of\s+)?(?P<words>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+"
    r"(?:do|does|did|am|is|are|was|were|have|has|had|can|should|will|would)\b", re.IGNORECASE)


def names_nothing_of_the_asked_kind(query: str, memory_text: str, kinds: Kinds,
                                    doing_nouns: Iterable[str] = ()) -> tuple[str, tuple[str, ...]] | None:
    """(kind, the memory's words to compare with it) when a question asks for a thing by its kind ("which accounting
    software do I use?") and the memory names nothing that WordNet says is of that kind: not the kind's word, not a
    word WordNet files under it ("User works as an accountant": no software). Those words are the things the memory
    says and `doing_nouns` (its doings said by their verb, kinds.doings), less the question's own: recall compares
    them with the kind in meaning, since WordNet misses kinds said by what a thing is for (a dog is no "pet" there).
    None when the question asks by no kind or for a value of its own kind (a time, a name, a place;
    lacks_asked_value), by a kind that says what a thing is for (_ROLE_KINDS), or when the memory may name an instance
    the dictionary does not know: a capitalised word past its first that the question does not say."""
    asked = _THING_ASKED_BY_KIND.match(query)
    if asked is None or _asked_value(query):
        return None
    said = [word.casefold() for word in asked["words"].split()]
    kind = _singular(said[-1])
    if kind in _ROLE_KINDS or said[-1] in _ROLE_KINDS or any(word in STOPWORDS for word in said):
        return None
    kind_term = textlib.term(kind)
    question_terms = {textlib.term(word) for word in _WORDS.findall(query.casefold())}
    words = common_words(memory_text)
    phrase = " ".join(said[:-1] + [kind]) if len(said) > 1 else ""  # "martial art": karate is one, WordNet says
    if any(textlib.term(word) == kind_term or kind_term in kinds.kinds_of(word) | kinds.kinds_of(_singular(word))
           or (phrase and kinds.is_a(word, phrase)) for word in (*words, *doing_nouns)):
        return None
    # A capitalised word past the memory's first may be a brand or a place the dictionary does not know ("Xero", "the
    # Adlon"); "User" and the days and months name no such thing.
    for found in _CAPITALISED.finditer(memory_text):
        word = found.group().removesuffix("'s").rstrip(".'")
        if (found.start() > 0 and word != "User" and word.casefold() not in _CALENDAR_WORDS
                and textlib.term(word.casefold()) not in question_terms):
            return None
    things = tuple(dict.fromkeys(word for word in things_said(memory_text) if textlib.term(word) not in question_terms))
    if any(not (kinds.kinds_of(word) or kinds.kinds_of(_singular(word))) for word in things):
        return None  # a word the dictionary files under nothing may name an instance of anything ("satsumas")
    things = tuple(dict.fromkeys((*things, *(noun for noun in doing_nouns if textlib.term(noun) not in question_terms))))
    return (kind, things) if things else None


def names_members_missing(query: str, memory_text: str, *, besides: Iterable[str] = ()) -> bool:
    """Does the question name a relative, pet, team role or carer (a member of a contrast family) the memory does
    not name? ("what sport does my brother play?" of "User plays tennis".) The words in `besides` (the kind the
    question asks by) are not counted: "what dog do I have?" is answered by a breed the family does not list."""
    asked = _word_set(query) - {_singular(word.casefold()) for word in besides}
    said: frozenset[str] | None = None
    for family in _CONTRAST_FAMILIES:
        for member in family:
            if member & asked:
                said = _word_set(memory_text) if said is None else said
                if not member & said:
                    return True
    return False


# A member said as another person's ("Audrey took her dogs", "Sam's grandmother", "the user's sister's husband") is
# not the one the user's memory names; "the user's grandmother", "what's nana allergic to?" are the user's own.
_OTHERS = frozenset("his her their its".split())
_NOT_POSSESSIVE = frozenset("user's what's that's it's he's she's there's here's who's where's how's when's let's "
                            "one's".split())


def _of_someone_else(text: str, start: int) -> bool:
    """Is the word at `start` said as someone else's (one of the two words before it is "her" or "Sam's")?"""
    before = re.findall(r"[^\W\d_]+(?:'s)?", text[:start].replace("\u2019", "'"))[-2:]
    return any(word.casefold() in _OTHERS or word.endswith("'s") and word.casefold() not in _NOT_POSSESSIVE
               for word in before)


# Words for any one of several members ("what's my other half called?" is asked of "User's wife is Priya"): the
# members each covers, by the first word of the member.
_GENERAL_MEMBER_WORDS: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = tuple(
    (re.compile(rf"\b(?:{phrases})\b", re.IGNORECASE), frozenset(covered.split())) for phrases, covered in (
        ("other half|better half|significant other|partners?|spouses?", "wife husband girlfriend boyfriend fiance"),
        ("parents?", "mother father stepmother stepfather"),
        ("kids?|child|children|little ones?", "son daughter"),
        ("siblings?", "sister brother"),
        ("grandparents?", "grandmother grandfather"),
        # not "pet": "what pet do I have?" asks by kind (kinds.py), and said as "what tortoise does the user
        # have?" it is near any memory naming one ("User saw a tortoise at the zoo")
    ))


def in_the_memorys_words(text: str, memory_text: str,
                         same_thing: Callable[[str, str], bool] | None = None) -> str | None:
    """The text with each relative, pet or carer it names said as the memory names the same one ("where does the
    user's grandmother live?" of "Nan's been living in cardiff" -> "where does the user's nan live?"), and a word
    for any of several ("partner", "kids", "parents") said as the one of them the memory names, if it names one; None
    when the memory names none of them by another word. Not a member said as someone else's: "what did Audrey teach
    her dogs?" is not asked of "One of them, Daisy, is a Labrador". MiniLM knows "nan" and "grandad" little, so the
    question's own word leaves a true answer under the threshold (0.45 here, 0.61 said as the memory says it).
    With `same_thing` (kinds.Kinds.same_thing), any thing the question names is said as the memory names it, when the
    two words name one thing and the memory does not say the question's own: "what pushchair do we use?" of "User
    swapped to a stroller, ..." (0.27 asked in the question's words)."""
    said = _word_set(memory_text)
    memory_words = _WORDS.findall(memory_text.casefold())
    swapped = text
    for family in _CONTRAST_FAMILIES:
        for member in family:
            own = member & said
            if not own:
                continue
            for word in dict.fromkeys(_WORDS.findall(swapped.casefold())):
                singular = _singular(word)
                if singular in member and singular not in said:
                    # the memory's first word for the member, as the memory writes it
                    other = next(w for w in memory_words if _singular(w) in own)
                    swapped = re.sub(rf"\b{re.escape(word)}\b",
                                     lambda m: m.group(0) if _of_someone_else(m.string, m.start()) else other,
                                     swapped, flags=re.IGNORECASE)
    for general, covered in _GENERAL_MEMBER_WORDS:
        if not general.search(swapped):
            continue
        named = [member for family in _CONTRAST_FAMILIES for member in family if member & covered and member & said]
        if len(named) == 1:
            other = next(w for w in memory_words if _singular(w) in named[0])
            swapped = general.sub(lambda m: m.group(0) if _of_someone_else(m.string, m.start()) else other, swapped)
    if same_thing is not None:
        things = [w for w in dict.fromkeys(memory_words) if len(w) > 2 and w not in STOPWORDS]
        for word in dict.fromkeys(_WORDS.findall(swapped.casefold())):
            if len(word) <= 2 or word in STOPWORDS or _singular(word) in said:
                continue
            other = next((w for w in things if w != word and same_thing(word, w)), None)
            if other is not None:
                swapped = re.sub(rf"\b{re.escape(word)}\b", other, swapped, flags=re.IGNORECASE)
    return swapped if swapped != text else None


def with_instance(sentence: str, kind_words: Iterable[str], instance: str) -> str | None:
    """The sentence with the first run of the kind words it asks by said as the instance ("User plays sport",
    {"sport"}, "tennis" -> "User plays tennis"); None when it says none of them."""
    words = sorted({word for word in kind_words if word}, key=len, reverse=True)
    if not words:
        return None
    alternatives = "|".join(re.escape(word) for word in words)
    pattern = re.compile(rf"\b(?:{alternatives})(?:\s+(?:{alternatives}))*\b", re.IGNORECASE)
    swapped, count = pattern.subn(instance, sentence, count=1)
    return swapped if count else None


# A memory that says the user keeps away from a thing ("User is allergic to penicillin", "User never drinks beer")
# names it as no answer to a question asking what the user has, takes or does. A word of aversion says so wherever
# it stands; a plain negation only as the person's own verb ("User never drinks", "I do not eat"), not as another
# thing's ("User's lasagne never fails", "User's doctor would not approve") or a contrast ("tennis, not squash").
_AVERSE = r"allergic|intolerant|can'?t stand|hates?|hated|avoids?|avoided"
_OWN_NEGATION = (r"\b(?:user|i|we|he|she|they|you)(?:'m|'s|'re)?\s+"
                 r"(?:(?:really|just|still|even|usually|generally|honestly)\s+)?"
                 r"(?:(?:do|does|did|is|am|are|was|were|has|have|had|can|could|will|would)(?:n'?t|\s+not)\b|"
                 r"(?:(?:is|am|are|was|were)\s+)?(?:not|never|no longer)\b|"
                 r"(?:quit|stopped|gave up)\b)")
_KEPT_AWAY = re.compile(rf"\b(?:{_AVERSE})\b|{_OWN_NEGATION}", re.IGNORECASE)


def keeps_away(text: str) -> bool:
    """Does a text say someone keeps away from something ("is allergic to", "User never drinks", "I gave up")?"""
    return _KEPT_AWAY.search(text.replace("\u2019", "'")) is not None


# A memory that only wishes for a thing ("User would really love to try skiing one day", "User wants to learn the
# cello") names it as no answer to a question asking what the user does or has. In lower case only: "Hope" is a name.
_ONLY_WISHED = re.compile(r"\b(?:would\s+(?:really\s+|so\s+)?(?:love|like)\s+to|(?:wants?|wanted|hopes?|hoping|"
                          r"plans?|planning|dreams?\s+of|dreaming\s+of|wish(?:es)?)\b|[Oo]ne\s+day|[Ss]ome\s?day)")


def only_wished(text: str) -> bool:
    """Does a text say someone wishes for, hopes for or plans a thing ("would love to try skiing one day")?"""
    return _ONLY_WISHED.search(text) is not None


# A sentence whose first clause only wishes, hopes or plans: its subject (the user, someone named, someone's relative)
# then the wish ("User would really love to try skiing one day", "User's dream is to run a marathon", "User keeps
# meaning to start climbing", "One day User wants to get a dog").
_WISH_HEAD = re.compile(
    # an intention said as a noun: "The plan is to get a compass tattoo", "User's dream is to run a marathon"
    r"^(?:(?i:the|User's|their|his|her|our)\s+)?(?i:plan|dream|goal|hope|wish|ambition|aim|idea)\s+is\s+to\b|"
    # on a list of things to do one day: "Getting User's pilot's licence is on their bucket list"
    r"\bon\s+(?:User's|their|his|her|our|the)\s+(?i:bucket|wish|someday|one-day)\s+list\b|"
    # the subject, after a few words saying when ("One of these days", "At some point"), then the wish
    r"^(?:[\w'-]+\s+){0,5}?(?:User|[A-Z][\w'-]+)(?:'s\s+[a-z]+(?:-in-law)?)?\s+"
    r"(?:(?:really|so|still|also|always|totally|would|honestly|secretly)\s+)*"
    r"(?:would\s+(?:really\s+|so\s+)?(?:love|like)\s+to|wants?\s+to|hopes?\s+to|is\s+hoping\s+to|"
    r"dreams?\s+of|is\s+dreaming\s+of|plans?\s+to|is\s+planning\s+(?:to|on)|is\s+thinking\s+(?:of|about)|"
    r"keeps?\s+meaning\s+to|keeps?\s+saying|means?\s+to|wish(?:es)?|is\s+saving\s+(?:up\s+)?for|"
    r"is\s+considering|is\s+tempted\s+to|fancies|'s\s+dream\s+is\s+to|dream\s+is\s+to|"
    r"(?:has|have)\s+always\s+wanted\s+to|is\s+desperate\s+to|is\s+dying\s+to|would\s+kill\s+for|"
    r"would\s+give\s+anything\s+for)\b")
# What the user wants of the assistant, or to be called, is an instruction or preference that holds now.
_WANTS_OF_THE_ASSISTANT = re.compile(r"\bassistant\b|\bto\s+be\s+(?:called|addressed|known)\b", re.IGNORECASE)
_FIRST_CLAUSE = re.compile(r"[,;:]|\s(?:and|but)\s|\.\s")
# A question about a wish, a plan or the future: the wish answers it.
_ASKS_WISH_OR_FUTURE = re.compile(
    r"\b(?:want|wants|wanted|wish|wishes|hope|hopes|hoping|plan|plans|planning|planned|dream|dreams|dreaming|would|"
    r"'d|like to|love to|going to|gonna|will|'ll|intend|intends|thinking|considering|someday|one day|future|next|"
    r"later|soon|tomorrow|tonight|goal|goals|ambition|ambitions|bucket list|aspire|aspires|saving|fancy|fancies|"
    r"meaning to|tempted|you|your|should|this (?:week|weekend|month|year|summer|winter|spring|autumn|fall|evening|"
    r"morning))\b",
    re.IGNORECASE)


def wished_not_done(query: str, memory_text: str) -> bool:
    """Is a memory, by its first clause, only a wish, hope or plan ("User would love to learn the cello one day"),
    while the question asks what is so now ("what instrument do I play?", "do we have a pet?")? Then it answers
    nothing. Not when the question asks for the wish or the future ("what do I want to learn?", "what are my plans
    for next summer?"), and not a memory that says a fact first ("User plays the violin, and one day would love
    to try the cello")."""
    head, *rest = _FIRST_CLAUSE.split(memory_text.replace("\u2019", "'"))
    if (not _WISH_HEAD.search(head) or _WANTS_OF_THE_ASSISTANT.search(head)
            or _ASKS_WISH_OR_FUTURE.search(query.replace("\u2019", "'"))):
        return False
    # a fact said after the wish, about what the question asks ("User wants to surprise their girlfriend, her
    # favourite band is Fleetwood Mac" for "what's my girlfriend's favourite band?"), answers it
    asked = set(textlib.tokenize(query))
    return not any(asked & set(textlib.tokenize(clause)) for clause in rest)


# "what colour is my car?", "what breed is our dog?", "what lighting does Joanna's gaming room have?": the thing
# someone has that the question is about, where the question ends on it or an auxiliary follows it.
_POSSESSED_LAST = re.compile(
    r"(?:\b(?:my|our|your|his|her|their)|\b[A-Z][a-z]+'s)\s+(?:[a-z]+\s+)?([a-z]+)"
    r"(?='s\b|\s*[?.!,;]|\s*$|\s+(?:is|are|was|were|has|have|had|do|does|did|look|looks|looked)\b)")


def possessed_things(question: str) -> tuple[str, ...]:
    """The lower-case thing someone has that a question is about ("what colour is my car?" -> ("car",)); a
    relative or pet the contrast families know is left to names_members_missing."""
    found = (match.group(1).casefold() for match in _POSSESSED_LAST.finditer(question.replace("\u2019", "'")))
    known = set().union(*(member for family in _CONTRAST_FAMILIES for member in family))
    return tuple(dict.fromkeys(word for word in found
                               if word not in STOPWORDS and _singular(word) not in known))
