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
from .voice import finish_sentence, third_person, third_person_verb

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
    return inner.rstrip("?").rstrip() or sentence


# "I only want vegetarian places" after "when you recommend restaurants": the user's wish about what the
# assistant does, an instruction although the user is its subject.
_WISH = re.compile(r"^(?:i|we)\s+(?:only\s+|just\s+|really\s+)?(?:want|prefer|like|need)\b", re.IGNORECASE)


def _you(text: str) -> str:
    text = re.sub(r"\byour\b", "its", text, flags=re.IGNORECASE)
    # "when you suggest workouts" -> "when the assistant suggests workouts"
    text = re.sub(r"\byou (\w+)", lambda m: f"the assistant {third_person_verb(m.group(1))}", text,
                  flags=re.IGNORECASE)
    return re.sub(r"\byou\b", "the assistant", text, flags=re.IGNORECASE)


def _their(voiced: str, S: str) -> str:
    """An instruction names the user first, so later the user is "them" and their things "their"."""
    voiced = re.sub(rf"\b{re.escape(S)}'s\b", "their", voiced)
    return re.sub(rf"(?<=\s){re.escape(S)}\b", "them", voiced)


def instruction(sentence: str, S: str) -> list[Candidate]:
    """A standing instruction to the assistant as a preference candidate; [] when it is none."""
    said = re.sub(r"[,\s]*(?:please|pls|thanks|thank you)[.!]*$", "", sentence.strip(), flags=re.IGNORECASE)
    said = re.sub(r"^(?:ok(?:ay)?|so|and|also|oh|actually|hey)[,!]?\s+", "", said, flags=re.IGNORECASE).rstrip(" .!?")
    if not said or _NOT_ME.match(said) or textlib.is_small_talk(said):
        return []  # "talk tomorrow" is a goodbye
    lang = _REPLY_LANGUAGE.search(said)
    if lang:
        value = (lang["lang"] or lang["lang2"]).capitalize()
        return [Candidate(subject="user", attribute="reply_language", value=value, type="preference", importance=0.8,
                          multi=False, text=f"{S} wants replies in {value}.", clause=sentence, update_cue=True,
                          rule="reply_language")]
    lead = _LEAD.match(said)
    body = said[lead.end():]
    polite_only = re.fullmatch(r"(?:please\s+|pls\s+|kindly\s+|just\s+)?(?:(?:can|could|would) you\s+(?:please\s+)?)?",
                               lead.group(0), re.IGNORECASE)
    if lead["when"] and _WISH.match(body):
        voiced = third_person(body, S).rstrip(".")
        when = _their(third_person(_you(lead["when"]), S), S).rstrip(".")
        return [Candidate(subject="user", attribute="assistant_instruction", value=body, type="preference",
                          importance=0.8, multi=True, text=finish_sentence(f"{voiced}, {when[:1].lower()}{when[1:]}")[:1000],
                          clause=sentence, rule="assistant_instruction")]
    if not _BODY.match(body) or not (not polite_only or _STANDING.search(body)):
        return []
    voiced = _their(third_person(_you(body), S), S).rstrip(".")
    text = f"{S} wants the assistant to {voiced[:1].lower()}{voiced[1:]}"
    if lead["when"]:
        when = _their(third_person(_you(lead["when"]), S), S).rstrip(".")
        text += ", " + when[:1].lower() + when[1:]
    return [Candidate(subject="user", attribute="assistant_instruction", value=body, type="preference",
                      importance=0.8, multi=True, text=finish_sentence(text)[:1000], clause=sentence,
                      rule="assistant_instruction")]
