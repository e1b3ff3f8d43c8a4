"""How a memory sentence is voiced: first person rewritten to third person, sentences finished, names.

"I use Arch Linux" is stored as "User uses Arch Linux."; with a named speaker, "Maya uses Arch Linux.".
"""
from __future__ import annotations

import re

from .. import text as textlib
from .vocabulary import JOB_NOUNS


_MODALS = {"can", "could", "will", "would", "should", "must", "might", "may", "shall", "did", "was", "had",
           "used", "cannot", "can't", "won't", "wouldn't", "couldn't", "shouldn't", "didn't", "wasn't"}
PAST_TENSE = frozenset("""
forgot got went had made took came saw knew thought told found gave left felt became began bought brought built
caught chose drove ate fell flew grew heard held kept lost met paid ran read said sent sold spent stood taught
wrote won woke wore broke spoke sang swam quit set put cut hit let shut hurt cost lent meant slept sat misread
""".split())
_IRREGULAR = {"have": "has", "do": "does", "go": "goes", "be": "is", "am": "is", "'m": "is", "don't": "doesn't",
              "dont": "doesn't",
              "haven't": "hasn't", "are": "is", "were": "was", "'ve": "has", "'d": "would", "'ll": "will", "'re": "is",
              "aren't": "isn't"}
_ALREADY_THIRD = frozenset({"has", "does", "goes", "is", "was", "hasn't", "doesn't", "isn't", "wasn't"})
# Verbs that end in "-ed" and are not past forms: "I feed it every Sunday" is "User feeds it …".
_PRESENT_IN_ED = frozenset("feed need breed bleed speed heed proceed succeed exceed seed weed".split())
ADVERBS = {"really", "also", "just", "still", "usually", "often", "always", "never", "now", "currently",
            "mostly", "recently", "definitely", "absolutely", "actually", "only", "sometimes", "already",
            "finally", "totally", "truly", "generally", "mainly", "primarily", "normally", "basically", "kinda",
            "rarely", "seriously", "honestly", "probably", "even", "newly", "no", "longer", "not", "kind", "of",
            "sort", "pretty", "slowly", "happily", "officially", "again"}


def third_person_verb(verb: str) -> str:
    """"suggest" -> "suggests"; modals, past forms and "-ed" words as they are."""
    low = verb.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if low in _ALREADY_THIRD:
        return verb  # "i has two brothers", said in a second language: "has", not "hases"
    if low in _MODALS or low in PAST_TENSE or (low.endswith("ed") and low not in _PRESENT_IN_ED) or not low.isalpha():
        return verb
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if low.endswith("y") and len(low) > 2 and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


# What a past-tense verb that opens a subjectless chat clause acts on: "Sold the van", "bought myself a
# kindle", "switched over to oat milk". "Excited about the trip" and "Based in Oslo" take none of these, so
# they are describing words, not something the user did, and are left as said.
# "to"/"into"/"from" follow only a verb of moving or changing ("Moved to Leeds"), not "Bored to death".
_DROPPED_SUBJECT = re.compile(
    r"^(?:(?:just|finally|recently|already|officially|also|actually)\s+)?"
    r"(?:(?:[a-z]{3,}ed|" + "|".join(sorted(PAST_TENSE)) + r")\s+(?:(?:over|back|up|out|off|down|away)\s+)?"
    r"(?=(?:the|a|an|my|our|myself|ourselves|it|them|some|all|everything|both|most|two|three|four|five|six|"
    r"\d+)\b)|"
    r"(?:moved|switched|changed|upgraded|downgraded|migrated|transferred|relocated|returned|went|got|ported)\s+"
    r"(?:(?:over|back|up|out|off|down|away)\s+)?(?=(?:to|into|from)\b))",
    re.IGNORECASE,
)


# An irregular past form opening a clause is something the speaker did, whatever follows it ("Went fully vegan in
# January", "Gave neovim a proper go"); not the forms that are also present tense or describe ("Broke again",
# "Hurt like hell", "Read it twice").
_DONE = re.compile(r"^(?:(?:just|finally|recently|already|officially|also|actually)\s+)?(?:"
                   + "|".join(sorted(PAST_TENSE - {"broke", "set", "cut", "put", "let", "shut", "hurt", "cost", "read",
                                                   "misread", "meant", "hit", "quit"})) + r")\s+\w", re.IGNORECASE)


# A verb of starting, stopping or changing opening a chat clause is something the speaker did, whatever follows it
# ("started padel on thursdays", "upgraded notion to the plus plan", "ditched duolingo"); none of them is a
# describing word the way "excited" or "based" is. "Registered" only with what one registers with ("Registered
# nurse at St Mary's" is a job).
_CHANGED = re.compile(r"^(?:(?:just|finally|recently|already|officially|also|actually)\s+)?(?:"
                      r"started|quit|stopped|joined|tried|finished|upgraded|downgraded|ditched|dropped|cancell?ed|"
                      r"swapped|traded|switched|enrolled|adopted|booked|renewed|replaced|graduated|retired|"
                      r"relocated|emigrated|resigned|opened|closed|bumped|"
                      r"(?:signed|picked|took|gave|handed)\s+(?:up|in|on)|registered\s+(?:with|for|at|as))\s+\w",
                      re.IGNORECASE)


# A plan or a present state said without "I'm" before its verb: "Moving to Madrid in June", "starting at KPMG on
# monday", "living in Porto these days". Only with where or what it goes to, and never as the subject of a
# sentence of its own ("Living in London is expensive").
_DOING = re.compile(
    r"^(?:(?:just|finally|currently|still|also|now|officially)\s+)?(?:moving|starting|heading|flying|going|leaving|"
    r"travell?ing|relocating|switching|changing|joining|visiting|quitting|retiring|working|living|staying|studying|"
    r"training|learning|reading|watching|playing|building|writing|taking|doing)\s+(?:to|at|in|into|on|for|from|with|as|"
    r"a|an|the|my|our|back|home|abroad|out)\b(?!.*\b(?:is|are|was|were|has|have|had|helps|makes|sounds|seems|feels|"
    r"looks|gets|keeps|gives|means|can|could|will|would|should|must|might)\b)", re.IGNORECASE)


# News said without a verb: "new job at Canva", "a new flat in Sydney" is what the speaker got.
_NEWS = re.compile(r"^(?:a\s+)?(?:brand\s+)?new\s+[a-z]+\s+(?:at|in|with|on)\s+\S", re.IGNORECASE)


# A job title said alone with when it took effect: "mid-level engineer as of this month", "team lead since March".
_TITLE_SINCE = re.compile(r"^(?:an?\s+)?(?P<title>(?:[\w-]+\s+){0,3}?[\w-]+)\s+(?=(?:as of|since|from|starting|"
                          r"effective)\s+\w)", re.IGNORECASE)


# A state or habit said without its "I" in the present: "Live in Porto now", "Work as a nurse", "Have two kids",
# "Drive a Tesla", "Love sushi", "Seeing someone called Leo now". Only verbs a speaker says of their own life
# (not "take", "keep", "go", "let", "make": "Take care", "Keep it up", "Go for it" are said to the listener), and
# only with something after them that is not "it", "you" or "that" ("Love it!", "Hate that" say nothing durable).
_STATE_VERB = re.compile(
    r"^(?:(?:still|also|now|currently|mostly|usually|basically|really|honestly|totally|def(?:initely)?)\s+)?"
    r"(?:(?:don't|dont|do not|never|no longer)\s+)?"
    r"(?P<verb>live|work|have|own|drive|ride|love|like|hate|prefer|adore|speak|play|use|run|teach|study|eat|drink|"
    r"cook|volunteer|rent|share|commute|cycle|swim|bank|support|follow|wear|collect|coach|manage|lead|"
    r"seeing|dating|using|renting|sharing|teaching|volunteering|commuting|cycling|swimming|eating|"
    r"drinking|wearing|coaching|managing|leading|saving|seeing)\s+"
    r"(?!(?:it|you|u|ya|that|this|them|him|her|fun|a\s+(?:good|great|nice|lovely|wonderful)|to\s+(?:go|say|ask)|"
    r"your|is|are|was|were|has|had|'s|sucks|stuff|soon|later)\b)\w", re.IGNORECASE)
# A state said as a describing word without "I'm": "Allergic to peanuts", "Vegan since 2019", "Married with two
# kids". A closed list of words that only describe a person ("excited", "tired" say a mood, not a fact).
_STATE_WORD = re.compile(
    r"^(?:(?:still|also|now|currently|mostly|basically|severely|mildly|very|quite)\s+)?"
    r"(?:allergic|intolerant|lactose intolerant|gluten intolerant|vegan|vegetarian|pescatarian|pregnant|diabetic|"
    r"asthmatic|coeliac|celiac|epileptic|dyslexic|autistic|colou?rblind|colou?r blind|deaf|left-handed|"
    r"right-handed|married|divorced|widowed|single|engaged|retired|unemployed|self-employed|freelance|"
    r"based|originally from)\b(?!\s+(?:is|are|was|were|people|folks|friends)\b)", re.IGNORECASE)


# A job said with where it is held, without "I'm": "Shift manager at Lidl", "nurse in a children's hospital".
_TITLE_AT = re.compile(r"^(?:an?\s+)?(?P<title>(?:[\w-]+\s+){0,3}?[\w-]+)\s+(?=(?:at|for|in|with)\s+\S)"
                       r"(?!.*\b(?:is|are|was|were|said|says|told|asked|did|does|has|had|wants|will)\b)",
                       re.IGNORECASE)


def _a_job_title(words: str) -> bool:
    """"Shift manager", "night nurse": a job noun with at most its modifiers; not "Retired", "working as a barista",
    "the manager" (someone else)."""
    said = words.split()
    return (bool(JOB_NOUNS.fullmatch(said[-1])) and not said[0].casefold().endswith(("ed", "ing"))
            and not {w.casefold() for w in said} & {"as", "the", "my", "our", "his", "her", "their", "your", "to"})


def restore_dropped_subject(clause: str) -> str:
    """"Sold the van last week" -> "I sold the van last week": chat leaves out the "I" before a past-tense
    verb; put back, the clause reads as the user's to every rule and to third_person."""
    stripped = clause.lstrip()
    if re.match(r"^been\s+\w", stripped, re.IGNORECASE):
        # "Been taking the train since January", "Been on oat lattes lately": what the speaker has been doing
        return "I have " + stripped[:1].lower() + stripped[1:]
    title = _TITLE_SINCE.match(stripped)
    if title and JOB_NOUNS.fullmatch(title["title"].split()[-1]):
        return f"I'm now {article(title['title'])} " + stripped[title.start("title"):title.end("title")] + \
            stripped[title.end("title"):]
    title = _TITLE_AT.match(stripped)
    if title and _a_job_title(title["title"]):
        return f"I'm {article(title['title'])} " + stripped[title.start("title"):]
    if _NEWS.match(stripped):
        return "I got " + ("" if stripped[:2].casefold() == "a " else "a ") + stripped[:1].lower() + stripped[1:]
    if _DOING.match(stripped):
        return "I'm " + stripped[:1].lower() + stripped[1:]
    if _DROPPED_SUBJECT.match(stripped) or _DONE.match(stripped) or _CHANGED.match(stripped):
        return "I " + stripped[:1].lower() + stripped[1:]
    state = _STATE_VERB.match(stripped)
    if state:
        return ("I'm " if state["verb"].casefold().endswith("ing") else "I ") + stripped[:1].lower() + stripped[1:]
    if _STATE_WORD.match(stripped):
        return "I'm " + stripped[:1].lower() + stripped[1:]
    return clause


# "Asana is what we use for tasks now" says "we use Asana for tasks now"; "Dr Ruiz is who I see" "I see Dr Ruiz".
_CLEFT = re.compile(r"^(?!(?:that|this|it|which|there|here|what|all|everything|nothing|something|one)\b)"
                    r"(?P<value>[^,;]+?)\s+is\s+(?:what|who)\s+(?P<subject>I|we)\s+(?P<verb>[a-z]+)\b\s*(?P<rest>.*)$",
                    re.IGNORECASE)
# "Marta's my team lead now": after a name, "'s" before a determiner is "is", not a possessive.
_NAME_IS = re.compile(r"(?<![\w'])(?!(?:It|That|There|Here|What|Who|He|She|Let|Where|How|When)'s)"
                      r"([A-Z][a-z][\w-]*)'s\s+(?=(?:my|our|the|a|an|your|his|her|their)\b)")

# "we got a new boss this week, Marcus", "I have a new dentist: Dr. Ng", "New landlord - Mr Cole": the role has a
# new holder, said as "my boss is Marcus now".
_NEW_HOLDER = re.compile(
    r"^(?:(?:[Ii]|[Ww]e)(?:'ve)?\s+(?:just\s+)?(?:got|have|has)\s+)?(?:a\s+)?[Nn]ew\s+"
    r"(?P<role>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)"
    r"(?:\s+(?:this|last)\s+(?:week|month|year|term)|\s+(?:today|yesterday))?"
    r"\s*(?:,|:|\s[-\u2013\u2014]|\s+called|\s+named)\s*"
    r"(?P<name>(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.?\s+)?(?!(?:I|It|It's|That|This|The|My|Our|We|He|She|They|But|And|So)\b)"
    r"[A-Z][\w'-]*(?:\s+(?:[A-Z][\w'-]*|\d[\w.]*)){0,2})(?P<rest>.*)$")


# "ramen has overtaken sushi as my favourite food", "Lidl replaced Tesco as our supermarket": the role has a new
# holder, said as "my favourite food is ramen now".
_TAKES_ROLE = re.compile(
    r"^(?P<new>[^,;]+?)\s+(?:(?:has|have|'s)\s+)?(?:overtaken|overtook|replaced|taken over from|took over from|"
    r"dethroned|beaten|beat|edged out|knocked)\s+(?P<old>[^,;]+?)\s+as\s+(?P<role>(?:my|our)\s+[^,;.!?]+?)"
    r"(?P<rest>\s*(?:[,;.!?].*)?)$", re.IGNORECASE)


# The user as the one a change was done to: "got poached by Spotify" is "got hired by Spotify"; "the company
# relocated me to Austin" (after a lead-in or none) is "I relocated to Austin", a move to a named place.
_TAKEN_ON = re.compile(r"(?:'ve\s+been\b|'s\s+been\b|\b(?:got|was|were|been|have been|has been))\s+(?:(?:just|recently|finally)\s+)?"
                       r"(?:poached|head-?hunted|recruited|snapped up|taken on|brought on)\s+by\b", re.IGNORECASE)
_MOVED_BY_WORK = re.compile(r"^(?:[^,;]*,\s*)?(?:the|my|our)\s+(?:company|firm|employer|work|job|bank|agency|"
                            r"office|university|army|regiment)\s+(?:has\s+|have\s+|just\s+|finally\s+)*"
                            r"(?:relocated|posted|moved|sent|stationed)\s+(?:me|us)\s+(?:(?:over|out|down|up)\s+)?"
                            r"to\s+(?=[A-Z])")


def unfold(clause: str) -> str:
    """A clause said back to front or around its value, in its plain order: the forms above."""
    clause = _TAKEN_ON.sub(lambda m: " got hired by" if m[0].startswith("'") else "got hired by",
                           _MOVED_BY_WORK.sub("I relocated to ", clause.strip())).strip()
    holder = _NEW_HOLDER.match(clause)
    if holder:
        return f"my {holder['role']} is {holder['name']} now{holder['rest']}"
    taken = _TAKES_ROLE.match(clause)
    if taken:
        return f"{taken['role']} is {taken['new']} now{taken['rest']}"
    clause = _NAME_IS.sub(r"\1 is ", clause)
    cleft = _CLEFT.match(clause)
    if cleft:
        rest = f" {cleft['rest']}" if cleft["rest"] else ""
        clause = f"{cleft['subject']} {cleft['verb']} {cleft['value']}{rest}"
    return clause


def third_person(clause: str, name: str = "User") -> str:
    """Rewrite a first-person clause about the speaker into a stored memory sentence.

    "I use Arch Linux" -> "User uses Arch Linux."; "my dog is Rex" -> "User's dog is Rex."
    """
    possessive = f"{name}'s"
    out: list[str] = []
    words = re.findall(r"\S+", clause)
    i = 0
    expect_verb = False
    while i < len(words):
        w = words[i]
        bare = re.sub(r"^[\"'(\[]+|[\"')\],.!?;:]+$", "", w)
        lead = w[: w.find(bare)] if bare else ""
        trail = w[w.find(bare) + len(bare):] if bare else w
        low = bare.lower()
        if low in ("i", "we"):
            out.append(lead + name + trail)
            expect_verb = True
        elif low in ("i'm", "im", "we're"):
            out.append(f"{lead}{name} is{trail}")
            expect_verb = False
        elif low in ("i've", "we've"):
            out.append(f"{lead}{name} has{trail}")
        elif low in ("i'd", "we'd"):
            out.append(f"{lead}{name} would{trail}")
        elif low in ("i'll", "we'll"):
            out.append(f"{lead}{name} will{trail}")
        elif low in ("my", "our", "mine", "ours"):
            # Once the sentence has named its subject, a second "my" refers back to it: "User uses VS Code as
            # their editor", not "... as User's editor" (which reads as if about someone called User).
            named = any(o.startswith(name) for o in out)
            back = "their" if low in ("my", "our") else "theirs"
            out.append(lead + (back if named else possessive) + trail)
        elif low in ("me", "us"):
            named = any(o.startswith(name) for o in out)
            out.append(lead + ("them" if named else name) + trail)
        elif low in ("myself", "ourselves"):
            out.append(lead + "themselves" + trail)
        elif expect_verb and low in ADVERBS:
            out.append(w)
            i += 1
            continue
        elif expect_verb and bare:
            if low == "do" and i + 1 < len(words) and words[i + 1].lower().startswith("not"):
                out.append(lead + "does" + trail)
            else:
                out.append(lead + third_person_verb(bare) + trail)
            expect_verb = False
        else:
            out.append(w)
            expect_verb = False
        i += 1
    sentence = " ".join(out).strip()
    sentence = re.sub(r"\s+([,.!?;:])", r"\1", sentence)
    return finish_sentence(sentence)


def finish_sentence(sentence: str) -> str:
    sentence = sentence.strip().rstrip(",;:-")
    if not sentence:
        return sentence
    sentence = sentence[0].upper() + sentence[1:]
    if sentence[-1] not in ".!?":
        sentence += "."
    return sentence


def embedding_text(text: str, speaker: str | None) -> str:
    """What is embedded for a memory: its text with the speaker's name written as "User".

    Every memory of one person carries their name, so a question naming them would otherwise score
    all of those memories on the name alone (the engine asks such questions about "the user" too).
    Abbreviations are spelled out ("appt" -> "appointment"), as they are in questions.
    """
    if speaker:
        name = " ".join(speaker.split())[:60]
        if name:
            text = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", "User", text)
    return textlib.spell_out(text)  # chat abbreviations, as the question's are (recall)


def person_names(speaker: str | None) -> tuple[str, str, str]:
    """(subject key, name used in sentences, possessive)."""
    if speaker:
        name = " ".join(speaker.split())[:60]
        return name.casefold(), name, f"{name}'s"
    return "user", "User", "User's"


def article(noun: str) -> str:
    return "an" if noun[:1].lower() in "aeiou" else "a"
