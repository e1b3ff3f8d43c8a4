"""Facts said inside requests, and standing instructions to the assistant.

"Can you remind me that my car inspection is on Tuesday?" holds a fact; "As you know, I'm vegan —
any recipes?" holds one too: the request frame is taken off and the statement kept. "Please reply
to me in French from now on" is an instruction that holds for later conversations: kept as a
preference in the user's voice ("User wants replies in French."), the reply language a single-valued
slot so a later "go back to English" replaces it. A one-off request ("write me a limerick") is not
an instruction: it needs a standing marker (always, never, stop, from now on, when you ...) or a verb
about how to talk to the user (reply, answer, speak, address, call me).
"""
from __future__ import annotations

import re

from .. import text as textlib
from .candidate import Candidate
from .voice import PAST_TENSE, finish_sentence, third_person, third_person_verb

LANGUAGES = (
    r"english|french|german|spanish|italian|portuguese|dutch|swedish|norwegian|danish|finnish|polish|czech|"
    r"greek|turkish|russian|ukrainian|arabic|hebrew|hindi|bengali|urdu|chinese|mandarin|cantonese|japanese|"
    r"korean|vietnamese|thai|indonesian|malay|tagalog|swahili|romanian|hungarian|catalan|basque|irish|welsh"
)
_ASKING = r"(?:what|when|where|which|who|whom|whose|how|if|whether)\b"
# Frames around a statement: what follows them is kept as said.
_FRAME = re.compile(
    rf"^(?:(?:(?:can|could|would|will) you\s+(?:please\s+)?|(?:please|pls|plz|plea+s+e*)\s+)?remind me\s+"
    rf"(?:that\s+|of\s+|about\s+)?(?!{_ASKING})|as you know,?\s*|as i told you,?\s*|as i(?:'ve)? said(?: before)?,?\s*|"
    rf"(?:don't|do not) forget(?: that)?\s+(?!to\b))",
    re.IGNORECASE,
)
_NOT_ME = re.compile(r"^(?:i|we)\b(?!'d like you| would like you| want you)", re.IGNORECASE)
_REPLY_LANGUAGE = re.compile(
    rf"\b(?:reply|replies|answer|answers|respond|speak|talk|write|go back|switch back|switch)\b[^.?!]{{0,25}}?"
    rf"\b(?:in|to)\s+(?P<lang>{LANGUAGES})\b|^(?:please\s+)?(?P<lang2>{LANGUAGES}) (?:please|only|from now on)\b",
    re.IGNORECASE,
)
_LEAD = re.compile(
    r"^(?:please\s+|pls\s+|kindly\s+|just\s+)?(?:(?:can|could|would) you\s+(?:please\s+)?|i(?:'d| would) like you to\s+|"
    r"i want you to\s+|remember to\s+|from now on,?\s+|going forward,?\s+|in (?:the )?future,?\s+|"
    r"(?P<when>when(?:ever)? (?:you|i ask)\b[^,]*?)(?:,\s*|\s+(?=(?:i|we)\s+(?:only\s+|just\s+|really\s+)?"
    r"(?:want|prefer|like|need)\b)))?",
    re.IGNORECASE,
)
_BODY = re.compile(
    r"^(?:(?:always|never|only|don't(?: ever)?|do not|stop)\s+)?(?:reply|respond|answer|speak|talk|use|call me|"
    r"address me|sign|keep|avoid|suggest|recommend|cite|include|skip|stop|write|summari[sz]e|format|give me|explain)\b",
    re.IGNORECASE,
)
_STANDING = re.compile(
    r"^(?:always|never|only|don't|do not|stop)\b|^(?:reply|respond|answer|speak|talk|address me|call me)\b|"
    r"\b(?:from now on|going forward|in future|when(?:ever)? you|with me|to me|call me|"
    r"use my (?:first |full |real |nick)?name)\b",
    re.IGNORECASE,
)


def unwrap(sentence: str) -> str:
    """The statement inside a request frame ("remind me that X?" -> "X"); the sentence otherwise."""
    inner = _FRAME.sub("", sentence.strip(), count=1)
    if inner == sentence.strip():
        return sentence
    inner = inner.rstrip("?").rstrip()
    if re.match(r"to\s+\w", inner, re.IGNORECASE):
        # "remind me to take breaks when I code late": what the user wants to be reminded of, in their voice
        return f"I want to be reminded {inner}"
    return inner or sentence


# "I only want vegetarian places" after "when you recommend restaurants": the user's wish about what the
# assistant does, an instruction although the user is its subject.
_WISH = re.compile(r"^(?:i|we)\s+(?:only\s+|just\s+|really\s+)?(?:want|prefer|like|need)\b", re.IGNORECASE)


def assistant_voice(text: str) -> str:
    """"you"/"your" said to the assistant, as the assistant: "when you suggest workouts" -> "when the assistant
    suggests workouts" (a verb after "you" agrees; "you and I" has none)."""
    text = re.sub(r"\byour\b", "its", text, flags=re.IGNORECASE)
    text = re.sub(r"\byou (\w+)", lambda m: "the assistant " + (
        m.group(1) if m.group(1).lower() in textlib.STOPWORDS else third_person_verb(m.group(1))), text,
        flags=re.IGNORECASE)
    return re.sub(r"\byou\b", "the assistant", text, flags=re.IGNORECASE)


_THEY_VERB = {"is": "are", "was": "were", "has": "have", "does": "do"}


def _their(voiced: str, S: str) -> str:
    """An instruction names the user first, so later the user is "them", "they" and their things "their"."""
    voiced = re.sub(rf"\b{re.escape(S)}'s\b", "their", voiced)
    voiced = re.sub(rf"(?<=\s){re.escape(S)}\s+(is|was|has|does)\b", lambda m: f"they {_THEY_VERB[m.group(1)]}", voiced)
    return re.sub(rf"(?<=\s){re.escape(S)}\b", "them", voiced)


# Imperatives that say how the assistant should work. Manner verbs do so whatever their object ("keep the answers
# short"); task verbs only about a kind of thing, said with how ("explain code with comments", "summarise long
# articles in 3 sentences"): "explain quantum physics" or "write a haiku" is a one-off request.
_MANNER_VERBS = ("be|keep|use|avoid|stick|call|address|answer|reply|respond|speak|talk|stop|assume|default|round|"
                 "limit|spell|quote|measure|sign|cite|skip|include|mention|add|label|number|go easy|double-check")
_TASK_VERBS = "write|summari[sz]e|explain|translate|give|show|make|list|format|convert|recommend|suggest|sort|structure"
_IMPERATIVE = re.compile(
    rf"^(?P<neg>(?:always|never|only|don't(?: ever)?|do not|please don't|please do not)\s+)?"
    rf"(?P<verb>{_MANNER_VERBS}|{_TASK_VERBS})\b\s*(?P<object>.*)$", re.IGNORECASE)
# A particular thing: what a one-off request is about.
_ONE_OFF = re.compile(r"\b(?:this|that|these|those|it|the following|below|above|attached|here|again|today|tonight|"
                      r"tomorrow|right now)\b", re.IGNORECASE)
_DETERMINER = re.compile(r"^(?:(?:me|us)\s+)?(?:a|an|the|my|our|his|her|its|their|your|some|one|another|any)\b",
                         re.IGNORECASE)
_HOW = re.compile(r"\b(?:with|without|in|into|under|below|within|as|like|using|at most|max|no more than|simply|briefly|"
                  r"(?:short|long|simpl|clear|brief|slow|fast|easi|plain|small|bigg|friendli|casual|formal)er|more|less|"
                  r"fewer)\b", re.IGNORECASE)
# "No jargon", "prices in euros": what the user wants from the assistant, said without a verb, with a please.
_NOMINAL = re.compile(r"^(?P<no>no\s+)?(?P<what>[a-z][\w'-]*(?:\s+[\w/'-]+){0,5})$", re.IGNORECASE)
# A reason said after an instruction ("keep it short, I'm a beginner") is a fact of its own.
_REASON = re.compile(r"(?:,\s*|\s+(?:because|since|as)\s+|\s+[\u2014\u2013-]+\s+)"
                     r"(?P<reason>(?:i|i'm|i am|i've|i have|i'd|my|we|we're|our)\b.*)$", re.IGNORECASE)
_PLEASE = re.compile(r"(?:^|[,\s]+)(?:please|pls|plz)\b[,.!]*", re.IGNORECASE)


# "Always"/"never"/"don't" before any verb say how things are to be from now on ("don't bother with pleasantries",
# "never mention my ex"), but for the verbs of a passing remark ("don't worry", "don't forget the milk").
_MARKED_ANY = re.compile(r"^(?:always|never|don't(?: ever)?|do not|please don't|please do not)\s+(?P<verb>[a-z]+)\b",
                         re.IGNORECASE)
_NOT_ORDERS = frozenset("forget worry mind know think care panic ask get you i we it been had gone done seen "
                        "heard known wanted liked loved hated".split())


def _marked_order(body: str) -> bool:
    """An order said with always/never/don't and a verb's plain form ("never mention my ex"), not a question
    ("don't you think?"), a remark ("don't worry") nor something the speaker did ("never been to Paris")."""
    match = _MARKED_ANY.match(body)
    if match is None or body.rstrip().endswith("?"):
        return False
    verb = match["verb"].casefold()
    return verb not in _NOT_ORDERS and verb not in PAST_TENSE and not verb.endswith("ed")
# Leave given to the assistant: "you can swear", "feel free to use slang".
_PERMISSION = re.compile(r"^(?:you can|you may|you're allowed to|you are allowed to|feel free to|"
                         r"it's (?:fine|ok|okay) (?:for you )?to)\s+(?!call me\b|address me\b)(?P<what>[a-z][\w'-]*(?:\s+\S+){0,8})$", re.IGNORECASE)


def _standing_imperative(body: str) -> bool:
    """Does a bare imperative (no marker like "always" or "from now on") say how the assistant should work
    from now on? Yes when about a kind of thing; no when about a particular one."""
    if _marked_order(body) and not _ONE_OFF.search(body):
        return True
    match = _IMPERATIVE.match(body)
    if match is None or _ONE_OFF.search(body):
        return False
    verb, obj = match["verb"].lower(), match["object"]
    if match["neg"] or re.fullmatch(_MANNER_VERBS, verb):
        return True
    if not obj or _DETERMINER.match(obj):
        return False
    return bool(_HOW.search(obj))


def _voiced_body(body: str, S: str) -> str:
    """The imperative as what the user wants the assistant to do: "don't use emojis" -> "not to use emojis"."""
    voiced = _their(third_person(assistant_voice(body), S), S).rstrip(".")
    voiced = voiced[:1].lower() + voiced[1:]
    neg = re.match(r"^(?:please\s+)?(?:don't(?: ever)?|do not)\s+", voiced, re.IGNORECASE)
    if neg:
        return "not to " + voiced[neg.end():]
    if re.match(r"^never\s+", voiced, re.IGNORECASE):
        return "never to " + voiced[len("never "):]
    return "to " + voiced


def _when_object(when: str) -> str | None:
    """What a condition is about: "when you suggest hikes" -> "hikes" (a bare plural after the verb)."""
    match = re.search(r"\byou\s+\w+\s+(?:me\s+|us\s+)?(?P<what>[a-z][\w-]*s)\s*$", when.strip(), re.IGNORECASE)
    return match["what"] if match else None


def _wanted(body: str, text: str, sentence: str) -> list[Candidate]:
    return [Candidate(subject="user", attribute="assistant_instruction", value=body, type="preference", importance=0.8,
                      multi=True, text=finish_sentence(text)[:1000], clause=sentence, rule="assistant_instruction")]


def instruction(sentence: str, S: str) -> tuple[list[Candidate], str]:
    """A standing instruction to the assistant as a preference candidate, and what the sentence says besides it
    (a reason: "keep it short, I'm a beginner" -> "I'm a beginner"); ([], sentence) when it is none."""
    none: tuple[list[Candidate], str] = ([], sentence)
    pleased = bool(_PLEASE.search(sentence))
    said = re.sub(r"[,\s]*(?:please|pls|thanks|thank you)[.!]*$", "", sentence.strip(), flags=re.IGNORECASE)
    said = re.sub(r"^(?:ok(?:ay)?|so|and|also|oh|actually|hey)[,!]?\s+", "", said, flags=re.IGNORECASE).rstrip(" .!?")
    if not said or _NOT_ME.match(said) or textlib.is_small_talk(said):
        return none  # "talk tomorrow" is a goodbye
    lang = _REPLY_LANGUAGE.search(said)
    if lang:
        value = (lang["lang"] or lang["lang2"]).capitalize()
        return [Candidate(subject="user", attribute="reply_language", value=value, type="preference", importance=0.8,
                          multi=False, text=f"{S} wants replies in {value}.", clause=sentence, update_cue=True,
                          rule="reply_language")], ""
    lead = _LEAD.match(said)
    body = said[lead.end():]
    reason = ""
    cut = _REASON.search(body)
    if cut and not _WISH.match(cut["reason"]):
        body, reason = body[:cut.start()], cut["reason"]
    body = _PLEASE.sub("", body).strip(" ,")
    polite_only = re.fullmatch(r"(?:please\s+|pls\s+|kindly\s+|just\s+)?(?:(?:can|could|would) you\s+(?:please\s+)?)?",
                               lead.group(0), re.IGNORECASE)
    if lead["when"] and _WISH.match(body):
        voiced = third_person(body, S).rstrip(".")
        when = _their(third_person(assistant_voice(lead["when"]), S), S).rstrip(".")
        return _wanted(body, f"{voiced}, {when[:1].lower()}{when[1:]}", sentence), ""
    if not lead.group(0) and pleased and not _IMPERATIVE.match(body) and not _ONE_OFF.search(body):
        nominal = _NOMINAL.match(body)
        # a verb and its object ("fix my code") is a request, not a thing wanted
        if (nominal and (nominal["no"] or len(nominal["what"].split()) >= 2)
                and not textlib.is_question_or_request(body) and not _DETERMINER.match(body.split(maxsplit=1)[-1])):
            wanted = _their(third_person(body, S), S)
            return _wanted(body, f"{S} wants {wanted[:1].lower()}{wanted[1:]}", sentence), reason
        return none
    permission = _PERMISSION.match(body)
    if permission and not _ONE_OFF.search(body):
        allowed = _their(third_person(assistant_voice(permission["what"]), S), S).rstrip(".")
        return _wanted(body, f"{S} allows the assistant to {allowed[:1].lower()}{allowed[1:]}", sentence), reason
    marked = _BODY.match(body) and (not polite_only or _STANDING.search(body))
    if not marked and not _standing_imperative(body):
        return none
    if lead["when"]:
        thing = _when_object(lead["when"])
        if thing:  # "keep them under 10 km, when you suggest hikes": them are the hikes
            body = re.sub(r"^(\w+)\s+(?:them|those)\b", rf"\1 {thing}", body, flags=re.IGNORECASE)
    text = f"{S} wants the assistant {_voiced_body(body, S)}"
    if lead["when"]:
        when = _their(third_person(assistant_voice(lead["when"]), S), S).rstrip(".")
        text += ", " + when[:1].lower() + when[1:]
    return _wanted(body, text, sentence), reason
