"""Names given their capitals back in a message typed all in lower case.

Why: the rules read a value as a number or a capitalised word, and chat typed without capitals ("callum from up the
road walks bobby now", "my cousin ilya fixs my car these days", "im registered with dr oyelaran now") says the new
holder of a role in words no rule sees as a name. In a message with no capital letter at all, a word is given its
capital when:
- it follows "called" or "named" ("a guy called emre"; after a title, "dr oyelaran", extractor._titled_names does it);
- English does not know it (engine/lexicon.py: not a word or an inflection of one), and it is no chat shorthand
  ("tbh", "ngl") and no slip of the keys of a word it knows ("finaly", "lovley": one letter left out, doubled or
  swapped, in a word of six letters or more: shorter names are too often one letter from a word, "sam" and "swam");
- English knows it only as a name ("leeds", "norway").
A message a third of whose words or more (three or more) English does not know is in another language, and one with
more than 50 different such words a paste or noise: either is left as it is (and costs no search for slips). A sentence's first word is capitalised whatever it is: `opens_with_name` tells, by the same lexicon, when
it is a name ("Callum walks Bobby now"), so conflict resolution may read it as the value the sentence holds.
"""
from __future__ import annotations

import re
import string

from ..lexicon import Lexicon
from ..text import STOPWORDS

# Chat shorthand and words of chat that WordNet does not list: no names.
SHORTHAND = frozenset("""
    lol lmao lmfao rofl tbh ngl fyi btw idk idc imo imho rn atm pls plz thx tx ty tysm np omg omfg smh irl bc cos coz
    cuz tho thru ur u r ya yep yup nah nope gonna wanna gotta kinda sorta dunno innit haha hahaha hehe hmm hm mhm ugh
    uh um ah oh aw aww yay xx xoxo ok okay kk fav fave uni hols arvo convo pic pics vid vids app apps msg txt ppl bday
    xmas tmrw tmr tonite nite wknd gf bf bff hubby wifey missus bestie kiddo kiddos bro bros sis fam mil fil sil bil
    physio reno info sesh tbf
    ive im id dont cant wont isnt wasnt didnt doesnt havent hasnt hadnt shouldnt wouldnt couldnt arent werent thats
    whats theyre youre were hes shes its lets ill
""".split())
# Function words WordNet leaves out, as it lists only nouns, verbs, adjectives and adverbs.
FUNCTION_WORDS = frozenset("""
    everything anything something nothing everyone anyone someone noone everybody anybody somebody nobody
    whenever whatever wherever however whoever whichever ourselves yourself yourselves themselves himself herself
    itself myself because since until till unless although though whether while whilst without within upon onto
    towards toward across along amongst among beside besides despite during except per via versus
""".split())
_TITLES = frozenset({"dr", "mr", "mrs", "ms", "miss", "prof"})
_NAMING = frozenset({"called", "named"})
_WORD = re.compile(r"(?<![\w.@/#'-])[a-z][a-z'-]*[a-z](?![\w@/-]|\.\w)|(?<![\w.@/#'-])[a-z](?![\w.@/'-])")
_TYPO_LENGTH = 6
_LONGEST_NAME = 24
_MOST_NAMES = 50


def names_capitalised(message: str, lexicon: Lexicon) -> str:
    """The message with the names in it capitalised, when it has no capital letter at all (see the module)."""
    if any(c.isupper() for c in message):
        return message
    words = list(_WORD.finditer(message))
    unknown = [m for m in words if _unknown(m.group(0), lexicon, slips=False)]
    if len(unknown) >= 3 and len(unknown) * 3 >= len(words):
        return message  # another language: told before looking for slips of the keys, which costs
    distinct = {m.group(0) for m in unknown}
    if len(distinct) > _MOST_NAMES:
        return message  # no chat message names so many: a list, a paste or noise, left as typed
    slipped = {word for word in distinct if not _unknown(word, lexicon)}
    unknown = [m for m in unknown if m.group(0) not in slipped]
    capitalise: set[int] = {m.start() for m in unknown}
    for before, m in zip([None] + words, words):
        word = m.group(0)
        if before is not None and before.group(0) in _NAMING and word not in STOPWORDS:
            capitalise.add(m.start())
        elif len(word) >= 3 and not _common(word) and lexicon.is_name(word):
            capitalise.add(m.start())
    if not capitalise:
        return message
    out = list(message)
    for at in capitalise:
        out[at] = out[at].upper()
    return "".join(out)


def _common(word: str) -> bool:
    # "me" is also Maine, "us" the US: a word of chat is none of those
    return word in STOPWORDS or word in SHORTHAND or word in FUNCTION_WORDS or word in _TITLES


def _unknown(word: str, lexicon: Lexicon, *, slips: bool = True) -> bool:
    """Is a word one English does not know: no word, shorthand, slip of the keys (with `slips`) or part of a
    hyphened word of known parts ("sweets-free")?"""
    plain = word.split("'")[0]
    if len(plain) < 2 or len(plain) > _LONGEST_NAME or _common(plain) or word in STOPWORDS:
        return False  # a run of letters longer than any name is no name (and not worth a slip of the keys' search)
    if "-" in plain:
        return False  # "5-a-side", "sweets-free": a compound of words, or of a name and words; left as said
    if re.search(r"(.)\1\1", plain):
        plain = re.sub(r"(.)\1{2,}", r"\1", plain)  # "sooo", "noooo"
        if plain in STOPWORDS or plain in SHORTHAND:
            return False
    if lexicon.is_word(plain):
        return False
    return not (slips and len(plain) >= _TYPO_LENGTH
                and any(lexicon.is_word(w, compounds=False) for w in _one_slip(plain)))


def _one_slip(word: str) -> set[str]:
    """The words one slip of the keys away: a letter left out or doubled, two letters swapped."""
    left_out = {word[:i] + c + word[i:] for i in range(len(word) + 1) for c in string.ascii_lowercase}
    extra = {word[:i] + word[i + 1:] for i in range(len(word))}
    swapped = {word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(len(word) - 1)}
    return left_out | extra | swapped


def opens_with_name(sentence: str, lexicon: Lexicon) -> bool:
    """Does a sentence open with a name: a capitalised word English does not know, or knows only as a name
    ("Callum walks Bobby now", not "Salary goes into Starling now" nor "User ...")?"""
    words = sentence.split()
    first = words[0].strip(".,;:!?\"").split("'")[0] if words else ""
    if not first[:1].isupper() or not first.isalpha():
        return False
    plain = first.casefold()
    return not _common(plain) and plain != "user" and (not lexicon.is_word(plain) or lexicon.is_name(plain))
