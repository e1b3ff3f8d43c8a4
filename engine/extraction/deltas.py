"""An amount said as how far it moved: "put the rent up by 75", "got a 4k raise", "knocked 5 dollars off my
phone plan", "10 more push-ups each morning now", "lost 4 kg since new year".

The number said is no value of the thing: stored as one, "User's rent is 1200 a month." would become "User's rent
is 75 a month.". It is a change of the one amount a memory holds, so the memory is restated with the amount it
moved to ("User's rent is 1275 a month."). It applies only to a memory about the same thing ("the design team
grew by 2" is no news of "Our team is 7 engineers"), holding exactly one plain amount in a unit the change fits;
otherwise it applies to nothing and the clause is kept as said. An amount said in comparison with something
else ("5 cheaper than my gym") is no change of anything.

Pure functions of the sentences; the patterns are a table, one row a way of saying a change.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .. import text as textlib

_WORD_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                 "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30,
                 "forty": 40, "fifty": 50, "hundred": 100}
_NUM = (r"(?P<n>[$€£]?\d{1,3}(?:,\d{3})+(?:\.\d+)?k?|[$€£]?\d+(?:\.\d+)?k?|"
        + "|".join(_WORD_NUMBERS) + r")(?![\w.,]\d|[\w%])")
# Words that say what a number counts in money: interchangeable with each other and with a bare amount.
_CURRENCY = frozenset({"euro", "euros", "eur", "dollar", "dollars", "usd", "bucks", "pound", "pounds", "quid",
                       "gbp", "grand"})
_UNITS = (r"(?:euros?|eur|dollars?|usd|bucks|pounds?|quid|gbp|grand|cents?|pence|kg|kgs|kilos?|lbs?|stone|km|kms|miles?|"
          r"hours?|hrs?|minutes?|mins?|seconds?|secs?|days?|weeks?|months?|years?|gb|mb|tb|percent|%|"
          r"steps?|books?|points?|pages?|reps?|laps?|sessions?|people|users?|subscribers?|seats?|calories)")
_UNIT = rf"(?:\s*(?P<unit>{_UNITS})\b)?"
# Where the words a change is said of stop: a time, a reason, the next clause.
_THING_END = re.compile(r"\s+(?:in|on|at|since|for|from|after|before|because|as|when|but|so|this|last|next|"
                        r"every|each|ago|now|again|today|yesterday|with|to|and|then|too|also)\b.*$"
                        r"|\s*[,;:!?.].*$", re.IGNORECASE)
_LEADING = re.compile(r"^(?:(?:on|to|onto|off|of|per|for|in)\s+)", re.IGNORECASE)
_DETERMINER = re.compile(r"\b(?:the|my|our|their|his|her|its|your|a|an)\s+", re.IGNORECASE)

_UP_VERBS = (r"raised|raise|raises|raising|increased|increase|increases|increasing|upped|upping|ups|bumped|bump|"
             r"bumps|bumping|hiked|hike|hikes|grew|grow|grows|grown|rose|rise|rises|risen|jumped|climbed|extended")
_DOWN_VERBS = (r"cut|cuts|cutting|reduced|reduce|reduces|lowered|lower|lowers|dropped|drop|drops|decreased|"
               r"decrease|fell|fallen|falls|slashed|slash|trimmed|trim|shrank|shrunk")
_MOVE_VERBS = (r"put|putting|puts|went|gone|goes|go|going|is|was|are|were|been|come|came|comes|brought|bring|brings|"
               r"bringing|got|get|gets|getting")
_MOVE = re.compile(_MOVE_VERBS, re.IGNORECASE)
# A change wished for or weighed, not made: "I need 2 more hours of sleep", "we could cut it by 10".
_WISH = re.compile(r"\b(?:need|needs|want|wants|wish|hope|hoping|would|should|could|might|if)\b", re.IGNORECASE)


@dataclass(frozen=True)
class _Way:
    """One way of saying how far an amount moved. `direction` is "up", "down" or the name of the group whose
    word says it; `pay`: the thing is the speaker's pay ("a 4k raise"); `before`: the thing is said before the
    match ("the cloud bill dropped by $800"), else in the `thing` group."""

    pattern: re.Pattern[str]
    direction: str
    pay: bool = False
    before: bool = False


def _way(regex: str, direction: str, **kw) -> _Way:
    return _Way(re.compile(regex, re.IGNORECASE), direction, **kw)


_WAYS = (
    # "a 4k raise", "a 200 euro pay rise", "a 10% pay cut"
    _way(rf"\b(?:a|an)\s+{_NUM}{_UNIT}\s+(?:pay\s+)?(?P<dir>raise|rise|bump|increase|hike|cut|reduction)\b",
         "dir", pay=True),
    # "raise of 200 euro", "a pay cut of 5k"
    _way(rf"\b(?:pay\s+)?(?P<dir>raise|rise|bump|hike|cut)\s+of\s+{_NUM}{_UNIT}", "dir", pay=True),
    # "lost 4 kg", "put on 2 kilos"
    _way(rf"\b(?P<dir>lost|lose|losing|gained|gain|gaining|put on|shed|dropped)\s+{_NUM}\s*"
         r"(?P<unit>kg|kgs|kilos?|lbs?|pounds|stone)\b", "dir"),
    # "added 3 pounds to the ticket price", "knocked 5 dollars off my phone plan"
    _way(rf"\b(?P<dir>added|adding|add|adds|knocked|knocking|knock|knocks|shaved|shaving|shave|shaves|took|taking|"
         rf"take|takes|taken)\s+{_NUM}{_UNIT}(?:\s+[\w-]+)?\s+(?:to|onto|on|off)\s+(?P<thing>.+)", "dir"),
    # "put the rent up by 75", "cut my screen time by 2 hours", "raised my savings goal by 1000 euros"
    _way(rf"\b(?P<dir>{_UP_VERBS}|{_DOWN_VERBS}|{_MOVE_VERBS})\s+(?P<thing>(?:[\w'-]+\s+){{1,4}}?)"
         rf"(?:(?P<adv>up|down)\s+)?by\s+(?:another\s+|a further\s+)?{_NUM}{_UNIT}", "dir"),
    # "the cloud bill dropped by $800", "rents gone up by 50 quid", "netflix went up 2 euros"
    _way(rf"\b(?P<dir>{_UP_VERBS}|{_DOWN_VERBS})\s+by\s+(?:another\s+|a further\s+)?{_NUM}{_UNIT}", "dir",
         before=True),
    _way(rf"\b(?:{_MOVE_VERBS})\s+(?P<adv>up|down)\s+(?:by\s+)?(?:another\s+|a further\s+)?{_NUM}{_UNIT}", "adv",
         before=True),
    # "another 3000 miles", "an extra 50 a month"
    _way(rf"\b(?:another|an extra|an additional|a further)\s+{_NUM}{_UNIT}(?:\s+(?P<thing>[\w-]+(?:\s+[\w-]+)?))?",
         "up"),
    # "3 more people", "15 dollars more per hour", "30 new subscribers", "2 fewer meetings", "5 cheaper"
    _way(rf"\b{_NUM}{_UNIT}\s+(?P<dir>more|extra|new|less|fewer|cheaper|dearer|pricier|longer|shorter)\b"
         r"(?:\s+(?P<thing>[\w-]+(?:\s+[\w-]+){0,2}))?", "dir"),
)
_UP_WORDS = re.compile(rf"^(?:{_UP_VERBS}|up|more|extra|new|dearer|pricier|longer|added|adding|add|adds|gained|gain|"
                       r"gaining|put on)$", re.IGNORECASE)
# "5 cheaper than my gym", "2 years older than me": said in comparison with another thing.
_COMPARISON = re.compile(rf"\b{_NUM}{_UNIT}\s+(?:more|less|fewer|\w+er)\s+than\b", re.IGNORECASE)
# What a memory about one's pay says: "User earns 48k", "User's salary is 3000 euro per month".
_PAY_WORDS = frozenset({"earn", "salary", "pay", "paid", "wag", "incom", "mak"})


@dataclass(frozen=True)
class Delta:
    """How far an amount moved, as a clause says it."""

    amount: float  # how far, never negative
    said: str  # the number as said ("4k", "$800", "two")
    up: bool
    unit: str | None  # the word the number counts in, lowercased ("kg", "euros"), if said
    thing: str  # the words the change is said of ("the rent", "my step goal"), may be ""
    pay: bool = False  # said as a raise or a pay cut: the thing is the speaker's pay


def compares(clause: str) -> bool:
    """Does the clause say an amount in comparison with something else ("the pool is 5 cheaper than my gym")?"""
    return bool(_COMPARISON.search(clause))


def find(clause: str) -> Delta | None:
    """The change of an amount the clause says, or None (also for a comparison, "5 cheaper than my gym", and a
    wish, "I need 2 more hours of sleep")."""
    if compares(clause) or _WISH.search(clause):
        return None
    for way in _WAYS:
        match = way.pattern.search(clause)
        if match is None:
            continue
        amount = _number(match["n"])
        if amount is None:
            continue
        groups = match.groupdict()
        if groups.get("adv"):
            up = groups["adv"].casefold() == "up"
        elif way.direction in ("up", "down"):
            up = way.direction == "up"
        elif _MOVE.fullmatch(groups["dir"]):
            continue  # "put the rent by 50", "is by 5": no direction said
        else:
            up = bool(_UP_WORDS.match(groups["dir"]))
        thing = clause[:match.start()] if way.before else (groups.get("thing") or "")
        return Delta(amount=amount, said=match["n"], up=up, unit=(groups.get("unit") or "").casefold() or None,
                     thing=_thing(thing, before=way.before), pay=way.pay)
    return None


def _number(said: str) -> float | None:
    word = said.casefold()
    if word in _WORD_NUMBERS:
        return float(_WORD_NUMBERS[word])
    bare = word.lstrip("$€£").replace(",", "")
    scale = 1000.0 if bare.endswith("k") else 1.0
    try:
        return float(bare.rstrip("k")) * scale
    except ValueError:
        return None


def _thing(words: str, *, before: bool) -> str:
    words = words.strip()
    if before:
        # the last noun phrase before the change: "after the rate rise the mortgage payment" -> "mortgage payment"
        words = re.split(r"[,;:!?]", words)[-1].strip()
        parts = _DETERMINER.split(words)
        words = parts[-1] if parts[-1].strip() else words
        return " ".join(words.split()[-3:])
    words = _LEADING.sub("", words)
    return _THING_END.sub("", words).strip()


# One amount in a memory: "1200", "$3,000", "48k", "8000 steps" (not a version, a year after "in", a time).
_AMOUNT = re.compile(r"(?<![\w.,:/-])(?P<cur>[$€£])?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?P<k>k)?"
                     r"(?![\w:/]|[.,]\d)(?:\s*(?P<unit>[a-zA-Z%][\w%-]*))?")
_TIME_UNITS = {"hourly": "hour", "daily": "day", "weekly": "week", "monthly": "month", "yearly": "year",
               "nightly": "night"}


def _amounts(text: str) -> list[re.Match[str]]:
    out = []
    for m in _AMOUNT.finditer(text):
        unit = (m["unit"] or "").casefold()
        if unit in ("am", "pm", "st", "nd", "rd", "th", "o'clock") or re.search(r"\b(?:in|since|until)\s+$",
                                                                                  text[:m.start()]):
            continue  # a time of day, a day of the month, a year
        out.append(m)
    return out


# Short and long names of one unit: "kilos" is "kg".
_SAME_UNIT = {"kilo": "kg", "kilos": "kg", "kgs": "kg", "kilogram": "kg", "kilograms": "kg", "hrs": "hour",
              "hr": "hour", "mins": "minut", "min": "minut", "secs": "second", "sec": "second", "kms": "km",
              "kilometer": "km", "kilometre": "km", "kilometers": "km", "kilometres": "km", "lbs": "lb"}


def _stems(text: str) -> list[str]:
    return [_TIME_UNITS.get(w, _SAME_UNIT.get(w, w)) for w in textlib.tokenize(text)]


def _unit_fits(old_unit: str, delta: Delta) -> bool:
    if delta.unit is None or delta.unit == "%" or delta.unit == "percent":
        return delta.unit is None  # a percentage may be of the amount or points of it: not guessed
    if delta.unit in _CURRENCY:
        return not old_unit or old_unit in _CURRENCY
    return _stems(delta.unit) == _stems(old_unit) if old_unit else False


def apply(old_text: str, delta: Delta) -> tuple[str, str] | None:
    """(the old memory's sentence with its amount moved, the new amount as written), or None when the memory
    holds no single plain amount the change fits ("User's blood pressure is 150 over 95", "80 kg" moved by 10
    cents)."""
    found = _amounts(old_text)
    if len(found) != 1:
        return None
    m = found[0]
    old_unit = (m["unit"] or "").casefold()
    old_unit = old_unit if re.fullmatch(_UNITS, old_unit) else ""
    if not _unit_fits(old_unit, delta):
        # "10 cents" does not move "900 a month"; "4 kg" moves "80 kg"; "2 hours" moves "5 hours a day"
        return None
    old = float(m["num"].replace(",", "")) * (1000.0 if m["k"] else 1.0)
    new = old + delta.amount if delta.up else old - delta.amount
    if new < 0:
        return None
    if m["k"]:
        number = f"{new / 1000:g}k"
    else:
        decimals = len(m["num"].split(".")[1]) if "." in m["num"] else 0
        number = f"{new:,.{decimals}f}" if "," in m["num"] else f"{new:.{decimals}f}"
    written = f"{m['cur'] or ''}{number}"
    return old_text[:m.start()] + written + old_text[m.end("k") if m["k"] else m.end("num"):], written


def same_thing(old_text: str, delta: Delta) -> bool:
    """Is the memory about what the change is said of? A raise is of one's pay; otherwise the memory shares a word
    of the thing (or the unit of measure counted), and every qualifier the thing puts before a shared word is the
    memory's too: "the design team" is not "Our team", "the GCP bill" not "Our AWS bill"."""
    old = set(_stems(old_text))
    if delta.pay:
        return bool(old & _PAY_WORDS)
    thing = [w for w in _stems(delta.thing) if not re.search(r"\d", w)]
    unit = [] if delta.unit is None or delta.unit in _CURRENCY else _stems(delta.unit)
    if not (set(thing) | set(unit)) & old:
        return False
    for before, word in zip(thing, thing[1:]):
        if word in old and before not in old:
            return False
    return True
