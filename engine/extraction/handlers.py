"""The small functions a rule needs when a template is not enough.

A handler gets the clause, the rule's match and the speaker's name and possessive ("User",
"User's"); it returns what it found, several findings, or None to let the next rule try.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Union

from .. import text as textlib
from .values import clean_value, event_subject, slug, strip_when
from .vocabulary import (
    COUNT_NOUNS, DIETS, FAVORITE_KINDS, FROM_TO, INSTEAD_OF, JOB_NOUNS, PERSON_ATTRS, PETS, PROJECT_ATTRS,
    RELATIONS, SLOTS, TRAILING_WHEN, known_slot,
)
from .voice import article, third_person


@dataclass(frozen=True)
class Found:
    """One finding of a rule, before it becomes a Candidate."""

    attribute: str
    value: str
    text: str | None = None  # a template sentence; default is the third-person clause
    subject: str | None = None
    replaced_value: str | None = None
    type: str | None = None
    rule: str = ""  # the name of the rule that found it, set by the rule table


Handled = Union[list[Found], Found, None]


def name_intro(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    v = m["v"]
    if v.lower() in textlib.STOPWORDS or JOB_NOUNS.search(v) or re.search(DIETS, v, re.IGNORECASE):
        return None
    return Found("name", v, f"{P} name is {v}.")


def hometown(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    v = clean_value(m["v"] or m["w"])
    if re.match(r"^\d|^(?:19|20)\d\d", v):
        return Found("birthday", v, f"{S} was born in {v}.")
    return Found("hometown", v, f"{S} is from {v}.")


def moved(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    v = strip_when(clean_value(m["v"]))
    if m["plan"]:
        # A move in progress is a plan: where the user lives stays as it is until it happens.
        said = re.sub(r"[.!]+$", "", m["v"].strip())
        return Found("planned_move", v, f"{S} is {m['plan'].lower()} {m['back'] or ''}to {said}.")
    if _NOT_A_PLACE.search(re.split(r"\b(?:when|after|because|since|as)\b", v)[0]):
        return None  # a thing changed into another, which the clause says as a move
    old = None
    fm = re.match(r"(?P<new>.+?)\s+from\s+(?P<old>.+)$", v, re.IGNORECASE)
    if fm:
        v, old = clean_value(fm["new"]), clean_value(fm["old"])
    return Found("location", v, f"{S} lives in {v}.", replaced_value=old)


# What one moves a thing to, not oneself: "moved to unlimited data", "moved to the annual plan".
_NOT_A_PLACE = re.compile(
    r"\b(?:data|plan|tier|tariff|contract|package|bundle|version|subscription|membership|account|team|role|"
    r"position|shift|department|app|tool|provider|supplier|model|dose|dosage|diet|level|grade|class|course|"
    r"unlimited|annual|monthly|yearly|premium|pro|free|basic)\b", re.IGNORECASE)
# A home that is not where one lives: a second one, or one bought or rented for someone else or to let.
_NOT_ONES_HOME = re.compile(
    r"\b(?:holiday|summer|summers|beach|second|weekend|vacation|ski|investment|buy-to-let|rent (?:it )?out|"
    r"renting (?:it )?out|to let|for (?:my|our|his|her|their) (?:mum|mom|mother|dad|father|parents|son|daughter|"
    r"kids?|children|sister|brother|gran|grandma|grandmother|grandparents))\b", re.IGNORECASE)


def home_in(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    """Having, renting or buying one's home says where one lives: "got my own flat in Cardiff",
    "we rent a small flat near the station". Not a holiday home, nor one for someone else."""
    if _NOT_ONES_HOME.search(clause):
        return None
    where = re.split(r"[,;]|\s+(?:since|for|until|till|as of|from)\s", m["v"])[0]
    where = strip_when(clean_value(re.sub(r"(?:\s+(?:finally|at last|now|lol|haha))+\W*$", "", where,
                                          flags=re.IGNORECASE)))
    if not where:
        return None
    if m["prep"].lower() == "in":
        return Found("location", where, f"{S} lives in {where}.")
    home = re.sub(r"\b(?:my|our)\b", "their", clean_value(m["home"]), flags=re.IGNORECASE)
    v = f"{home[:1].lower()}{home[1:]} {m['prep'].lower()} {where}"
    return Found("location", v, f"{S} lives in {v}.")


# One word for each way of getting somewhere, whichever way it was said ("cycle in", "by bike", "biking to work").
_MODES = {"cycle": "bike", "cycling": "bike", "bike": "bike", "biking": "bike", "bicycle": "bike", "e-bike": "e-bike",
          "walk": "foot", "walking": "foot", "foot": "foot", "drive": "car", "driving": "car", "car": "car",
          "run": "running", "running": "running", "scoot": "scooter", "scooter": "scooter", "motorbike": "motorbike",
          "bus": "bus", "train": "train", "tube": "tube", "metro": "metro", "subway": "subway", "tram": "tram",
          "ferry": "ferry"}


def commute(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    """How one gets to work or around, one way at a time: "I cycle in now" replaces "I take the tube to the office"."""
    mode = (m["v"] or m["v2"] or m["v3"] or m["v4"]).lower().split()[-1]
    return Found("commute", _MODES.get(mode, mode))


def moved_from_to(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    v = strip_when(clean_value(m["v"]))
    return Found("location", v, f"{S} lives in {v}.", replaced_value=clean_value(m["old"]))


def job_at(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    job, emp = clean_value(m["job"]), clean_value(m["emp"])
    if not JOB_NOUNS.search(job):
        return None
    return [Found("job_title", job, f"{S} works as {article(job)} {job}."), Found("employer", emp, f"{S} works at {emp}.")]


def employer(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    # what is said after the name is about the job, not part of the name: "Spotify, same kind of role but ..."
    v = strip_when(re.split(r"\s*[,;]\s+|\s+[-\u2013\u2014]\s+|\s+but\s+", clean_value(m["v"]))[0])
    old = None
    fm = FROM_TO.search(v)
    if fm:
        v, old = clean_value(fm["new"]), clean_value(fm["old"])
    v = re.sub(r"\s+as\s+an?\s+.+$", "", v)
    if not v or len(v.split()) > 8:
        return None
    return Found("employer", v, f"{S} works at {v}.", replaced_value=old)


def job(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    v = clean_value(m["v"])
    v = re.sub(r"^(?:an?|the)\s+", "", v, flags=re.IGNORECASE)
    # when it happened is not part of the job: "a junior dev finally", "a nurse at the clinic in May"
    v = TRAILING_WHEN.sub("", re.sub(r"\s+(?:finally|at last|now|again)$", "", v, flags=re.IGNORECASE)).strip() or v
    if re.match(r"^(?:hard|fast|much|little|well|long|best|quickly|as|if|though)\b", v, re.IGNORECASE):
        return None  # "I work as hard as I can": how, not as what
    return Found("job_title", v, f"{S} works as {article(v)} {v}.")


def job_identity(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    v = clean_value(m["v"])
    if not JOB_NOUNS.search(v) or len(v.split()) > 6:
        return None
    v = re.sub(r"\s+(?:by trade|by profession|(?:as of|since|from|starting|effective)\s+.+)$", "", v,
               flags=re.IGNORECASE)
    return Found("job_title", v, f"{S} works as {article(v)} {v}.")


def diet_not(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    v = clean_value(m["v"])
    return Found("diet", f"no {v}", third_person(clause, S))


def allergy(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    v = clean_value(m["v"] or m["w"])
    return Found("allergies", v, f"{S} is allergic to {v}.")


def pet_name(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    v = f"{m['kind']} named {clean_value(m['v'])}"
    return Found("pets", v)


def count(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    noun = m["noun"].lower()
    noun = "child" if noun == "children" else noun.rstrip("s")
    return Found(COUNT_NOUNS[noun], m["n"].lower())


def sibling(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    v = clean_value(m.group(0).split(" have ", 1)[1])
    return Found(RELATIONS[m["rel"].lower()], v)


def relation_name(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    rel = m["rel"].lower()
    slot = RELATIONS[rel]
    v = m["v"]
    if slot in ("siblings", "children"):
        return Found(slot, f"{rel} {v}", f"{P} {rel} is named {v}.")
    return Found(slot, v, f"{P} {rel} is named {v}.")


def favorite(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    # "X is my favourite band now": the word saying when is no part of the kind
    kind = re.sub(r"\s+(?:now|these days|nowadays|lately|at the moment|right now|currently|again)$", "",
                  (m["kind"] or m["kind2"]).strip().lower())
    v = clean_value(m["v"] or m["v2"])
    attr = FAVORITE_KINDS.get(kind) or FAVORITE_KINDS.get(kind.split()[-1]) or "favorite_" + slug(kind)
    return Found(attr, v, f"{P} favorite {kind} is {v}.", type="preference")


def likes(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    v = clean_value(m["v"])
    over = re.match(r"(?P<a>.+?)\s+(?:over|to|rather than|instead of)\s+(?P<b>.+)$", v, re.IGNORECASE)
    known = known_slot(over["a"] if over else v)
    if known:
        return Found(known[0], known[1], type="preference")
    return Found("likes", v, type="preference")


# What everything one does is for: a tool "for work" is one of many.
_BROAD_PURPOSES = frozenset({"work", "fun", "school", "home", "everything", "personal stuff", "personal use", "business",
                             "job", "study", "studying", "hobby", "hobbies", "life", "stuff", "things", "now"})


# A value that is an amount, maybe said roughly: "58k", "about 20 km a week", "five miles a day".
_AN_AMOUNT = re.compile(r"^(?:(?:about|around|roughly|nearly|almost|over|under|approximately|at least|up to|like|"
                        r"maybe|just|only)\s+)*[$€£]?(?:\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|"
                        r"twenty|thirty|forty|fifty|a hundred|a couple of|a few)\s+(?:k|km|kms|miles?|kilomet(?:re|er)s?|"
                        r"laps?|hours?|minutes?|mins?|times?|sessions?|reps?|sets?|kg|pounds?|lbs?)\b)", re.IGNORECASE)


def use(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    v = clean_value(m["v"])
    old = clean_value(m["old"]) if m["old"] else None
    inst = INSTEAD_OF.search(v)
    if inst and not old:
        old = clean_value(inst["old"])
        v = clean_value(v[: inst.start()])
    for_project = bool(re.search(r"\b(?:for|in|on) (?:the|our|my|this) (?:project|app|backend|frontend|site|api|service|product)\b|^we\b", clause, re.IGNORECASE))
    known = known_slot(v)
    if known is None:
        if _AN_AMOUNT.match(v):
            return None  # "I'm on 58k now", "I run about 20 km a week": a pay, a dose or a distance, not a tool
        said = clause[m.start():m.start("v")]  # the verb, not the value ("Krita, which changed how I draw")
        if re.search(r"\b(?:switch|moved|moving|migrat|chang|upgrad|went back)", said, re.IGNORECASE):
            return None  # "switched to black coffee": a change of something no rule names, for the open world
        if re.search(rf"\b(?:{PETS})\b", v, re.IGNORECASE):
            return None  # "I have a dog" is the pets rule's
        if re.match(r"^(?:an?|the|some|my)\s", v, re.IGNORECASE) and re.search(r"\b(?:car|bike|truck|motorcycle|scooter|tesla|toyota|honda|bmw|audi|ford|volkswagen|vw|subaru|mazda|kia|hyundai|volvo)\b", v, re.IGNORECASE):
            return Found("car", v, replaced_value=old)
        if re.search(r"\b(?:have|own|got|bought|picked up|purchased|treated)\b", said, re.IGNORECASE):
            return None  # having or getting a thing no rule names ("a new job", "some groceries") is no tool
        if len(v.split()) > 6:
            return None
        purpose = re.match(r"^(?P<tool>.+?)\s+for\s+(?:my\s+|our\s+|the\s+)?(?P<for>[a-z][\w -]*?)$", v)
        if (purpose and not re.search(r"\b(?:also|too|as well|both)\b", clause, re.IGNORECASE)
                and purpose["for"].lower() not in _BROAD_PURPOSES):
            # "Notion for notes": one tool holds that role; the next one for it replaces it (a slot of its own)
            return Found(f"tool_for_{slug(purpose['for'])}", purpose["tool"], replaced_value=old, type="preference")
        return Found("tools", v, replaced_value=old, type="preference")
    slot, name = known
    if for_project:
        slot = {"database": "project_database", "programming_languages": "project_language"}.get(slot, slot)
    role = _PURPOSE.search(v)
    if (role and slot in SLOTS and not SLOTS[slot].multi and role["for"].split()[-1].lower() not in _WHOLE_PROJECT
            and role["for"].lower() not in _BROAD_PURPOSES):
        # "Redis for caching" beside "Postgres for the main app": a part with a role of its own, not the project's
        # one database; the next one for that role replaces it ("Memcached for caching now").
        slot = f"{slot}_for_{slug(role['for'])}"
    if slot.split("_for_")[0] in ("framework", "hosting", "project_database", "project_language"):
        return Found(slot, name, subject="project", replaced_value=old, type="project_detail")
    return Found(slot, name, replaced_value=old, type="preference")


_PURPOSE = re.compile(r"\s+for\s+(?:my\s+|our\s+|the\s+|its\s+)?(?P<for>[A-Za-z][\w +#.-]*?)$")
# What names the whole project, not a part of it: "Postgres for the main app" is the project's database.
_WHOLE_PROJECT = frozenset("project app application backend back-end frontend front-end site website api service "
                           "product platform startup company it everything".split())


def building(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    v = clean_value(m["v"])
    known = known_slot(v)
    if known and known[0] == "framework":
        framework = Found("framework", known[1], subject="project", type="project_detail")
        if len(v.split()) <= len(known[1].split()) + 2:  # "a Next.js app": the framework is all it says
            return framework
        # "a budgeting tool for freelancers in Flutter": what is being built, and with what
        return [Found("project_description", v, subject="project", type="project_detail"), framework]
    if len(v.split()) > 15:
        return None
    return Found("project_description", v, subject="project", type="project_detail")


def project_attr(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    raw = m["attr"].lower()
    attr = PROJECT_ATTRS[raw]
    qual = (m["qual"] or "").lower()
    if qual in ("the", "my", "our", "this", "a", "an", "new", "current", "final", "official", "actual", "real"):
        qual = ""
    v = clean_value(m["v"])
    v = re.sub(r"^(?:is|was|will be|now)\s+", "", v, flags=re.IGNORECASE)
    if not v:
        return None
    old = None
    fm = re.search(r"\bfrom\s+(?P<old>.+?)\s+to\s+", m.group(0), re.IGNORECASE)
    if fm:
        old = clean_value(fm["old"])
    if attr == "team" and not re.search(r"\d|people|person|members|devs|engineers", v, re.IGNORECASE):
        return None
    if attr == "budget" and qual and not re.search(
            r"\b(?:project|app|site|product|client|marketing|cloud|infra\w*|ads?|hosting|sprint|design|engineering|"
            r"dev|development|q[1-4])\b", clause, re.IGNORECASE):
        return None  # "grocery budget", "holiday budget": the user's own, kept as said
    if qual:  # "the backend deadline" and "the frontend deadline" are two slots
        attr, raw = f"{attr}_{slug(qual)}", f"{qual} {raw}"
    text = f"The project is called {v}." if attr == "project_name" else f"Project {raw} is {v}."
    return Found(attr, v, text, subject="project", replaced_value=old, type="project_detail")


def event(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    # "bare": said without a determiner, at most one word before the event's noun ("Dentist appointment: ...")
    name = clean_value(m["e"] or m["bare"]).lower()
    name = re.sub(r"^(?:an?|the|my|our)\s+", "", name)
    if name in ("deadline", "launch", "release"):
        v = clean_value(m["v"])
        return Found("deadline", v, subject="project", type="project_detail")
    return Found("date", clean_value(m["v"]), subject=event_subject(name), type="event")


def trip(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    dest = clean_value(m["e"])
    return Found("date", clean_value(m["v"]), subject=event_subject(f"trip {dest}"), type="event")


def new_person(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    rel = m["rel"].strip().lower()
    slot = RELATIONS.get(rel)
    if slot in ("siblings", "children"):
        return Found(slot, f"{rel} {m['v']}", f"{P} {rel} is named {m['v']}.")
    return Found(slot or slug(rel), m["v"], f"{P} {rel} is {m['v']}.")


def deploy(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    v = clean_value(m["v"])
    known = known_slot(v)
    return Found("hosting", known[1] if known and known[0] == "hosting" else v, subject="project", type="project_detail")


def project_uses(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    v = clean_value(m["v"])
    known = known_slot(v)
    if known is None:
        return None
    slot = {"database": "project_database", "programming_languages": "project_language"}.get(known[0], known[0])
    if slot not in ("framework", "hosting", "project_database", "project_language"):
        return None
    return Found(slot, known[1], subject="project", type="project_detail")


def my_x_is(clause: str, m: re.Match[str], S: str, P: str) -> Handled:
    if any(word[:1].isupper() for word in m["attr"].split()):
        return None  # "my sister Elena is getting married": about a person, not a slot of the user's
    raw_attr = re.sub(r"^(?:new|current|old|former|previous|actual)\s+", "", m["attr"].strip().lower())
    v = clean_value(m["v"])
    if not v:
        return None
    subject_word = raw_attr.split()[-1]
    if raw_attr in PERSON_ATTRS:
        attr = PERSON_ATTRS[raw_attr]
    elif raw_attr in PROJECT_ATTRS:
        attr = PROJECT_ATTRS[raw_attr]
        return Found(attr, v, f"Project {raw_attr} is {v}.", subject="project", type="project_detail")
    elif subject_word in RELATIONS or raw_attr.startswith(("favourite", "favorite")):
        return None
    else:
        attr = slug(raw_attr)
    slot = SLOTS.get(attr)
    if slot and slot.multi:
        return Found(attr, v)
    copula = m["cop"] if m["cop"] in ("is", "are", "was", "were") else "is"
    return Found(attr, v, f"{P} {raw_attr} {copula} {v}.")
