"""Open-world conflicts: do two memory sentences say different things about the same thing?

The slot table is the fast, precise path to "this replaces that"; it only knows the slots it lists.
These pure functions judge any two sentences instead, from what they are about (the topic words
left once values, units, update verbs and time words are taken out) and what kind of value each
carries (an amount, a time, a name or a plain phrase): "User's rent is 900 euros a month." and
"They raised User's rent to 1000 euros." share the topic "rent" and both carry an amount. Two well-known values
of one kind (the gazetteer's editors, browsers, databases; a preference's listed examples: "vegetarian", "vegan")
compete without a shared word: "gave neovim a proper go" is about what "User uses VS Code" is about.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

from .. import text as textlib
from .vocabulary import JOB_NOUNS, KNOWN_RE, RELATIVES, SLOTS, CuePattern
from .voice import ADVERBS, PAST_TENSE

_TIME = re.compile(
    r"\b(?:\d{1,2}(?::\d\d)?\s*(?:am|pm|o'clock)|\d{1,2}:\d\d|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekends?|january|february|march|april|"
    r"june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec|"
    r"tomorrow|tonight|today|yesterday|noon|midnight|next (?:week|month|year)|this (?:week|month|year)|"
    r"\d{1,2}(?:st|nd|rd|th)|daily|weekly|fortnightly|monthly|quarterly|yearly|annually|biweekly|"
    r"every (?:other |\w+ )?(?:day|week|month|year|morning|evening|night)s?|"
    # times of day said as a habit: "at lunchtime", "in the evenings", "mornings"
    r"(?:mornings|afternoons|evenings|nights|lunchtimes?|lunch breaks?|weeknights|after work|before work)|"
    # how often: "once a week", "3 times a month", "twice per day"
    r"(?:(?:once|twice|thrice)|(?:\d+|one|two|three|four|five|six|seven|a few|a couple of|several) times?)"
    r" (?:a|per|every|each) (?:day|week|fortnight|month|year)|"
    # "May" is a month only beside a day's number ("May 8", "the 8th of May"); a date may be written with slashes
    r"may \d{1,2}|\d{1,2}(?:st|nd|rd|th)? (?:of )?may|\d{1,2}/\d{1,2}(?:/\d{2,4})?|"
    # a year after a word that says when ("in 2022", "since 2019"); "from 1900 to 2100 euros" is an amount
    r"(?:in|since|until|till|during) (?:19|20)\d\d|"
    # an hour said bare after "at" ("dog walks are at 6 now"); not a count, a measure, an age or an address
    r"(?:at|by|around|till|until) (?:half )?(?:[01]?\d|2[0-3])(?:[:.]\d\d)?(?![\d:%]|[.,]\d)"
    r"(?!\s*(?:percent|kg|km|mi|miles|people|euros?|dollars?|pounds?|quid|k|m|grand|times|of|per|a|an|years?|"
    r"months?|weeks?|days?|minutes?|mins?|hours?|stars?|points?)\b)(?!\s+(?-i:[A-Z])))\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d")
# A quantity: a number standing alone ("900", "58k", "1,100", "3.9"), not a digit inside a name ("EV6",
# "P-45") nor a version after one ("Vue 2", "Pixel 9", "iPhone 12").
_UNITS = r"k|m|bn|%|mg|g|kg|km|mi|ml|l|cl|cm|mm|m2|lbs?|oz|x|gb|mb|tb|kwh|mph|kph|bpm"
_AMOUNT = re.compile(rf"^\d[\d,.]*(?:{_UNITS})?$", re.IGNORECASE)


# Numbers said in words ("two weeks", "one-week sprints"). "one" alone is as often a pronoun ("the red one"),
# so it counts only joined to what it measures.
_NUMBER_WORD = re.compile(
    r"^(?:(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|"
    r"seventy|eighty|ninety|hundred|thousand|dozen)(?:-[a-z]+)?|one-[a-z]+)$", re.IGNORECASE)


_HOW_OFTEN = {"once": "one", "twice": "two", "thrice": "three"}
_NOT_COUNTED = frozenset({"of", "more", "another", "day", "thing", "way", "time", "or", "and", "too", "by"})


def _number_word(word: str, after: str = "") -> str | None:
    """The number a word says ("two", "one-week" -> "one"; "one" before what it counts: "one coffee"), or None."""
    word = word.strip(".,").casefold()
    if word in _HOW_OFTEN and after.casefold() in ("a", "an", "per", "every", "each"):
        return _HOW_OFTEN[word]  # "once a week", "twice per day"
    if word == "one" and after[:1].islower() and after.casefold() not in _NOT_COUNTED and after not in textlib.STOPWORDS:
        return "one"
    return word.split("-")[0] if _NUMBER_WORD.match(word) else None


def _has_amount(text: str) -> bool:
    words = re.findall(r"[\w.,%+#-]+", text)
    for before, word, after in zip([""] + words, words, words[1:] + [""]):
        before = before.rstrip(".,")
        # "Pixel 9" is a version; "costs User 40 pounds" is an amount: "User" stands for the person.
        if _AMOUNT.match(word.rstrip(".,")) and (not _NAME.match(before) or before.casefold() == "user"):
            return True
        if _number_word(word, "" if word.endswith((".", ",")) else after):
            return True
    return False
_NAME = re.compile(r"^(?:[A-Z][\w.+#-]*|[a-z]+[A-Z][\w.+#-]*|\w*\d\w*[A-Za-z]\w*)$")


def _words(text: str) -> set[str]:
    return set(textlib.tokenize(text))


# Words that say how a value changed or when, not what it is about. Stemmed like the topic words.
_NOT_TOPIC_WORDS = """
raise raised increase increased decrease decreased lower lowered bump bumped drop dropped cut grew grow grown
went go up down over off onto to from put upgrade upgraded downgrade downgraded migrate migrated switch switched
swap swapped replace replaced trade traded move moved relocate relocated port ported rename renamed rewrite rewrote
rewritten change changed hit crossed reach reached now new newly latest old former since used get getting got
cancel cancelled canceled ditch ditched quit stop stopped sold sell started start finally anymore longer instead
week weeks month months year years day days night nights hour hours minute minutes time times today yesterday
tomorrow last next ago morning evening a an per each every about around roughly only just
euro euros dollar dollars pound pounds usd eur gbp k percent per cent bucks quid yen
user project they them he she someone somebody ask asked asking
one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty forty fifty sixty seventy eighty
ninety hundred thousand dozen
"""
_NOT_TOPIC = frozenset(_words(_NOT_TOPIC_WORDS))


# Short forms people use for the same thing: "the db" is the database.
_SAME_THING = {"db": "databas", "repo": "repository", "cell": "phon", "mobil": "phon", "pc": "computer",
               "laptop": "computer", "salary": "pay", "wag": "pay", "earn": "pay", "car": "vehicl",
               "mom": "mum", "mam": "mum", "mother": "mum", "dad": "father", "boss": "manager"}
# A head noun that names who supplies the thing before it, or which make of it: "User's internet provider" is said
# of the user's internet, "User's phone model" of the phone, "User's energy company" of the energy.
_SUPPLIER_HEADS = frozenset(_words("provider supplier company brand make model carrier operator vendor service "
                                   "network"))


def topic_words(text: str) -> set[str]:
    """What a sentence is about: its content stems without numbers, units, change verbs or time words."""
    return {_SAME_THING.get(w, w) for w in _words(text) if not _NUMBER.search(w) and w not in _NOT_TOPIC}


# Whom a sentence ends by speaking to is no value of it: "..., sorry Alex Turner", "..., thanks Sam!".
_ADDRESSEE = re.compile(r"[,;]?\s+(?:sorry|thanks|thank you|cheers|ta|hi|hey|hello|bye|love you)\s+[A-Z][\w'-]*"
                        r"(?:\s+[\w'-]+)?\s*[.!?]*\s*$", re.IGNORECASE)


def _value_words(text: str, *, sentence: bool) -> list[str]:
    words = re.findall(r"[\w.+#'-]+", _ADDRESSEE.sub("", text))
    if sentence and words:
        words = words[1:]  # a sentence's first word is capitalised whatever it is
    return [w.strip(".'") for w in words if w.strip(".'") and w.strip(".'").casefold() not in ("user", "user's", "project")]


# A length of time ("two weeks", "90 minutes") is an amount and a time: it compares with "weekly" too.
_DURATION = re.compile(r"(?:\b\d+|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|a couple of|a few))"
                       r"[\s-]+(?:minute|hour|day|night|week|month|year)s?\b", re.IGNORECASE)


# When a change happened, said beside the new value ("went vegan in January", "switched to Bolt last month"): what
# kind of value a sentence carries is read without it too, or "in January" would make "vegan" a time.
_WHEN_SAID = re.compile(
    r"\b(?:(?:in|since|during|as of|starting|from) (?:january|february|march|april|may|june|july|august|september|"
    r"october|november|december|spring|summer|autumn|fall|winter)|"
    r"(?:last|this|next|as of this|as of last) (?:night|week|weekend|month|year|spring|summer|autumn|fall|winter|"
    r"morning|afternoon|evening|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"(?:yesterday|this) (?:morning|afternoon|evening)|yesterday|today|tonight|"
    r"on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)(?!s)|"
    r"(?:a|one|two|three|a few|a couple of) (?:days|weeks|months|years) ago|"
    # how long the change took: "spent the whole weekend repainting the door"
    r"(?:all|the whole|the entire|a whole) (?:day|night|week|weekend|morning|afternoon|evening|month|summer))\b",
    re.IGNORECASE,
)


def value_kind_besides_when(text: str) -> str:
    """The main kind of value a memory sentence carries, read without when it holds ("Landlord wants 1350 from next
    month" carries an amount) when anything of a kind is left."""
    rest = _WHEN_SAID.sub(" ", text)
    if rest != text and (kind := value_kind(rest, sentence=True)) != "phrase":
        return kind
    return value_kind(text, sentence=True)


def _kinds_besides_when(text: str) -> set[str]:
    """A new memory sentence's value kinds, also as read without when its change happened."""
    kinds = value_kinds(text, sentence=True)
    rest = _WHEN_SAID.sub(" ", text)
    return kinds | value_kinds(rest, sentence=True) if rest != text else kinds


def _time_words(text: str) -> set[str]:
    return {m.group(0).casefold() for m in _TIME.finditer(text)}


def has_time(text: str) -> bool:
    """Does a text say a time: a clock time, a day, a month, a date, a frequency or a length of time?"""
    return bool(_TIME.search(text) or _DURATION.search(text))


def value_kinds(value: str, *, sentence: bool = False) -> set[str]:
    """The kinds of value a value (or a whole memory sentence) carries: amount, time, name; else phrase."""
    return set(_value_kinds(value, sentence))


@lru_cache(maxsize=8192)
def _value_kinds(value: str, sentence: bool) -> frozenset[str]:
    # Cached: an ingest compares the new sentence with each of the nearest memories, and those recur.
    kinds = set()
    if _TIME.search(value) or _DURATION.search(value):
        kinds.add("time")
    if _has_amount(value):
        kinds.add("amount")
    if any(_NAME.match(w) and not _TIME.fullmatch(w) and not _AMOUNT.match(w)
           for w in _value_words(value, sentence=sentence)):
        kinds.add("name")
    return frozenset(kinds or {"phrase"})


def value_kind(value: str, *, sentence: bool = False) -> str:
    """The main kind of value: a time, else an amount, else a name, else a phrase."""
    kinds = value_kinds(value, sentence=sentence)
    return next(k for k in ("time", "amount", "name", "phrase") if k in kinds)


@lru_cache(maxsize=8192)
def _value_tokens(text: str, sentence: bool = True) -> frozenset[str]:
    """Numbers and names in a sentence: the part of it that changes when a fact is updated."""
    out = set()
    words = _value_words(text, sentence=sentence)
    for w, after in zip(words, words[1:] + [""]):
        if _NUMBER.search(w) or _NAME.match(w):
            out.update(textlib.tokenize(w) or [w.casefold()])
        elif (number := _number_word(w, after)) is not None:
            out.add(number)
    return frozenset(out)


def value_tokens(text: str) -> frozenset[str]:
    """The numbers and names a sentence says after its first word (a chat sentence's first word is capitalised
    whatever it is: "Keep Andrew posted" says the name Andrew)."""
    return _value_tokens(text)


def held_values(text: str) -> frozenset[str]:
    """The numbers and names a memory sentence holds. Its first word counts when it reads as a name ("Marco is
    User's trainer."), not as a verb or a pronoun ("Talking to Priya ...", "Your encouragement ...")."""
    first = text.split()[0].strip(",.") if text.split() else ""
    if (not _NAME.match(first) or first.casefold().endswith(("ing", "ed")) or first.casefold() in PAST_TENSE
            or first.casefold() in textlib.STOPWORDS):
        return _value_tokens(text)
    return _value_tokens(text) | frozenset(textlib.tokenize(first) or [first.casefold()])


def _examples(description: str) -> str:
    """The example values a slot's description lists after its colon ("diet: vegetarian, vegan, keto, ..." ->
    "vegetarian|vegan|keto"), as a pattern; "" when it lists none. Phrases that describe ("food they do not
    eat") are no example."""
    _, colon, listed = description.partition(":")
    items = [i.strip() for i in listed.split(",")] if colon else []
    return "|".join(re.escape(i) for i in items if i and len(i.split()) <= 2
                    and not set(i.casefold().split()) & {"they", "their", "the", "person", "names"})


@lru_cache(maxsize=1)
def _value_patterns() -> dict[str, re.Pattern[str]]:
    """Single-valued slots and the well-known values of each: the gazetteer's and a preference's examples.
    Accumulating kinds stay out ("go", "r", "swift" are common words, and one never replaces another)."""
    patterns = {}
    for name, slot in SLOTS.items():
        if slot.multi:
            continue
        known = [p.pattern for p in (KNOWN_RE.get(name),) if p is not None]
        # A preference's description lists values ("diet: vegetarian, vegan, keto"); a fact's lists what kind of
        # thing it holds ("where the person lives: city, country").
        if slot.type == "preference" and (listed := _examples(slot.description)):
            known.append(rf"(?<![\w.])(?:{listed})(?![\w])")
        if known:
            patterns[name] = re.compile("|".join(f"(?:{k})" for k in known), re.IGNORECASE)
    return patterns


def _known_values(text: str) -> dict[str, set[str]]:
    """Well-known values a sentence carries, by the single-valued slot they belong to ("User uses VS Code" ->
    {"editor": {"vscode"}}), spaces left out: "vscode" is "VS Code"."""
    found: dict[str, set[str]] = {}
    for slot, pattern in _value_patterns().items():
        for match in pattern.finditer(text):
            found.setdefault(slot, set()).add(re.sub(r"\W+", "", match.group(0).casefold()))
    return found


def names_another_of_its_kind(old_text: str, new_text: str) -> bool:
    """Does a new sentence name a well-known value of a kind the old one holds another of: "gave neovim a go" after
    "User uses VS Code" (two editors), "Postgres" after "MySQL"? That is the same thing said again, whatever words
    each sentence puts around it."""
    old, new = _known_values(old_text), _known_values(new_text)
    return any(new[slot] - old[slot] for slot in old.keys() & new.keys())


_KIN = frozenset(word for words, _ in RELATIVES for word in words.split())
# "Marco is User's personal trainer", "Steve coaches User's team", "Nia babysits for User": the name opening it is
# the role's holder, the one who does it.
_ROLE_HOLDER_FIRST = re.compile(r"^(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?\s+"
                                r"(?:(?:is|was)\s+(?:User|[A-Z][\w-]*)'s|"
                                r"(?:now\s+|still\s+)?[a-z]+(?<!'s)s\s+(?:(?:for|with)\s+)?User(?:'s)?)(?:\s|[.,!]|$)")


def holds_users_role(text: str) -> bool:
    """Does a memory sentence open with whoever fills one of the user's roles ("Kofi is User's personal trainer",
    "Steve coaches User's team"), not with a relative of theirs ("Maria is User's sister")? It is the user's."""
    match = _ROLE_HOLDER_FIRST.match(text.strip())
    if match is None or " User" not in match.group(0):
        return False
    role = text.strip()[match.end():].split()
    return not (role and role[0].strip(".,").casefold() in _KIN)


_AGENT_NOUN = re.compile(r"\b([a-z]{3,}?)(\w?)er\b")
# The speaker doing it ("User manages two interns") fills no role a person holds for them; "User is training with
# Rob" names who does. A tool is another matter: "User tracks bugs in Jira" is what the bug tracker does.
_DONE_BY_THE_SPEAKER = re.compile(r"\b(?:User|I|we)(?:'m|'re|\s+is|\s+am|\s+are)?\s+(?:\w+ly\s+|now\s+|still\s+)?$",
                                  re.IGNORECASE)
_LOWER_WORD = re.compile(r"(?<![\w'-])[a-z][a-z-]+\b")
_USER_FIRST = re.compile(r"^\s*(?:User|I|we)\b", re.IGNORECASE)
_COMPOUND_PART = 4  # letters of each part of a one-word doer: "hair" + "dresser"; not "car" + "penter"


def _doer_and_doing(old_text: str, new_text: str) -> set[str]:
    """The doing one sentence names and the other names the one who does ("User's personal trainer is Bea" / "User
    is training with Rob now", "User's cleaner" / "doing the cleaning", "tracker" / "tracks"): one topic, though their
    stems differ. The doing's stem, or nothing. The doing is a lower-case word: a capitalised one is a name."""
    found = set()
    for doers, doings in ((old_text, new_text), (new_text, old_text)):
        roots, agents = set(), []
        for m in _AGENT_NOUN.finditer(doers.casefold()):
            if m.group(0) in _KIN:
                continue  # a mother is no one who moths
            root, double = m.groups()
            roots.add(textlib.term(root + double) if double and double != root[-1] else textlib.term(root))
            agents.append(m.group(0))
        person = about_a_person(doers)
        done = {textlib.term(m.group(0)) for m in _LOWER_WORD.finditer(doings)
                if not (person and _DONE_BY_THE_SPEAKER.search(doings[:m.start()]))
                or doings[m.end():].startswith(" with")}
        found |= roots & done
        # a doer named by what they do it to, in one word: "hairdresser" and "Kit does my hair", "housekeeper" and
        # "keeps the house"; not the user doing it to their own ("User washes their hair")
        if not _USER_FIRST.match(doings):
            found |= {word for word in done for agent in agents if len(word) >= _COMPOUND_PART
                      and agent.startswith(word) and len(agent) - len(word) >= _COMPOUND_PART}
    return found


def competes(old_text: str, new_text: str, *, people: frozenset[str] = frozenset(),
             new_opens_with_name: bool = False) -> bool:
    """Two memory sentences about the same thing (a shared topic word) carrying values of the same
    kind that differ: the newer may replace the older (the caller decides, from cues and slots).
    `people`: stems of the names of whom the sentences are about or who said them; in a chat between named
    people nearly every sentence names them, so a shared name says nothing of a shared topic."""
    if names_another_of_its_kind(old_text, new_text):
        return True
    if other_things(old_text, new_text):
        return False
    # the doer and the doing only when no word is shared (read lazily: ingest asks this of each nearest memory)
    shared = ((topic_words(old_text) & topic_words(new_text)) - people
              or _doer_and_doing(old_text, new_text) - people)
    if not shared:
        return False
    # A person in the conversation is whom a sentence is about or said to, not a value it holds; a name opening a
    # sentence as the holder of the user's role is one it holds ("Marco is User's personal trainer").
    old_values = (held_values(old_text) if _ROLE_HOLDER_FIRST.match(old_text) else _value_tokens(old_text)) - people
    new_values = (held_values(new_text) if new_opens_with_name or _ROLE_HOLDER_FIRST.match(new_text)
                  else _value_tokens(new_text)) - people
    old_kinds = value_kinds(old_text, sentence=True) | ({"name"} if old_values - _value_tokens(old_text) else set())
    new_kinds = _kinds_besides_when(new_text) | ({"name"} if new_values - _value_tokens(new_text) else set())
    if not old_kinds & new_kinds:
        return False
    if old_values and not new_values:
        # a time said in words is a value too: "moved my training to lunchtimes" after "trains at 6am"
        new_values = _time_words(new_text) - _time_words(old_text)
    if old_values or new_values:
        return not new_values <= old_values
    # Two sentences without a number or a name: the shared word must be the thing one of them is about ("User's
    # favourite coffee is a latte" / "User switched to black coffee"), or both must be states of their person ("User
    # is single" / "User is in a relationship now"). A word shared elsewhere ("It was rewarding" / "Trying new
    # things is rewarding") is how chat sentences resemble each other, not one thing said twice.
    things = {_head_stem(m["head"]) for text in (old_text, new_text) if (m := _SUBJECT_HEAD.match(text.strip()))}
    if not shared & things and not (states(old_text) and states(new_text)):
        return False
    return _words(old_text) != _words(new_text)


# A state of someone, said with a copula in a few words: "User is single", "Maria is vegan now"; not an activity
# ("is feeling", "is really enjoying", "is going to"), a state of something else, nor a sentence that says more.
_STATE = re.compile(r"^(?!(?:It|That|This|Those|These|There|They|He|She|We|You|What|Who)\b)"
                    r"(?:User|[A-Z][\w-]*(?:\s[A-Z][\w-]*)?)\s+(?:is|are|was|were)\s+(?:\w+ly\s+)*"
                    r"(?!\w+ing\b)(?P<state>[^,;:]+?)(?:\s+(?:now|these days|nowadays|again|anymore|any more))?[.!]?$")
_STATE_WORDS = 4


def states(text: str) -> bool:
    """Is a memory sentence a short state of whom it is about ("User is in a relationship now")?"""
    match = _STATE.match(text.strip())
    return match is not None and len(match["state"].split()) <= _STATE_WORDS


def values_differ(old_text: str, new_text: str) -> bool:
    """Does the new sentence say a value (a number or a name) the old one lacks, and the old one a value the new
    one lacks, as a replaced value and its replacement do? "John" said in both is whom they are about, not what
    changed, also where it is the old sentence's first word ("John started ..."). An old value said in words
    ("at midnight") has no number or name to lack."""
    old_values, new_values = _value_tokens(old_text, sentence=False), _value_tokens(new_text)
    return bool(new_values - old_values) and not (old_values and old_values <= new_values)


# A change said of one's own thing: "migrated the db to Postgres", "moved our DNS over to Cloudflare".
_CHANGED_THING = re.compile(
    r"\b(?:migrat(?:ed|ing|e)|mov(?:ed|ing|e)|switch(?:ed|ing)?|port(?:ed|ing)?|chang(?:ed|ing|e)|"
    r"transferr?(?:ed|ing)?|upgrad(?:ed|ing|e)|downgrad(?:ed|ing|e)|swapp?(?:ed|ing)?|rewr(?:ote|itten|iting))\s+"
    r"(?:the|my|our)\s+(?P<thing>(?:[\w-]+\s+){0,2}?[\w-]+)\s+(?:over\s+|across\s+)?(?:to|into|onto|in)\b",
    re.IGNORECASE,
)
# The same said of a thing by its bare name, as chat does ("upgraded notion to the plus plan"), with what it
# became.
_CHANGED_NAMED = re.compile(
    r"\b(?:migrat(?:ed|ing|e)|mov(?:ed|ing|e)|switch(?:ed|ing)?|port(?:ed|ing)?|chang(?:ed|ing|e)|"
    r"transferr?(?:ed|ing)?|upgrad(?:ed|ing|e)|downgrad(?:ed|ing|e)|swapp?(?:ed|ing)?)\s+"
    r"(?:(?:the|my|our)\s+)?(?P<thing>[\w.-]+)\s+(?:over\s+|across\s+)?(?:to|onto)\s+(?P<target>[^,;.!?]+)",
    re.IGNORECASE,
)


def changed_thing(clause: str) -> str | None:
    """The thing a clause says was changed, its last word as said ("migrated the db to Postgres" -> "db"),
    or None when the clause changes nothing of the speaker's it names (moving oneself, someone else's)."""
    match = _CHANGED_THING.search(clause)
    return match["thing"].split()[-1] if match else None


def changes_value_of(clause: str, old_text: str) -> bool:
    """Does a clause change a thing the old memory names into another of what the memory says it has ("upgraded
    notion to the plus plan" after "User is on the free plan of Notion": Notion's plan)? The memory must name the
    thing and share a word with what it became; "moved the savings to the Marcus account" after "User's savings
    account is with Barclays" does, "upgraded python to 3.12" after "User uses Python 3.11 and Rust" does not."""
    match = _CHANGED_NAMED.search(clause)
    if match is None:
        return False
    old = topic_words(old_text)
    thing = set(textlib.tokenize(match["thing"]))
    return bool(thing) and thing <= old and bool((topic_words(match["target"]) - thing) & old)


# A change of level: a plan, tier or subscription taken up or down ("bumped slack up to enterprise", "downgraded to
# basic"), with the thing changed named or left out.
_LEVEL_CHANGE = re.compile(
    r"\b(?:(?:upgrad|downgrad)(?:ed|ing|e)(?:\s+(?:(?:the|my|our)\s+)?(?P<thing>[\w.-]+))??|"
    r"(?:bump|mov|knock|push|kick)(?:ed|ing|e)?\s+(?:(?:the|my|our)\s+)?(?P<bumped>(?:[\w.-]+\s+){1,2}?)??(?:up|down))"
    r"\s+(?:to|onto)\s+(?P<target>[^,;.!?]+)", re.IGNORECASE)
# What has a level one holds once: "User is on the Pro plan", "User has the family subscription of Spotify".
_LEVELLED = frozenset(_words("plan tier subscription membership package tariff bundle edition licence license"))
_LEVEL_END = re.compile(r"\s+(?:for|because|as|since|after|when|so|but|last|this|next|from|with|now|today)\b.*$",
                        re.IGNORECASE)
_NOT_A_LEVEL = frozenset(_words("flat house car phone job room seat"))  # a bigger one of these is a new thing


def new_level(clause: str) -> str | None:
    """The level a clause takes something up or down to, as said ("enterprise last month"), or None."""
    match = _LEVEL_CHANGE.search(clause)
    return match["target"] if match else None


def changes_level_of(clause: str, old_text: str) -> bool:
    """Does a clause take up or down the level of what the old memory says one is on ("bumped slack up to
    enterprise" after "User is on the Team plan for Slack"; "downgraded to basic" after "User is on the Pro plan")?
    A thing named must be the memory's; the memory must hold a plan, tier, subscription or the like; and the new
    level must not be another thing the memory does not name ("upgraded to a bigger flat")."""
    match = _LEVEL_CHANGE.search(clause)
    if match is None:
        return False
    old = topic_words(old_text)
    if not _words(old_text) & _LEVELLED:
        return False
    thing = match["thing"] or match["bumped"]
    named = set(textlib.tokenize(thing)) if thing else set()
    if named and not named <= old:
        return False
    said = _LEVEL_END.sub("", match["target"])  # "professional for the new hires": the level is "professional"
    if set(textlib.tokenize(" ".join(w for w in said.split() if _NAME.match(w)))) - old:
        return False  # "upgraded to the family plan on Spotify" is Spotify's plan, not this memory's
    target = topic_words(said) - _NOT_TOPIC
    # "to the family plan" names a level word; "to basic" names nothing else; "to a bigger flat" names a thing
    return not (target - _LEVELLED - old) or bool(target & _LEVELLED) or len(target - _LEVELLED - old) == 1 and not (
        _words(said) & _NOT_A_LEVEL)


def _head_stem(words: str) -> str | None:
    stems = textlib.tokenize(words.split()[-1]) if words.split() else []
    return _SAME_THING.get(stems[0], stems[0]) if stems else None


def names_slot(thing: str, attribute: str) -> bool:
    """Is a changed thing what a slot holds? Its name's last word: "db" is "project_database"'s, not
    "office_dog"'s although that slot's name shares a word with "the office"."""
    head = _head_stem(attribute.replace("_", " "))
    return head is not None and head == _head_stem(thing)


# What a memory sentence is about: the last word of its subject ("The wedding venue is …" -> "venue").
_SUBJECT_HEAD = re.compile(
    r"^(?:(?:User|[A-Z][\w-]*)'s\s+(?:[\w-]+'s\s+)?|(?:The|Our|My|Their)\s+)(?:[\w-]+\s+){0,3}?(?P<head>[\w-]+)\s+"
    r"(?:is|are|was|were|has|have|costs?|runs?|meets?|starts?|ends?|lives?)\b")


def names_subject(thing: str, text: str) -> bool:
    """Is a changed thing what a memory sentence is about? The last word of its subject: "venue" is what "The
    wedding venue is a barn in Kent." is about; "office" is not what "User's office dog is Rex." is about."""
    match = _SUBJECT_HEAD.match(text.strip())
    return match is not None and _head_stem(match["head"]) == _head_stem(thing)


# Words that say what kind of thing a value is, not which: "quit keto" names "the keto diet".
_KIND_WORDS = frozenset(_words("diet plan class course app program programme lesson lessons subscription membership "
                               "account service session sessions routine club team"))


_COMPLEMENT = re.compile(r"\b(?:is|are|was|were)\s+(?:(?:called|named)\s+)?(?P<value>.+)$", re.IGNORECASE)


def names_old_value(old_value: str, clause: str, new_value: str = "", *, sentence: bool = False) -> bool:
    """Does the clause name an old memory's value ("sold the Yamaha" names "a Yamaha P-45")?

    A name in the old value counts on its own; a value of plain words must be named in full, but for the words
    saying what kind of thing it is and when ("keto" names "the keto diet", "spin" names "a spin class on Mondays").
    Words of the new value do not count: "I moved to Oslo" does not name an old "Oslo".
    sentence: the old value is a whole sentence (what no rule understood): its first word is capitalised whatever
    it is, and its plain words are what it says, not a value ("Family time means a lot to John" is not named by
    "he was part of the family").
    """
    # a modifier of a kind word or of the old value's own head still names it: "the Django backend", "flat whites"
    said = said_as_things(clause, _all_kind_words() | _slot_words(old_value)) - _words(new_value)
    named = {t for w in _value_words(old_value, sentence=sentence) if _NAME.match(w) for t in textlib.tokenize(w)}
    if named & said:
        return True
    if sentence:
        # What a sentence says of its subject is its value: "The main branch is called master" holds "master".
        complement = _COMPLEMENT.search(old_value)
        if complement is None:
            return False
        old_value = complement["value"]
    when = _words(" ".join(m.group(0) for m in _TIME.finditer(old_value)))
    plain = _words(old_value) - _NOT_TOPIC - _KIND_WORDS - when
    return bool(plain) and len(plain) <= 3 and plain <= said


_GENERIC_DESCRIPTION_WORDS = frozenset(_words("person people thing things other information use uses used"))


@lru_cache(maxsize=256)
def _own_words(slot_name: str, description: str) -> frozenset[str]:
    """A slot's topic words: its name and its description's words before the examples."""
    return frozenset(_slot_words(slot_name.replace("_", " ") + " " + description.partition(":")[0]))


@lru_cache(maxsize=1)
def _all_kind_words() -> frozenset[str]:
    """Words saying what kind of thing a value is: every slot's name and description words, and _KIND_WORDS."""
    return frozenset().union(*(_own_words(s.name, s.description) for s in SLOTS.values()),
                             _KIND_WORDS) - _GENERIC_DESCRIPTION_WORDS


# People a user talks about. "User's sister Ana lives in Porto." is the sister's fact.
PEOPLE = (
    "sister|brother|sibling|mother|mom|mum|mam|father|dad|parent|parents|son|daughter|kid|kids|child|children|"
    "wife|husband|spouse|partner|girlfriend|boyfriend|fiance|fiancee|fiancée|aunt|uncle|cousin|niece|nephew|"
    "grandma|grandmother|grandpa|grandfather|grandparents|friend|colleague|coworker|co-worker|boss|manager|"
    "neighbour|neighbor|roommate|flatmate|housemate|mentor|teacher|student|doctor|dentist|therapist|client|"
    "teammate|classmate|landlord|landlady|in-laws|stepmom|stepdad|stepson|stepdaughter"
)
_ABOUT_SOMEONE_ELSE = re.compile(
    rf"^(?:User|[A-Z][\w-]*(?:\s+[A-Z][\w-]*)?)'s\s+(?:[\w-]+\s+)?(?P<who>{PEOPLE})(?:'s)?\b")
_SAME_PERSON_WORD = {"mom": "mum", "mam": "mum", "mother": "mum", "dad": "father", "co-worker": "coworker",
                     "neighbor": "neighbour", "fiancee": "fiance", "fiancée": "fiance", "boss": "manager"}


def relation(text: str) -> str | None:
    """Whom a memory sentence is about when it is someone the user (or a speaker) knows: the first
    relation word ("User's aunt lives in Bath." -> "aunt"; "User's mum's sister" -> "mum"); None when it is
    about the user."""
    match = _ABOUT_SOMEONE_ELSE.match(text.strip())
    if match is None:
        return None
    who = match["who"].lower()
    return _SAME_PERSON_WORD.get(who, who)


# A person named with a title ("Dr. Amadi", "dr oyelaran", "Coach Rina", "Herr Bauer").
_PERSON_TITLE = re.compile(r"\b(?:[Dd]r|[Mm]rs?|[Mm]s|Miss|[Pp]rof|[Cc]oach|Herr|Frau|Sensei)\b\.?\s+[A-Za-z]")
_PERSON_WORD = re.compile(rf"\b(?:{PEOPLE})\b", re.IGNORECASE)


def about_a_person(text: str) -> bool:
    """Does a memory sentence speak of a person, by a relation, a role or a title, whom "he" or "she" can stand for
    ("User's brother lives in Leeds.", "User's GP is Dr. Hargreaves.", "Marco is User's personal trainer.")?"""
    return bool(_PERSON_WORD.search(text) or JOB_NOUNS.search(text) or _PERSON_TITLE.search(text))


# Who fills one of the user's roles, named: "User's manager is Ana.", "User's dentist is Dr. Patel."
_NAMES_THE_HOLDER = re.compile(r"^\s+(?:is|are|was|were)\s+(?:called\s+|named\s+)?(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?"
                               r"[A-Z]")


def of_someone_elses_life(text: str) -> bool:
    """Does a memory sentence say something of the life of a person the user knows ("User's brother Omar is
    allergic to penicillin.", "User's sister lives in Rome."), rather than name who fills one of the user's roles
    ("User's manager is Ana.") or say something the user takes part in ("User's wife drives User to work.")?"""
    match = _ABOUT_SOMEONE_ELSE.match(text.strip())
    if match is None:
        return False
    rest = text.strip()[match.end():]
    return not re.search(r"\bUser\b", rest) and not _NAMES_THE_HOLDER.match(rest)


def about_someone_else(text: str) -> bool:
    """Is a memory sentence about a person the user (or a named speaker) knows ("User's sister Ana lives in
    Porto.", "Tomas's colleague Anja moved to Graz.") rather than about them ("User's rent is 900 euros")?"""
    return relation(text) is not None


def slot_fits(clause: str, slot_name: str, description: str, text: str = "") -> bool:
    """May a clause no rule understood be filed under this slot? Only when it shares a topic word with the slot's
    name or the description's words before its examples, or names one of the examples as a thing: "I usually swim
    at 7pm" is nearest to "time zone" by meaning, but nothing in it is a time zone, so it stays a note. Words of
    time, units and numbers are no topic ("I earn 48k a year" is no age "in years"), and an example said as a verb
    names no thing ("I train for 10k races" is no commute "by train"; "I'm training with Dana" neither). Never when
    its memory sentence (`text`) is about someone else: the user's slots hold the user's facts."""
    if text and about_someone_else(text):
        return False
    examples = description.partition(":")[2]
    words = _own_words(slot_name, description) - _GENERIC_DESCRIPTION_WORDS
    raw = _TOKEN.findall(clause)
    said = [w.casefold() for w in raw]
    # A slot's word that only names another thing ("my name tag", "my car insurance") is no topic of the slot;
    # "my phone number", "my time zone" keep theirs: the word after is the slot's own.
    if any(_slot_words(w) & words and not modifies_a_noun(raw, i, words) for i, w in enumerate(said)):
        return True
    named = {w.casefold() for w in re.findall(r"[\w'-]+", examples)} - _EXAMPLE_FILLER
    return any((w.removesuffix("s") in named or w in named) and not (i and said[i - 1] in _BEFORE_A_VERB)
               and not modifies_a_noun(raw, i, words) for i, w in enumerate(said))


# Words that end a noun phrase's run: a noun after them is no head of the word before.
_PHRASE_BREAK = frozenset("and or but because so if when while that which who whose than as a an the my your his her "
                          "our their this these those some any every each all both another "
                          "i you he she it we they me him us them i'm it's".split()) | ADVERBS
_PREPOSITIONS = frozenset("at on in by with to for from of about into onto near under over behind".split())
# A verb said to a plural subject, in its plain form: "my guitar strings need replacing", "my car keys are ...".
_PLAIN_VERBS = frozenset("""
is are was were am be been has have had can could will would should must may might do does did don't doesn't
didn't won't isn't aren't wasn't weren't need needs want take cost look seem go come keep live sit stay start open
close run arrive belong expire renew hold fit leak smell sound feel work
""".split())


def _verb_like(word: str, after: str) -> bool:
    """Could a word be the verb after a subject? A plain or modal verb, a past form, or an "-s" form not itself
    followed by a verb (then it is a plural noun: "my car keys are")."""
    if word in _PLAIN_VERBS or word in PAST_TENSE or (word.endswith("ed") and word not in _NOT_PAST):
        return True
    return word.endswith("s") and not word.endswith(("ss", "us", "is")) and not (
        after in _PLAIN_VERBS or after in PAST_TENSE)


def modifies_a_noun(raw: list[str], i: int, own: set[str] | frozenset[str] = frozenset()) -> bool:
    """Is word i only a modifier of the noun after it, its phrase headed by another thing? "My name tag at the
    conference says Dr. Lee": "name" modifies "tag", the verb "says" comes after the whole phrase; in "my car
    broke down" and "my dog loves walks" the next word is the verb, so "car" and "dog" are what is talked of."""
    return phrase_head(raw, i, own) is not None


def phrase_head(raw: list[str], i: int, own: set[str] | frozenset[str] = frozenset()) -> int | None:
    """The index of the noun word i modifies (see modifies_a_noun), or None when word i heads its own phrase. No
    POS tagger: a phrase is the run of plain words up to the first word that can be a verb; a word of the slot's
    own (`own`: "phone number"), a name ("my dog Rex is 5"), a number or a phrase break ends it first."""
    low = [w.casefold() for w in raw]
    head = None
    in_prepositional = False
    for j in range(i + 1, len(raw)):
        word, after = low[j], low[j + 1] if j + 1 < len(raw) else ""
        if word in _MARKS:
            return None  # a comma or a full stop ends the phrase with no verb of its own
        if word in _PREPOSITIONS and head is not None:
            in_prepositional = True  # "my name tag at the conference says": the phrase goes on to its verb
            continue
        if _verb_like(word, after):
            return head
        if in_prepositional:
            continue
        if not _plain_word(raw[j], own):
            return None
        head = j
    return None


def _plain_word(word: str, own: set[str] | frozenset[str] = frozenset()) -> bool:
    """Could a word (not a verb) go on a noun phrase? Not a phrase break, a preposition, an "-ly" word, a number, a
    name, a mark, nor a word of `own`."""
    low = word.casefold()
    return not (low in _PHRASE_BREAK or low in _PREPOSITIONS or low in _MARKS or low.endswith("ly")
                or _NUMBER.search(low) or word[:1].isupper() or _slot_words(low) & own)


def followed_by_a_noun(text: str, end: int) -> bool:
    """Does a plain noun follow the word ending at character `end`, which then only modifies it ("an Italian
    place", "a dentist appointment"), wherever in the sentence it stands? "a nutritionist.", "a florist in town",
    "a dietitian called Ann" head their own."""
    tokens = _TOKEN.findall(text[end:])[:2]
    if not tokens:
        return False
    after = tokens[1].casefold() if len(tokens) > 1 else ""
    return _plain_word(tokens[0]) and not _verb_like(tokens[0].casefold(), after)


_MARKS = frozenset(",.;:!?()")
_TOKEN = re.compile(r"[\w'-]+|[,.;:!?()]")  # words, and the marks that end a phrase


@lru_cache(maxsize=4096)
def _phrase_heads(text: str) -> tuple[tuple[str, ...], tuple[int | None, ...]]:
    """A text's tokens and, for each, the noun it modifies (phrase_head); cached: rule 7 asks it of one clause
    once per near memory."""
    raw = _TOKEN.findall(text)
    return tuple(raw), tuple(phrase_head(raw, i) for i in range(len(raw)))


def said_as_things(text: str, kind_words: set[str] | frozenset[str] = frozenset()) -> set[str]:
    """The word stems of a text less those only modifying another thing ("my guitar strings need replacing" says
    nothing of the guitar); a modifier of a word of `kind_words` counts ("the Django backend was replaced")."""
    raw, heads = _phrase_heads(text)
    return _words(" ".join(word for word, head in zip(raw, heads)
                           if head is None or _slot_words(raw[head]) & kind_words))


def said_as_a_thing(text: str, end: int, own: set[str] | frozenset[str] = frozenset()) -> bool:
    """Is the word of `text` ending at character `end` said as a thing, not as a modifier of the noun after it
    ("a nutritionist." is someone; "an Italian place" is a place)? `own`: nouns after it that keep it ("phone
    number")."""
    spans = list(_TOKEN.finditer(text))
    last = max((k for k, m in enumerate(spans) if m.start() < end), default=None)
    return last is None or not modifies_a_noun([m.group(0) for m in spans], last, own)


def named_kinds(text: str) -> list[str]:
    """The single-valued slots whose well-known values a text names as things ("gave neovim a go" -> ["editor"]);
    a value said only as a modifier of another thing is none: "my coffee machine broke" names no drink, while "my
    Postgres database" still names a database."""
    return sorted(slot for slot, pattern in _value_patterns().items()
                  if any(said_as_a_thing(text, match.end(), _own_words(slot, SLOTS[slot].description))
                         for match in pattern.finditer(text)))


# How long and how old are no topic of a slot: "48k a year" is no age "in years".
_DURATION_WORDS = frozenset(_words("year years month months week weeks day days hour hours minute minutes old new"))


def _slot_words(text: str) -> set[str]:
    return {_SAME_THING.get(w, w) for w in _words(text) if not _NUMBER.search(w) and w not in _DURATION_WORDS}


# Words of a description's example list that name nothing ("by bus, train, bike, car or on foot").
_EXAMPLE_FILLER = frozenset("by or on and a an the of to in".split())
# What stands before a verb, not a noun: "I train", "to bike", "we'll ski".
_BEFORE_A_VERB = frozenset("i we you they i'll we'll i'd we'd to can could will would don't never also often".split())


# --- one sentence said again with another value --------------------------------------------------
# "User goes to bed around midnight." then "User goes to bed at 10:30.": the same words around one changed
# value. Said without any update word, this is still an update when the value is one a frame holds once: a
# time or an amount ("takes the 7:40 train", "runs 5k on Sundays"), or anything said of a definite thing
# ("Band practice is at ...", "User's Monday class is ..."). Not of the user in general: "User is scared of
# spiders" and "... of heights" are two fears. Past events accumulate ("visited Lisbon", "visited Porto").

_LEAD_WORDS = frozenset("at on in by with the a an around about to for from".split())
_COPULAS = frozenset("is are was were am be been being".split())
_HAVING = frozenset("has have had own owns got gets".split())
_NOT_PAST = frozenset("need needed red bed speed seed weed feed breed shed".split())  # end in "ed", are no verb
_PLACE_OR_TIME = frozenset("at on in every".split())
_CLOCK_WORDS = frozenset("am pm a.m p.m half past quarter to o'clock ish".split())
# A sentence that starts by naming a definite or owned thing ("The ...", "User's ...", "Maya's ..."), not with a
# contracted "it's", "let's". Used by resolve too (rule 8 leaves such a sentence to the topic rules).
NAMES_ITS_THING = re.compile(r"^(?!(?:it|that|there|here|what|who|he|she|let)'s\b)"
                             r"(?:user's|[a-z][\w-]*'s|their|his|her|our|my|the|this|that|these|those)\s+[\w-]",
                             re.IGNORECASE)


def _frame_words(text: str) -> list[str]:
    return [w.strip(".,!?;:'\"").casefold() for w in text.split() if w.strip(".,!?;:'\"")]


def _past_event(words: list[str]) -> bool:
    """Does the frame tell a past event? A past-tense verb not after a copula ("is called" is a state)."""
    for before, word in zip([""] + words, words):
        if before in _COPULAS or before in ("user's",):
            continue
        if word in PAST_TENSE or (word.endswith("ed") and len(word) > 4 and word not in _NOT_PAST):
            return True
    return False


# "The docs are hosted on GitBook." says what "User hosts the docs on GitBook." says: compared in the active voice,
# with the verb as its stem and one's own thing as "the" thing.
_PASSIVE = re.compile(r"^(?:the|their|our|my|user's)\s+(?P<thing>(?:[\w-]+\s+){0,2}?[\w-]+)\s+(?:is|are)\s+"
                      r"(?P<verb>[a-z]+(?:ed|en|un|pt))(?P<up>\s+up)?\s+(?P<rest>(?:to|on|in|with|by|at|via|through|using)\b.*)$",
                      re.IGNORECASE)
_OWN = frozenset("the their our my his her".split())


@lru_cache(maxsize=8192)
def _voiced(text: str) -> tuple[tuple[str, ...], bool]:
    """The sentence's words as compared, and whether it says the thing after its verb is the user's own ("their
    passwords", "The docs are hosted ...") rather than any ("the guitar"). Cached: an ingest compares the new
    sentence with each of the nearest memories, and those recur."""
    passive = _PASSIVE.match(text.strip())
    if passive:
        words = ["user", passive["verb"]] + (["up"] if passive["up"] else []) + ["the"] + _frame_words(
            passive["thing"]) + _frame_words(passive["rest"])
    else:
        words = _frame_words(text)
    if "user" in words[1:4] and all(w in _LEADING_TIME for w in words[:words.index("user")]):
        words = words[words.index("user"):]  # "This year User is doing taxes with ..." says it of now
    if len(words) > 3 and words[0] == "user" and words[1] in ("is", "are") and words[2].endswith("ing") \
            and words[2] != "going":
        words = ["user"] + words[2:]  # "User is writing the novel in ..." does what "User writes the novel in ..." does
    owned = bool(passive)
    if len(words) > 2 and words[0] == "user" and words[1] not in _COPULAS | _HAVING - {"gets"}:
        at = 3 if words[2] == "up" else 2
        owned = owned or words[at:at + 1] in (["their"], ["our"], ["my"], ["his"], ["her"])
        verb = (textlib.tokenize(words[1]) or [_DO.get(words[1], words[1])])[0]
        words = ["user", verb] + ["the" if w in _OWN else w for w in words[2:]]
    return tuple(words), owned


_DO = {"does": "do", "doing": "do", "did": "do", "done": "do"}  # stopwords, which have no stem of their own
_LEADING_TIME = frozenset("this these that year years days week month nowadays lately recently now currently so "
                          "anyway well ok okay yeah at the moment since then".split())


def restates(old_text: str, new_text: str) -> bool:
    """Is the new sentence the old one with its one value changed, of a kind a frame holds once?"""
    (old, old_owned), (new, new_owned) = _voiced(old_text), _voiced(new_text)
    old, new, own = list(old), list(new), old_owned or new_owned
    for one, other in ((old, new), (new, old)):
        # "does their taxes with" and "is doing taxes with": one's own thing, said once with "their"
        at = 3 if one[2:3] == ["up"] else 2
        if (one[:1] == ["user"] and one[at:at + 1] == ["the"] and other[at:at + 1] != ["the"]
                and one[:at] == other[:at] and len(one) > at + 2):
            del one[at]
    start = 0
    while start < min(len(old), len(new)) and old[start] == new[start]:
        start += 1
    end = 0
    while end < min(len(old), len(new)) - start and old[-1 - end] == new[-1 - end]:
        end += 1
    old_mid, new_mid = old[start:len(old) - end], new[start:len(new) - end]
    while old_mid and new_mid and old_mid[0] in _LEAD_WORDS and new_mid[0] in _LEAD_WORDS:
        old_mid, new_mid = old_mid[1:], new_mid[1:]  # "around midnight" / "at 10:30": the value is after them
    while old_mid and old_mid[0] in _LEAD_WORDS:
        old_mid = old_mid[1:]
    while new_mid and new_mid[0] in _LEAD_WORDS:
        new_mid = new_mid[1:]
    if not old_mid or not new_mid or len(old_mid) > 3 or len(new_mid) > 3:
        return False
    if (_COPULAS | _HAVING | {"and", "but", "or"}) & set(old_mid + new_mid):
        return False  # a second clause or a different subject changed, not one value
    frame = old[:start] + old[len(old) - end:]
    if not topic_words(" ".join(frame)) or _past_event(frame):
        return False  # told events accumulate
    said_of = old[:start]
    if (_own_thing_at(said_of, own) and _names_only(old_mid, old_text) and _names_only(new_mid, new_text)
            and not ADDS.search(new_text)):
        return True  # "User keeps the passwords in 1Password", "gets the lenses from ...": where one's own thing is
    if (_HAVING | {"going"}) & set(frame):
        return False  # things had and plans ("is going to Spain in July") accumulate
    if _only_a_time_or_amount(old_mid) and _only_a_time_or_amount(new_mid):
        return True
    if start >= 2 and NAMES_ITS_THING.match(" ".join(said_of)) and said_of[0] not in _DEMONSTRATIVES:
        # Not "That looks great" / "That looks peaceful" ("that" is a pronoun before a verb), nor "That picture is
        # so cute" / "That picture is awesome": a demonstrative points at what is at hand in its message, and the
        # next message's "that picture" is another one.
        return True
    # A bare name before "is" may be a person's ("John is lucky", "John is a fan"): only where a thing is
    # held ("Band practice is at ...", "Standup is on ...") is it said of a thing.
    return any(w in _COPULAS and after in _PLACE_OR_TIME for w, after in zip(said_of, said_of[1:]))


_DEMONSTRATIVES = frozenset("this that these those".split())
# "too" adds when it ends what it is said of ("I play piano too", "got a rabbit too now"); before a word it says how
# much ("too shady", "too expensive"), and adds nothing.
_TOO_ADDING = r"too(?=\s*(?:$|[^\w\s]|(?:now|lol|haha|tbh|though|then|these days|nowadays|lately|recently)\b))"
ADDS = re.compile(rf"\b(?:also|{_TOO_ADDING}|as well|sometimes|occasionally|another|other)\b", re.IGNORECASE)


def _own_thing_at(frame: list[str], own: bool) -> bool:
    """Does a frame end with the user doing something to their own thing, then where or with what:
    "user keep the passwords in", "user host the docs on"? (`own`: one of the two said it was theirs.)"""
    if not own or len(frame) < 3 or frame[0] != "user" or frame[-1] not in _LEAD_WORDS - {"the", "a", "an"}:
        return False
    thing = frame[2:-1]
    if thing[:1] == ["up"]:
        thing = thing[1:]
    if thing[:1] != ["the"]:
        thing = ["the"] + thing  # "is doing taxes with", against "does their taxes with"
    return 2 <= len(thing) <= 4 and thing[0] == "the" and not (_PREPOSITIONS & set(thing))


def _names_only(words: list[str], text: str) -> bool:
    names = {w.casefold() for w in _frame_words_cased(text)[1:] if _NAME.match(w)}
    return all(w in names or any(c.isdigit() for c in w) for w in words)


def _frame_words_cased(text: str) -> list[str]:
    return [w.strip(".,!?;:'\"") for w in text.split() if w.strip(".,!?;:'\"")]


def _only_a_time_or_amount(words: list[str]) -> bool:
    return all(_TIME.fullmatch(w) or _NUMBER.search(w) or _number_word(w, "") is not None or w in _CLOCK_WORDS
               for w in words)


# --- what a value is said of ---------------------------------------------------------------------
# "The dentist appointment is on the 5th." and "Dentist appointment: the 9th." give a value of one thing; "User's
# flight to Oslo ..." and "User's flight to Rome ..." of two (they differ in what qualifies them), as do "Our
# staging server ..." and "Our production server ...". A thing said with a value twice holds the later one.

_SAID_OF = re.compile(
    r"^(?:(?P<owner>User's|Their|Our|My|The|This|(?!(?:It|That|There|Here|What|Who|He|She|Let)'s)[A-Z][\w-]*'s)\s+)?"
    r"(?P<np>[\w'.-]+(?:\s+[\w'.-]+){0,4}?)"
    r"(?:\s*:|\s+[-–—](?=\s)|\s+(?:is|are|will be|has been|have been|happens|happen|runs|run|starts|start|ends|end|"
    r"takes place|falls|meets|meet)\b)")
_USERS = frozenset({None, "user's", "their", "our", "my", "the", "this"})
_IS_CONTRACTED = re.compile(r"^((?:the |our |my )?[\w-]+(?: [\w-]+)?)'s (?=(?:on|at|in|every|due|now|still|back|the|a|an|\d)\b)",
                            re.IGNORECASE)
# The prepositions that end the noun phrase a value is said of ("User's view of the sea", "the office in Leeds"); a
# set of its own, not _PREPOSITIONS above, which ends any phrase ("my name tag at the conference says ...").
_OF_PREPOSITIONS = frozenset("to for of at in on with from".split())


def said_of(text: str) -> tuple[str | None, str, frozenset[str]] | None:
    """(owner, head, qualifiers) of the thing a sentence gives a value of, or None when it is said of the
    user or of someone named ("User is with Vodafone", "John is lucky"). The owner is None for the user's."""
    text = _IS_CONTRACTED.sub(r"\1 is ", text.strip())  # "Wedding's on the 21st"
    m = _SAID_OF.match(text)
    if m is None:
        return None
    words = m["np"].split()
    labelled = text[m.end() - 1:m.end()] in ":-–—"  # "Vet: Dr. Owusu" labels a thing; "John: hi" is not said here
    if not m["owner"] and (words[0] in ("User", "It", "There", "That", "This", "He", "She", "They", "We", "I")
                           or (not labelled and all(w[:1].isupper() and w[1:].islower() for w in words))):
        return None  # the user, a pronoun or a name ("John", "Maya Silva") is who, not what
    owner = m["owner"].casefold() if m["owner"] else None
    owner = None if owner in _USERS else owner.removesuffix("'s")
    lowered = [w.casefold().removesuffix("'s") for w in words]
    cut = next((i for i, w in enumerate(lowered) if w in _OF_PREPOSITIONS and i > 0), len(lowered))
    head = textlib.tokenize(lowered[cut - 1])
    if not head:
        return None
    if cut >= 2 and head[0] in _SUPPLIER_HEADS and (before := textlib.tokenize(lowered[cut - 2])):
        cut, head = cut - 1, before  # "User's internet provider" / "User's internet": one thing
    qualifiers = frozenset(t for w in lowered[:cut - 1] + lowered[cut + 1:] for t in textlib.tokenize(w))
    if head == textlib.tokenize("name") and owner is not None and cut == 1:
        owner, head = None, textlib.tokenize(owner) or head  # "Landlord's name is ..." names the landlord
    return owner, _SAME_THING.get(head[0], head[0]), qualifiers


def other_things(old_text: str, new_text: str) -> bool:
    """Are two sentences said of two things of one owner, named by two head nouns ("User's phone bill" / "User's
    phone number", "User's car insurance" / "User's car")? A word they share qualifies one of them."""
    old, new = said_of(old_text), said_of(new_text)
    if old is None or new is None or old[0] != new[0] or old[1] == new[1]:
        return False
    if not (old[1].isalpha() and new[1].isalpha()):
        return False  # "The 1975 are User's fav band": said of a name, not of a thing
    return bool((old[2] | {old[1]}) & (new[2] | {new[1]}))


def same_thing(old_text: str, new_text: str) -> bool:
    """Do two sentences give a value of one thing: one owner, one head noun, and qualifiers that do not
    disagree (one may say more: "the flat's landlord" is "User's landlord")?"""
    old, new = said_of(old_text), said_of(new_text)
    if old is None or new is None or old[:2] != new[:2]:
        return False
    return not (old[2] and new[2]) or old[2] <= new[2] or new[2] <= old[2]


# --- a role held once, said in other words --------------------------------------------------------
# "User's barber is Luca." names a role the user has one of; "Dimitri cuts User's hair." or "User banks with
# Starling." fill a role too, in a verb. A later sentence that fills the same role with another value replaces the
# earlier one, whichever of the two is said as the role. Roles a person holds many of (friends, kids, pets, tools),
# a list ("User's favourite bands are Muse and Blur") or where a person is ("User's parents are in Spain") never;
# nor a verb frame that says more than the role (a garage rented from someone is not the home a landlord lets), a
# wish, a denial, a past event or one more thing ("too"). The caller also asks the two to be near in meaning: a
# verb frame that adds nothing ("User visits Portugal") would fill any role by its words alone.

# "New physio is Hanne" is the speaker's new one (not "New York is ...": the role is a plain word).
_OWNER = r"(?P<owner>User's|The|Our|Their|Project|(?:User's |The |Our )?[Nn]ew(?=\s+[a-z]))"
_TITLED = r"(?:Dr\.?\s+|Mr\.?\s+|Ms\.?\s+|Mrs\.?\s+)?[A-Z][\w.&+-]*"  # a name, maybe with a title: "Dr. Amadi"
_ROLE_COPULA = re.compile(rf"^{_OWNER}\s+(?P<np>(?:[\w'.-]+\s+){{0,3}}?[\w'.-]+)\s+(?:is|are)\s+(?P<value>.+?)\.?$")
_ROLE_INVERTED = re.compile(
    rf"^(?P<value>{_TITLED}(?:\s+[A-Z][\w.&+-]*){{0,3}})\s+(?:is|are)\s+"
    r"(?:(?P<owner>User's|the|our|their)\s+)(?P<np>(?:[\w'.-]+\s+){0,3}?[\w'.-]+?)(?:\s+now)?\.?$")
# "Marta took over as team lead", "Priya became our manager": someone taking a role is the role's new value.
_ROLE_TAKEN = re.compile(
    rf"^(?P<value>{_TITLED}(?:\s+[A-Z][\w.&+-]*){{0,2}})\s+"
    r"(?:took over as|stepped in as|became|has become|is now|was made|was named|got promoted to)\s+"
    r"(?:(?P<owner>User's|the|our|their)\s+)?(?P<np>(?:[\w'.-]+\s+){0,3}?[\w'.-]+?)(?:\s+(?:now|today|this \w+|last \w+))?\.?$")
# Roles people hold several of at once: a new one is one more.
_MANY_HELD = frozenset(_words(
    "friend colleague coworker co-worker neighbour neighbor cousin sibling sister brother child kid son daughter "
    "aunt uncle niece nephew grandchild client customer teammate student classmate pupil pet dog cat hobby interest "
    "language skill tool app allergy favourite favorite fear goal idea project plan habit thing one name"))
_FAVOURITE = frozenset({"favorit", "fav"})
_OWNER_WORDS = {"user's": "user", "the": "", "our": "user", "their": "user", "project": "project", "new": "user",
                "user's new": "user", "the new": "user", "our new": "user"}
# A sentence that wishes, plans, denies or adds: it fills no role in place of another.
# A capitalised word inside the sentence is part of a name, not the cue ("a hot desk at Second Home").
# "like" as a verb (a liking, "would like"), not as the comparison after "feel", "look", "sound", "seem" ("feels like a
# new man", "looks like a spaceship").
_LIKING = (r"likes|(?<!feel )(?<!feels )(?<!felt )(?<!feeling )(?<!look )(?<!looks )(?<!looked )(?<!looking )"
           r"(?<!sound )(?<!sounds )(?<!seem )(?<!seems )(?<!something )(?<!stuff )like")
_NOT_IN_PLACE = CuePattern(
    r"\b(?:wants?|wanted|wish(?:es)?|hopes?|plans?|planning|would|might|may|could|should|considering|thinking|"
    rf"dreams?|{_LIKING}|loves?|hates?|misses|prefers?|(?:not|never)(?! going back)|no|doesn't|isn't|{_TOO_ADDING}|also|"
    r"as well|another|other|"
    r"second|extra|sometimes|occasionally|once|used to|going to|will)\b")


def in_place(text: str) -> bool:
    """Does a sentence say what holds now, in place of something? Not a wish, plan, denial, an addition ("also",
    "another") nor a sometime thing."""
    return not _NOT_IN_PLACE.search(text)


# "User is insured with Aviva", "User is registered with Dr. Mensah", "User is with Lebara": a participle
# with/at/to fills a role too, and so does being with someone.
_VERB_FRAME_USER = re.compile(r"^User\s+(?:(?:usually|always|now|mostly|normally|still|currently|just)\s+)?"
                              r"(?:is\s+(?P<done>[a-z]+ed|(?=with\b))\s*(?=(?:with|at|to|by)\b)|(?P<verb>[a-z][\w-]*s)\b)"
                              r"(?P<rest>.*)$")
_VERB_FRAME_NAMED = re.compile(
    rf"^(?P<value>{_TITLED}(?:\s+[A-Z][\w.&+-]*){{0,2}})\s+"
    r"(?:(?:now|still|usually)\s+)?(?P<verb>[a-z][\w-]*s)\s+(?P<rest>User(?:'s)?\b.*)$")


# Where one works or studies, said after a role: no other thing the role is of ("User's manager at work", "User's
# tutor at uni"), unlike "User's flight to Oslo".
_WHERE_ONE_WORKS = re.compile(r"\s+at (?:the |my |their |User's )?(?:work|office|job|school|uni|university|college|"
                              r"the gym|gym)$")


@lru_cache(maxsize=8192)
def _role(text: str) -> tuple[str, str, frozenset[str]] | None:
    """(owner, head stem, stems of the role's words) of a sentence that names a role and its value."""
    text = text.strip()
    m = _ROLE_COPULA.match(text) or _ROLE_INVERTED.match(text) or _ROLE_TAKEN.match(text)
    if m is None:
        return None
    said = m["np"].split()
    owner = _OWNER_WORDS[m["owner"].casefold()] if m["owner"] else "user"
    owned = [i for i, w in enumerate(said[:-1]) if w.endswith(("'s", "s'"))]
    if owned:  # "User's son's teacher", "The kids' dentist": the last one named owns the role
        owner, said = said[owned[-1]].casefold().removesuffix("'s").rstrip("'"), said[owned[-1] + 1:]
    np_words = [w.casefold() for w in said]
    at = _WHERE_ONE_WORKS.search(" ".join(np_words))
    if at is not None:  # "User's manager at work": one role, said with where the user has it
        np_words = " ".join(np_words)[: at.start()].split()
        if not np_words:
            return None
    head = np_words[-1]
    stems = textlib.tokenize(head)
    if not stems:
        return None
    if head.endswith("s") and not head.endswith(("ss", "us", "is")) and (
            re.search(r",|\band\b|\bor\b", m["value"]) or {"favourite", "favorite"} & set(np_words)):
        return None  # "User's favourite bands are Muse and Blur": several; "User's video calls are on Zoom": one place
    if re.fullmatch(PEOPLE, head) and re.match(r"(?:in|at|on|from|with|to|into)\b", m["value"]):
        return None  # "User's parents are in Spain" says where they are: no role of the user's filled
    if set(stems) & _MANY_HELD or any(w in _OF_PREPOSITIONS for w in np_words):
        return None  # "User's flight to Oslo" is one of many flights
    return owner or "user", _SAME_THING.get(stems[0], stems[0]), frozenset(
        _SAME_THING.get(t, t) for w in np_words for t in textlib.tokenize(w))


@lru_cache(maxsize=8192)
def _fills_role(text: str, role: tuple[str, str, frozenset[str]]) -> bool:
    """Does a verb sentence about the role's owner fill that role, saying nothing the role does not?"""
    text = text.strip()
    if role[0] != "user" or _NOT_IN_PLACE.search(text) or role[2] & _FAVOURITE:
        return False  # a favourite is said as one: watching or drinking a thing is no new favourite
    m = _VERB_FRAME_USER.match(text) or _VERB_FRAME_NAMED.match(text)
    if m is None:
        return False
    verb = m["verb"] or m.groupdict().get("done") or "with"  # "User is with Lebara": a provider's customer
    if m["verb"] and (verb in ("is", "has", "was", "goes") or verb.endswith("ed") or verb in PAST_TENSE):
        return False
    value = _value_tokens(text) | (frozenset(textlib.tokenize(m["value"])) if "value" in m.groupdict() and m["value"]
                                   else frozenset())
    verb = set(textlib.tokenize(verb))
    said = {_SAME_THING.get(w, w) for w in topic_words(text)} - value - verb - {"user"}
    return said <= role[2]


@lru_cache(maxsize=8192)
def _role_values(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The kinds and tokens of a sentence's values, the first words too when they are the value ("Marta is
    User's team lead.", "Dimitri cuts User's hair.")."""
    text = text.strip()
    front = _ROLE_INVERTED.match(text) or _ROLE_TAKEN.match(text) or _VERB_FRAME_NAMED.match(text)
    if front:
        return (frozenset(value_kinds(front["value"]) | value_kinds(text, sentence=True)),
                _value_tokens(front["value"], sentence=False) | _value_tokens(text))
    return frozenset(value_kinds(text, sentence=True)), _value_tokens(text)


# Where a chat sentence's parts meet: "sarah left the company, ravi is our lead now".
_PARTS = re.compile(r"\s*(?:[,;:]|\s[-\u2013\u2014])\s*|\s+(?:so|but|and)\s+(?=\S+\s+(?:is|are)\b)")


def _parts(text: str) -> list[str]:
    """A sentence, then each of its parts said as a sentence of its own."""
    parts = [p.strip(" .!") for p in _PARTS.split(text.strip())]
    if len(parts) < 2:
        return [text]
    return [text] + [p[:1].upper() + p[1:] + "." for p in parts if len(p.split()) >= 3]


def holds_one(text: str) -> bool:
    """Does a sentence name the one holder of a role of the user's ("User's GP surgery is Parkside Medical.",
    "Dr. Amadi is User's GP.")? A role held once, whatever slot a guess filed the sentence under; not a role held
    several times over ("User's friend is Sam"), nor a plural ("User's favourite bands are ...")."""
    role = _role(text)
    return role is not None and role[0] == "user" and "name" in _role_values(text)[0]


def renames_role(old_text: str, new_text: str) -> bool:
    """Do both sentences name one role in words ("User's manager is Helen.", "User's boss is Marcus now.") and give
    it different values? Unlike a verb that fills a role, the frame leaves no doubt which role is meant. The new
    sentence may name it in one of its parts ("Sarah left the company, ravi is User's lead now.")."""
    role = _role(old_text)
    if role is None:
        return False
    return any((_role(part) is not None or _does_the_role(part, role[1])) and fills_same_role(old_text, part)
               for part in _parts(new_text))


def _does_the_role(text: str, head: str) -> bool:
    """Does a sentence open with who now does what the role's holder does ("Fatima manages User now" of a
    "manager", "Rob trains User" of a "trainer", "Ray coaches User's team" of a "coach")? The doing names the role
    as surely as its name."""
    m = _VERB_FRAME_NAMED.match(text.strip())
    if m is None:
        return False
    verb = textlib.term(m["verb"])
    agent = _AGENT_NOUN.fullmatch(head)
    if agent is None:
        return verb == textlib.term(head)
    root, double = agent.groups()
    return verb in (textlib.term(root + double), textlib.term(root))


def fills_same_role(old_text: str, new_text: str) -> bool:
    """Do two sentences give different values of one role the owner holds once ("User's bank is Monzo." and
    "User banks with Starling.", "Dr. Amadi is User's GP." and "User's GP is Dr. Lund.")? Values of one kind."""
    (old_kinds, old_values), (new_kinds, new_values) = _role_values(old_text), _role_values(new_text)
    if not old_kinds & new_kinds or not new_values or new_values <= old_values:
        return False
    old_role, new_role = _role(old_text), _role(new_text)
    if old_role and new_role:  # qualifiers may add to each other, not disagree: "staging" / "production"
        return old_role[:2] == new_role[:2] and (old_role[2] <= new_role[2] or new_role[2] <= old_role[2])
    if old_role:
        return _fills_role(new_text, old_role)
    if new_role:
        return _fills_role(old_text, new_role)
    return False


# An amount in a unit of measure says what is measured: "down to 74kg after the diet", said with no thing of its
# own, is the speaker's weight again when a memory holds one in kilos. Money, "k" and "%" stay out: a salary, a
# run and a savings rate share them.
_UNIT_OF = {
    "kg": "kg", "kgs": "kg", "kilo": "kg", "kilos": "kg", "lb": "lb", "lbs": "lb", "stone": "st", "km": "km",
    "kms": "km", "mi": "mi", "mile": "mi", "miles": "mi", "cm": "cm", "mm": "mm", "ft": "ft", "feet": "ft",
    "inch": "in", "inches": "in", "mph": "mph", "kph": "kph", "bpm": "bpm", "kwh": "kwh", "gb": "gb", "tb": "tb",
    "mb": "mb", "ml": "ml", "mg": "mg", "litre": "l", "litres": "l", "liter": "l", "liters": "l",
}
_MEASURED = re.compile(r"(\d[\d.,]*)\s?(" + "|".join(sorted(_UNIT_OF, key=len, reverse=True)) + r")\b", re.IGNORECASE)
# What may stand before such an amount when the sentence names no thing it measures.
# Someone else changing the user's amount: "the doctor put me up to 30mg", "they bumped it to 1200".
_SOMEONE_CHANGED = re.compile(r"^\s*(?:the\s+|my\s+)?(?:[\w']+\s+){0,2}?(?:put|moved|upped|bumped|took|dropped|raised|"
                              r"lowered|increased|reduced|cut|changed)\s+(?:me|us|it|them)\s+", re.IGNORECASE)
_BARE_LEAD = frozenset("i i'm im am is user user's now finally only just down up back to at under over below above "
                       "almost nearly already officially about around roughly".split())


def _measures(text: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for match in _MEASURED.finditer(text):
        found.setdefault(_UNIT_OF[match.group(2).casefold()], set()).add(match.group(1).rstrip(".,"))
    return found


def measured_again(old_text: str, new_clause: str) -> bool:
    """Is a new clause only another amount in a unit the old memory measures something in ("down to 74kg after the
    diet" after "User weighs 80kg")? The clause may name nothing before the amount but who and the change."""
    match = _MEASURED.search(new_clause)
    lead = _SOMEONE_CHANGED.sub("", new_clause[:match.start()]) if match else ""
    if match is None or not {w.casefold() for w in re.findall(r"[\w']+", lead)} <= _BARE_LEAD:
        return False
    unit, amount = _UNIT_OF[match.group(2).casefold()], match.group(1).rstrip(".,")
    old = _measures(old_text)
    return unit in old and amount not in old[unit]


# A meal is when a habit happens, not what it holds: "quinoa with lunch" is no new "dinner". (Times, people and
# amounts never pair: kinds.PAIR_LEXICOGRAPHER_FILES.)
MEALS = frozenset("breakfast breakfasts lunch lunches dinner dinners supper suppers brunch brunches".split())
# After the subject comes the verb: "User drinks ...", "User grows ..." ("drinks" is no beverage here).
_VERB_AFTER_SUBJECT = re.compile(r"^(?:User|[A-Z][\w-]*)\s+(?:\w+ly\s+)?(\w+)")


@lru_cache(maxsize=8192)
def _things_said(text: str) -> dict[str, str]:
    """The lower-case words of a memory sentence that may name a thing it holds, by their stem: not a name, a word in
    a verb's place, a word ending "-ing" or "-ed", nor a meal. Cached (ingest reads the same nearest memories message
    after message): read it, never change it."""
    from ..kinds import common_words  # kinds reads no file at import; the import is here to keep compete's light

    verb = _VERB_AFTER_SUBJECT.match(text.strip())
    skip = {verb.group(1).casefold()} if verb else set()
    said = set(_THING_WORD.findall(text)) - set(_VERB_WORD.findall(text))
    return {textlib.term(word): word for word in common_words(text)
            if word in said and word not in skip and not word.endswith(("ing", "ed")) and word not in MEALS}


# A lower-case word (a capitalised one is a name, wherever it stands), and one in a verb's place: after a modal or a
# pronoun ("gonna show their paintings", "can push", "they run"; not after "to": "switched to tea").
_THING_WORD = re.compile(r"(?<![\w'-])([a-z]+)(?![\w'-])")
_VERB_WORD = re.compile(r"\b(?:gonna|wanna|gotta|can|could|will|would|should|must|might|may|let's|i|we|you|they|he|"
                        r"she|don't|doesn't|didn't)\s+([a-z]+)\b", re.IGNORECASE)


def things_said(text: str) -> list[str]:
    """The lower-case words of a memory sentence that may name a thing it holds (see _things_said)."""
    return list(_things_said(text).values())


def another_of_its_kind(old_text: str, new_text: str,
                        kind_shared: Callable[[str, str], str | None]) -> tuple[str, str, str] | None:
    """(old word, new word, kind) when a new memory sentence names another thing of a kind the old one names one of
    ("User has rooibos now" after "User drinks coffee every morning": tea and coffee are beverages), each word said
    only by its own sentence; None otherwise. `kind_shared(a, b)` is kinds.Kinds.kind_shared."""
    old, new = _things_said(old_text), _things_said(new_text)
    for old_term, old_word in old.items():
        if old_term in new:
            continue
        for new_term, new_word in new.items():
            if new_term in old:
                continue
            kind = kind_shared(old_word, new_word)
            if kind is not None:
                return old_word, new_word, kind
    return None


def swap_thing(text: str, old_word: str, new_word: str) -> str | None:
    """A memory sentence with the thing it names (`old_word`) replaced by another of its kind ("This year User is
    growing tomatoes on the balcony." -> "... growing lettuce ..."); None when the word only modifies another
    thing ("peanut butter": avocado is no kind of butter) or is not in the sentence."""
    match = re.search(rf"\b{re.escape(old_word)}\b", text, re.IGNORECASE)
    if match is None or not said_as_a_thing(text, match.end()):
        return None
    after = _TOKEN.findall(text[match.end():])[:2]
    if after and after[0].casefold() not in _ENDS_A_THING and followed_by_a_noun(text, match.end()):
        return None
    return text[:match.start()] + new_word + text[match.end():]


# Words that end the phrase of the thing before them: where, when or how often it is had.
_ENDS_A_THING = frozenset("at on in by with to for from of about into onto near under over behind after before during "
                          "every each since until till up down out off around through".split())


def qualified_apart(old_text: str, new_text: str, words: set[str] | frozenset[str],
                    changed: tuple[str, str] = ("", "")) -> bool:
    """Do two sentences say a word they share (stems, `words`) of two things, each with its own qualifier before it
    ("User grows potatoes in the back garden." / "... carrots in the front garden now")? One qualifier alone is one
    thing said more closely ("toast" / "morning toast"); the (old, new) words `changed` are the change itself ("a
    pine wardrobe" / "an oak wardrobe now")."""
    def qualifiers(text: str) -> dict[str, str]:
        raw = _TOKEN.findall(text)
        found: dict[str, str] = {}
        for before, word in zip(raw, raw[1:]):
            stems = textlib.tokenize(word)
            if len(stems) == 1 and stems[0] in words and before.isalpha() and before.islower() \
                    and before not in textlib.STOPWORDS and before not in _PHRASE_BREAK and before not in _PREPOSITIONS:
                found.setdefault(stems[0], before)
        return found

    old, new = qualifiers(old_text), qualifiers(new_text)
    return any(old[w] != new[w] and (old[w], new[w]) != changed for w in old.keys() & new.keys())


# An end said of a whole kind of thing: "gave up soft drinks", "no more spirits", "stopped eating fish", "been off
# card games", "cut out junk food", "don't play any instruments anymore", "dairy-free now". The kind is the phrase
# after the words that end it, up to where it says when, how much or why.
_DOING = r"(?:eating|drinking|buying|having|playing|taking|smoking|using|doing|getting|ordering|touching|reading)"
_ENDS_A_KIND = re.compile(
    r"\b(?:gave up|give up|giving up|given up|quit|quitting|stopped|cut out|cutting out|no more|swore off|sworn off|"
    r"done with|through with|"
    r"(?:don'?t|do not|never|won'?t) touch|(?:been|i'm|im|i am|now|totally|completely|fully)\s+off|"
    # "off" opening the clause is an end only said of these days ("off card games these days"), not a place ("Off
    # the court.")
    r"^off(?=.*\b(?:these days|nowadays|now|lately|for good|since|any\s?more)\b))\s+"
    rf"(?:{_DOING}\s+)?(?P<kind>[a-z][a-z'-]*(?:\s+[a-z][a-z'-]*){{0,2}})"
    r"|\b(?:don'?t|do not|no longer|never)\s+(?:eat|drink|buy|have|play|take|smoke|use|do|get|order|read)\s+"
    r"(?:any\s+)?"
    r"(?P<kind_not>[a-z][a-z'-]*(?:\s+[a-z][a-z'-]*){0,2}?)\s+(?:any\s?more|now)\b"
    # "dairy-free now" says it of the speaker; "dairy-free dessert recipes" of the recipes
    r"|\b(?P<kind_free>[a-z]+)-free\b(?=\s*(?:$|[,.;:!?)]|(?:now|these days|nowadays|lately|since|for)\b))",
    re.IGNORECASE)
# Words that end the kind's phrase: when, how much, why, or the next clause ("any more", "as well", "for good" end it
# at their first word).
_AFTER_THE_KIND = frozenset("now anymore any these those days since altogether entirely completely for in at on so "
                            "because and but after this last lol tbh totally whole too as from of with until till "
                            "ever again today tonight tomorrow yesterday".split())
_BEFORE_THE_KIND = frozenset("any all the my our those these of".split())
# Ending it is only wished or planned: "I should really cut out meat".
_ONLY_WISHED = re.compile(r"\b(?:should|would|could|might|must|want(?:s|ed)?\s+to|wish|hope|hoping|"
                          r"plan(?:s|ning)?\s+to|"
                          r"thinking (?:of|about)|considering|going to|gonna|will|'ll|need(?:s)? to|trying to|try to)\b"
                          r"(?:\s+\w+){0,3}\s*$", re.IGNORECASE)


# The same end in other words. Each pattern's group "kind" is the kind's phrase; the ones where the kind comes first
# ("sugar is off the menu") may start it at a filler word, which is dropped ("honestly sugar" is sugar).
_KIND = r"(?P<kind>[a-z][a-z'-]*(?:\s+[a-z][a-z'-]*){0,2})"
_KIND_FIRST = r"(?P<kind>[a-z][a-z'-]*(?:\s+[a-z][a-z'-]*){0,2}?)"
# A clause that says when the end began or that it holds: an avoidance said with none ("avoiding sugar at the
# party") is no end of a habit.
_HOLDS_NOW = r"(?=.*\b(?:now|these days|nowadays|since|any\s?more|for good|completely|entirely|altogether|totally)\b)"
_ENDS_A_KIND_IN_OTHER_WORDS = tuple(re.compile(pattern, re.IGNORECASE) for pattern in (
    # the verb before the kind: "ditched energy drinks", "said goodbye to dairy", "weaned myself off caffeine"
    # ("dropped my phone" fell, "dropped out of uni" left: dropped ends a kind said bare)
    r"\b(?:ditched|ditching|(?:dropped|dropping)(?!\s+(?:my|our|his|her|their|me|him|them|us|out|off|by|in)\b)|"
    r"binned|binning|packed in|kicked|deleted|uninstalled|"
    r"unsubscribed from|(?:said|say|saying|waved|bid|bade) (?:goodbye|bye|farewell) to|"
    r"stepped away from|walked away from|wean(?:ed|ing)? (?:myself |ourselves )?off|"
    r"(?:finished|done|over) with|(?:doctor|gp|dentist|wife|husband|partner) (?:has )?banned|banned)\s+"
    # a kind is said bare ("deleted social media"); "deleted the photos" and "binned my old kettle" are some things
    rf"(?:{_DOING}\s+)?(?!(?:the|my|our|his|her|their|this|that|these|those|a|an|some)\b){_KIND}",
    # an avoidance said to hold now: "steering clear of gluten these days"
    rf"\b(?:avoid|avoiding|steer clear of|steering clear of|staying away from|keeping away from|stay away from)\s+"
    rf"(?:{_DOING}\s+)?{_KIND}{_HOLDS_NOW}",
    # the kind between the verb and its particle: "put the cigarettes aside", "knocked the booze on the head",
    # "kicked the vaping habit", "packed the fags in", "cut sugar out"
    rf"\b(?:put|putting|kicked|kicking|knocked|knocking|packed|packing|gave|giving|given|cut|cutting)\s+"
    rf"{_KIND}\s+(?:aside|on the head|habit|in for good|up for good|out (?:completely|entirely|altogether|now))\b",
    # can't any more: "my stomach can't handle spicy food anymore", "can't afford takeaways these days"
    r"\b(?:can'?t|cannot|can not|no longer able to)\s+(?:eat|drink|have|handle|stomach|tolerate|take|do|afford|"
    rf"touch|play|use)\s+(?:any\s+)?{_KIND}\s+(?:any\s?more|now|these days|nowadays)\b",
    # not since: "haven't touched alcohol since new year", "not had caffeine in weeks"
    r"\b(?:haven'?t|have not|hasn'?t|not)\s+(?:touched|had|eaten|drunk|bought|played|smoked|used|been near)\s+"
    rf"(?:any\s+)?{_KIND}\s+(?:since|in|for)\b",
    # an allergy found out ends what it forbids: "turns out im allergic to shellfish so thats over"
    r"\b(?:turns out|turned out|found out|find out|discovered|diagnosed|apparently|just learned|developed)\b.*?"
    rf"\b(?:allergic|intolerant)\s+(?:to|of)\s+{_KIND}",
))
_KIND_FIRST_PATTERNS = tuple(re.compile(pattern, re.IGNORECASE) for pattern in (
    # the kind first: "fizzy drinks are off the menu", "booze and me are done", "takeaways are a thing of the past"
    rf"\b{_KIND_FIRST}\s+(?:is|are|'s|'re|has been|have been)\s+(?:officially\s+|totally\s+|completely\s+)?"
    r"(?:off the menu|a thing of the past|history|dead to me|over for me|out for me|banned)\b",
    rf"\b{_KIND_FIRST}\s+and\s+(?:me|i)\s+(?:are|r)\s+(?:done|over|finished|through)\b",
    # "no caffeine for me these days"; not one order ("no ice for me thanks")
    rf"\bno\s+{_KIND}\s+for\s+(?:me|us)\b{_HOLDS_NOW}",
))
# Words before the kind of the patterns where it comes first that are no part of it.
_FILLERS = frozenset("honestly basically officially so and but now lol ok okay well also totally completely literally "
                     "yeah sadly tbh think guess right anyway anyways plus then".split())


def ended_kinds(clause: str) -> list[str]:
    """The kinds of thing a clause says the speaker has ended ("gave up soft drinks, its just water now" ->
    ["soft drinks"], "fizzy drinks are off the menu" -> ["fizzy drinks"]); none when the end is only wished for ("i
    should really cut out meat")."""
    found = []
    matches = [(m, m["kind"] or m["kind_not"] or m["kind_free"], False) for m in _ENDS_A_KIND.finditer(clause)]
    matches += [(m, m["kind"], False) for pattern in _ENDS_A_KIND_IN_OTHER_WORDS for m in pattern.finditer(clause)]
    matches += [(m, m["kind"], True) for pattern in _KIND_FIRST_PATTERNS for m in pattern.finditer(clause)]
    for match, phrase, kind_first in matches:
        if _ONLY_WISHED.search(clause[:match.start()]):
            continue
        words = phrase.casefold().split()
        if kind_first:
            # the phrase may start words before the kind: "lactose intolerant so dairy" is dairy
            bounds = [i for i, w in enumerate(words) if w in _AFTER_THE_KIND or w in _FILLERS or w in textlib.STOPWORDS]
            words = words[bounds[-1] + 1:] if bounds else words
        while words and (words[0] in _BEFORE_THE_KIND or words[0] in _FILLERS):
            words = words[1:]
        cut = next((i for i, w in enumerate(words) if w in _AFTER_THE_KIND), len(words))
        words = words[:cut]
        if words and not any(w.endswith("ing") or w in textlib.STOPWORDS for w in words):
            found.append(" ".join(words))
    return list(dict.fromkeys(found))
