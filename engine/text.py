"""Pure text functions: validation, normalization, splitting, tokenizing, small-talk detection.

Nothing here touches the store or the model, so all of it is tested with plain parametrized cases.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Iterable

# --- validation -------------------------------------------------------------------------------


def validate_text(text: object, *, max_chars: int, what: str = "text") -> str:
    """Return the text normalized, or raise ValueError saying what is wrong with it."""
    if not isinstance(text, str):
        raise ValueError(f"{what} must be a string, not {type(text).__name__}")
    if "\x00" in text:
        raise ValueError(f"{what} contains a NUL byte (binary data is not accepted)")
    if len(text) > max_chars:
        raise ValueError(f"{what} is {len(text):,} characters long; the limit is {max_chars:,}")
    cleaned = normalize(text)
    if not cleaned:
        raise ValueError(f"{what} is empty")
    return cleaned


def validate_user_id(user_id: object, *, max_chars: int) -> str:
    if not isinstance(user_id, str):
        raise ValueError(f"user_id must be a string, not {type(user_id).__name__}")
    if "\x00" in user_id:
        raise ValueError("user_id contains a NUL byte")
    stripped = user_id.strip()
    if not stripped:
        raise ValueError("user_id is empty")
    if len(stripped) > max_chars:
        raise ValueError(f"user_id is {len(stripped)} characters long; the limit is {max_chars}")
    if any(unicodedata.category(ch) == "Cc" for ch in stripped):
        raise ValueError("user_id contains control characters")
    return stripped


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SPACES = re.compile(r"[ \t\u00a0\u2000-\u200b\u3000]+")


def normalize(text: str) -> str:
    """NFC, no control characters, single spaces, trimmed. Newlines are kept as sentence breaks."""
    text = unicodedata.normalize("NFC", text)
    text = _CONTROL.sub(" ", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    return "\n".join(line for line in lines if line)


# --- splitting --------------------------------------------------------------------------------

# Compared with a sentence's last word, not its end: "first." ends like "st." and ends a sentence.
_ABBREVIATIONS = frozenset(("e.g.", "i.e.", "etc.", "mr.", "mrs.", "ms.", "mx.", "dr.", "prof.", "st.", "vs.",
                            "approx.", "jr.", "sr.", "rev.", "fr.", "capt.", "col.", "gen.", "lt.", "sgt.", "hon."))
# A sentence ends at . ! ? or ; followed by space, unless the period belongs to a number or abbreviation.
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")


def split_sentences(text: str) -> list[str]:
    pieces = _SENTENCE_END.split(text)
    sentences: list[str] = []
    for piece in pieces:
        piece = piece.strip()
        if not piece:
            continue
        if sentences and sentences[-1].rsplit(None, 1)[-1].lower() in _ABBREVIATIONS:
            sentences[-1] = f"{sentences[-1]} {piece}"
        else:
            sentences.append(piece)
    return sentences


# Words that can start a clause about the speaker; a comma or "and" before one of these starts a new fact.
_CLAUSE_STARTERS = (
    r"i|i'm|im|me\s+and|i've|i'd|i'll|my|we|we're|our|also|plus|and\s+i|and\s+my|but\s+i|but\s+my|"
    r"the\s+(?:deadline|project|app|database|db|repo|repository|stack|budget|team|client|launch|release|demo|backend|frontend)"
)
_CLAUSE_SPLIT = re.compile(
    rf"\s*(?:,|;|\s-\s|(?<!\bme\s)\band\b|\bbut\b|\bso\b|\balthough\b|\bwhile\b)\s*(?=(?:{_CLAUSE_STARTERS})\b|"
    # news said without a verb, one after another: "new job at Canva, new flat in Sydney"
    rf"new\s+[a-z]+\s+(?:at|in|with|on)\s|"
    # someone named doing something: "got moved to another team so Fatima manages me now", ", Dave is our lead now"
    # ("..., Barclays fees were a joke" is one thing said of the one before: a plural, not a verb)
    rf"(?-i:[A-Z][a-z'-]+)\s+(?:(?:now|still|also|usually|just)\s+)?(?:[a-z]+[^s\W]s|is|was|has|does)\b"
    rf"(?!\s+(?:were|are|was|is|have|had|got)\b)|"
    # what holds now, after what happened: "graduated in july, now working as a data analyst"
    rf"now\s+(?:working|living|studying|teaching|training|based|renting|staying)\s+(?:as|at|in|for|with|near)\b)",
    re.IGNORECASE
)
# "I live in Austin and work as a designer": a bare verb after "and" carries the same subject.
_CARRY_VERBS = (
    "work|live|love|like|use|have|own|play|speak|study|prefer|enjoy|hate|drive|am|was|moved|started|joined|"
    "switched|run|code|write|teach|eat|drink|go|went|got|plan|want|need|hope|intend|build|maintain|develop|"
    "lead|manage|practice|practise|learn|read|watch|listen|ride|cook|bake|grew|was|had|visited|visit|"
    "swim|cycle|hike|walk|train|do|volunteer|coach|sing|dance|paint|draw|knit|surf|climb|ski|commute|sleep|wake"
)
_CARRY = (rf"\s+(?=(?:(?:usually|often|always|also|sometimes|normally|mostly)\s+)?(?:{_CARRY_VERBS})\b"
          r"(?!\s+(?:is|was|are|were|'s)\b))")
_CARRY_SPLIT = re.compile(rf"\s*(?:,\s*and|\band){_CARRY}", re.IGNORECASE)
# ... and after a comma when the sentence says its speaker, "I'm 29, live in Glasgow"; a chat list without its "I"
# ("cancelled puregym, joined the climbing wall instead") stays one clause, one change told in two steps.
_CARRY_SPLIT_COMMA = re.compile(rf"\s*(?:,\s*and|\band|,){_CARRY}", re.IGNORECASE)
_SAYS_SPEAKER = re.compile(r"^\s*(?:i|i'm|im|i've|we|we're)\b", re.IGNORECASE)


# A dash sets a statement apart from what follows ("I'm vegan — any recipes?"); in a question, a
# comma before a question word does ("I'm left-handed, which guitar should I buy?"), and so does one before a
# proposal or a tag question that ends it ("can't come tonight because of judo, maybe next week?", "..., thoughts?",
# "..., right?"); not "or maybe", which is one more choice of the same question.
_DASH_SPLIT = re.compile(r"\s+[\u2014\u2013]\s*|\s*[\u2014\u2013]\s+|\s+--\s+")
_QUESTION_SPLIT = re.compile(r",\s*(?=(?:what|which|how|any|can|could|should|would|where|when|who|is there|are there|"
                             r"do you|does|did|maybe|perhaps)\b|"
                             r"(?:right|yeah|yes|no|ok|okay|eh|innit|thoughts|ideas|agreed|fair)\s*\?+\s*$)",
                             re.IGNORECASE)


# "Tom and I got married", "anna and I broke up": one subject of two people, which "and" must not split (the
# clause would lose whom the user did it with). Said as "me and Tom", it stays one clause.
_COMPOUND_SUBJECT = re.compile(r"(?:^|(?<=[,;:]))(?P<space>\s*)"
                               r"(?P<other>(?:my|our)\s+[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]*)?|[\w'-]+)"
                               r"\s+and\s+(?:I|me)\b(?!')", re.IGNORECASE)


def _compound_subject(match: re.Match[str]) -> str:
    other = match["other"]
    if other.casefold() in STOPWORDS or other.casefold() in _SMALL_TALK_WORDS:
        return match.group(0)  # "yes and I ...", "so and I": not a person
    return f"{match['space']}me and {other}"


# A question after a statement of the speaker's: "we've booked Crete, good shout or too hot?", "my son is 5, is that
# too young for ski school?". Only at the last comma, and only when what comes before opens with the speaker.
_STATEMENT_THEN_QUESTION = re.compile(r"^(?P<said>(?:i|i'm|im|i've|i'd|we|we're|we've|my|our)\b[^,?]*),\s*"
                                      r"(?P<asked>[^,]+\?+)\s*$", re.IGNORECASE)


def _question_after_a_statement(piece: str) -> list[str]:
    m = _STATEMENT_THEN_QUESTION.match(piece)
    return [m["said"], m["asked"]] if m else [piece]


def split_clauses(sentence: str) -> list[str]:
    """Split a sentence into clauses that each state one thing.

    Splitting only happens before a word that starts a new statement about the speaker or the
    project, so lists ("I like cats and dogs") stay whole.
    """
    pieces = _DASH_SPLIT.split(_COMPOUND_SUBJECT.sub(_compound_subject, sentence))
    if sentence.rstrip().endswith("?"):
        pieces = [r for p in pieces for q in _QUESTION_SPLIT.split(p) for r in _question_after_a_statement(q)]
    parts = [p for piece in pieces for p in _CLAUSE_SPLIT.split(piece) if p and p.strip(" ,;")]
    clauses: list[str] = []
    for part in parts:
        sub = (_CARRY_SPLIT_COMMA if _SAYS_SPEAKER.match(part) else _CARRY_SPLIT).split(part)
        clauses.append(sub[0])
        clauses.extend(f"I {s}" for s in sub[1:])
    cleaned = []
    for clause in clauses:
        clause = re.sub(r"^(?:and|but|so|also|plus)\s+(?=\w)", "", clause.strip(" ,;"), flags=re.IGNORECASE)
        if clause:
            cleaned.append(clause)
    return cleaned


# --- tokenizing -------------------------------------------------------------------------------

# Stopwords cover function words, question words and the words every memory shares ("user",
# "project"): a token that appears in every memory carries no evidence, and left in it would
# let any query that mentions "the user" lexically match every memory.
STOPWORDS = frozenset(
    """
    a an the and or but if then else of to in on at by for with from into onto about as than so too very
    is am are was were be been being do does did doing done have has had having will would shall should can
    could may might must i me my mine myself you your yours we us our ours he him his she her hers it its
    they them their theirs this that these those there here what which who whom whose when where why how
    user user's users project s t not no yes just also really actually now currently still anymore any some
    all each every much many more most other such own same only again ever there's it's i'm i've i'd i'll
    tell know remember please let lets say said get got go going gonna wanna like kind sort thing things
    one ones im ive id dont don't doesnt does't isnt isn't wasnt wasn't thats that's whats what's
    """.split()
)

_TOKEN = re.compile(r"[^\W_]+(?:[.+#][^\W_]+)*[+#]*", re.UNICODE)


def _stem(token: str) -> str:
    """A light suffix stripper: enough for lives/living/live and cities/city; not linguistics.

    The same word in any of its forms must land on the same stem, so a final "e" always goes.
    """
    if not token.isalpha() or len(token) <= 2:
        return token
    for suffix, repl in (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", "e"), ("s", "")):
        if suffix == "s" and token.endswith(("ss", "us", "is")):
            break
        if suffix == "ed" and token.endswith("eed"):
            break
        if token.endswith(suffix) and len(token) - len(suffix) + len(repl) >= (2 if suffix in ("ing", "ed") else 3):
            token = token[: len(token) - len(suffix)] + repl
            if suffix in ("ing", "ed") and token[-1] == token[-2] and token[-1] not in "lsz":
                token = token[:-1]  # running -> run, stopped -> stop
            break
    if token.endswith("e") and len(token) >= 3:
        token = token[:-1]
    return token


# British spellings read as American ones, so "favourite" and "favorite" are one word: -our, -re, -ise and a
# doubled l before -ed/-ing. A word that only looks like one ("raise" -> "raize") changes alike on both sides.
_SPELLING = [
    (re.compile(r"^(colo|flavo|favo|neighbo|behavio|hono|humo|labo|harbo|rumo|savo|armo|odo|vapo|endeavo)ur"), r"\1r"),
    (re.compile(r"^(cent|theat|met|kilomet|centimet|millimet|lit|fib|calib|sab|lust|somb)re(s|d)?$"), r"\1er\2"),
    (re.compile(r"(?<=\w{3})(?:is|ys)(e|es|ed|ing|er|ers|ation|ations)$"), r"iz\1"),
    (re.compile(r"^(travel|cancel|label|model|fuel|level|signal|counsel|total|dial|channel|tunnel|jewel)l(ed|ing|er|ers)$"),
     r"\1\2"),
]


def _american(word: str) -> str:
    for pattern, repl in _SPELLING:
        word = pattern.sub(repl, word)
    return word


@lru_cache(maxsize=65536)
def term(raw: str) -> str:
    # Recall tokenizes every candidate memory on every question: a word's term is computed once, not per
    # candidate (a vocabulary of a few tens of thousands of words fits).
    return _stem(_american(raw))


def tokenize(text: str) -> list[str]:
    """Lowercased, stopword-free, lightly stemmed tokens for BM25."""
    tokens = []
    for raw in _TOKEN.findall(text.casefold()):
        raw = raw.strip(".")
        if not raw or raw in STOPWORDS:
            continue
        tokens.append(term(raw))
    return tokens


# --- small talk -------------------------------------------------------------------------------

_SMALL_TALK_WORDS = frozenset(
    """
    ok okay k kk okey oki okie alright allright right sure yes yeah yep yup ya yah no nope nah thanks thank
    thx ty tysm you u cool nice great awesome perfect good fine sounds sound got it gotcha understood
    noted hi hello hey heya hiya yo morning evening afternoon night goodnight gn bye goodbye cya see later
    soon tomorrow tmrw take care cheers lol lmao haha hahaha hehe heh hmm hm mhm uh um oh ah wow omg neat
    sweet lovely wonderful amazing excellent welcome np problem worries no-problem much very so a lot
    glad happy to help that's thats makes sense fair enough indeed totally absolutely definitely
    exactly agreed agree true interesting wait hold on one sec second brb ttyl all the and for again
    appreciate appreciated it helps helped helpful well done done go ahead continue please pls plz
    have day weekend bro dude mate man buddy friend guys folks everyone there all how are doing what's up sup
    good-bye see-you you're youre the best talk speak chat catch up soon later sorry late reply response
    delay been crazy hectic busy week day long it's its was ttys nite gnight sleep well sweet dreams
    that this it is really super just
    """.split()
)
_EMOJI_OR_PUNCT = re.compile(r"[\W_]+", re.UNICODE)


def is_small_talk(text: str) -> bool:
    """True when the text carries nothing to remember: greetings, thanks, acknowledgements, laughter.

    Decided word by word: every word must be conversational filler. Emoji and punctuation are
    ignored, so "ok thanks 👍" is small talk; "thanks, I moved to Oslo" is not.
    """
    words = [w for w in _EMOJI_OR_PUNCT.split(text.casefold().replace("'", "")) if w]
    if not words:
        return True  # only emoji / punctuation
    return all(w in _SMALL_TALK_WORDS or re.fullmatch(r"(?:ha|he|lo|l)+l?|o+k+|hm+|a+h+|o+h+|w+o+w+", w) for w in words)


# Leading pleasantries that can precede a fact in the same sentence: "Thanks! By the way, ..."
_LEADING_FILLER = re.compile(
    r"^(?:(?:ok(?:ay)?|oh|ah|well|so|hey|hi|hello|thanks|thank you|cool|great|nice|sure|yeah|yes|"
    # "no" that answers, not "no more friday deploys", "no meat for me"
    r"no(?=\s*[,!.:;-]|\s+(?:i|i'm|im|it|it's|its|we|we're|my|our|the|that|that's|this|actually|wait|sorry|you|he|"
    r"she|they)\b)|by the way|btw|fyi|anyway|anyways|also|oh and|and|just so you know|for the record|quick update|update|"
    r"heads up|fun fact|good morning|good evening|haha|lol|just a reminder|reminder|as i said|as i mentioned|"
    r"like i said|to recap|just to recap|again|as you know|as i told you)\b[\s,!.:;-]*)+",
    re.IGNORECASE,
)


def strip_leading_filler(clause: str) -> str:
    stripped = _LEADING_FILLER.sub("", clause).strip()
    return stripped or clause


_QUESTION_START = re.compile(
    r"^(?:what|what's|whats|wat|wut|who|whom|whose|where|when|why|how|which|can you|could you|would you|will you|"
    r"do you|did you|are you|is it|is there|should i|could i|can i|shall we|any idea)\b",
    re.IGNORECASE,
)
_REQUEST_START = re.compile(
    r"^(?:please\s+)?(?:help me|write|draft|summarize|summarise|explain|translate|show me|give me|list|"
    r"generate|create|make me|tell me|find|search|look up|fix|debug|refactor|rewrite|recommend|suggest|send me|"
    r"compare|calculate|proofread)\b",
    re.IGNORECASE,
)


def starts_as_question(clause: str) -> bool:
    """"what ...", "so where ...", "can you ...": a sentence that asks, with or without a question mark."""
    return _QUESTION_START.match(strip_leading_filler(clause.strip())) is not None


def is_question_or_request(clause: str) -> bool:
    """A question or a request to the assistant states no durable fact about the user."""
    c = clause.strip()
    if c.endswith("?"):
        return True
    if _QUESTION_START.match(c) and not re.search(r"\b(?:i|my|i'm|we|our)\b", c, re.IGNORECASE):
        return True
    return bool(_REQUEST_START.match(c))


def content_coverage(question_terms: Iterable[str], memory_terms: Iterable[str]) -> float:
    """The share of the question's distinct content words (tokenize() output) that the memory carries:
    a memory with every content word of the question is lexical evidence even when its cosine is low."""
    asked = set(question_terms)
    if not asked:
        return 0.0
    return len(asked & set(memory_terms)) / len(asked)


# --- abbreviations -------------------------------------------------------------------------------
# Clipped and abbreviated words of chat, spelled out for the embedding model, which reads "mgr", "appt" or "k8s"
# poorly ("who is my manager?" vs "User's mgr is Dana": cosine 0.34; spelled out 0.69). Lower-case keys match in
# any case; upper-case keys only as written ("PM" but not "3 PM", "HR" but not "hr"). Words with two common
# readings ("doc", "dev", "min", "temp") are left as they are.
ABBREVIATIONS = {
    "mgr": "manager", "appt": "appointment", "appts": "appointments", "bday": "birthday", "b-day": "birthday",
    "bf": "boyfriend", "gf": "girlfriend", "hubby": "husband", "bro": "brother", "sis": "sister",
    "db": "database", "dbs": "databases", "repo": "repository", "repos": "repositories", "infra": "infrastructure",
    "prod": "production", "env": "environment", "envs": "environments", "config": "configuration",
    "docs": "documentation", "k8s": "Kubernetes", "uni": "university", "dept": "department", "govt": "government",
    "info": "information", "convo": "conversation", "meds": "medication", "approx": "approximately",
    "yr": "year", "yrs": "years", "wk": "week", "wks": "weeks", "hrs": "hours", "mins": "minutes",
    "tmrw": "tomorrow", "ppl": "people", "fav": "favourite", "fave": "favourite", "wfh": "work from home",
    "pto": "paid time off", "w/": "with", "w/o": "without", "pic": "photo", "pics": "photos",
    "rec": "recommendation", "recs": "recommendations", "convos": "conversations", "msgs": "messages",
    "PM": "product or project manager", "HR": "human resources", "BP": "blood pressure", "bp": "blood pressure",
    "OOO": "out of office",
}
_ABBREVIATION = re.compile(
    r"(?<![\w/-])(?:" + "|".join(sorted((re.escape(k) for k in ABBREVIATIONS), key=len, reverse=True))
    + r")(?![\w/-])", re.IGNORECASE)
_ABBREVIATION_KEYS = {k.casefold(): k for k in ABBREVIATIONS if k.islower() or not k.isalpha()}


def spell_out(text: str) -> str:
    """Chat abbreviations spelled out ("dentist appt" -> "dentist appointment"), for embedding."""
    def one(m: re.Match[str]) -> str:
        word = m.group(0)
        if word in ABBREVIATIONS and not word.islower():
            if word == "PM" and re.search(r"\d\s*$", text[:m.start()]):
                return word  # "3 PM" is a time
            return ABBREVIATIONS[word]
        key = _ABBREVIATION_KEYS.get(word.casefold())
        return ABBREVIATIONS[key] if key is not None else word
    return _ABBREVIATION.sub(one, text)
