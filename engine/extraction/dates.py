"""Relative dates resolved against when the message was said: "tomorrow" in a message of Wednesday
11 March 2026 is stored as "on Thursday 12 March 2026", so a later "when is it?" answers with a date.

Pure: text and a datetime in, text out. Conventions: "this Friday" and "next Friday" are the
coming Friday (today counts for "this"), "last Friday" the most recent one before today;
"next/last month" and "next/last year" are resolved to a month or a year, never to a day.
"""
from __future__ import annotations

import re
from datetime import date, datetime, timedelta

_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"]
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "a few": 3}
_COUNT = r"(?P<n>\d{1,3}|a couple of|a few|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_UNIT = r"(?P<unit>days?|weeks?)"
# A preposition that already says how the date relates ("by Friday"): no "on" is added after it.
_PREPOSITION = r"(?P<prep>\b(?:by|until|till|before|after|from|since|on)\s+)?"

_PATTERNS = [
    ("day_after_tomorrow", rf"{_PREPOSITION}\bthe day after tomorrow\b"),
    ("day_before_yesterday", rf"{_PREPOSITION}\bthe day before yesterday\b"),
    ("ago_today", rf"{_PREPOSITION}\b{_COUNT}\s+{_UNIT}\s+ago(?:\s+today)?\b"),
    ("in_count", rf"\bin\s+{_COUNT}\s+{_UNIT}(?:'?\s*time)?\b"),
    ("weekday", rf"{_PREPOSITION}\b(?P<which>this|next|last|this coming|coming)\s+(?P<day>{'|'.join(_WEEKDAYS)})\b"),
    ("tomorrow", rf"{_PREPOSITION}\btomorrow\b"),
    ("yesterday", rf"{_PREPOSITION}\byesterday\b"),
    ("today", rf"{_PREPOSITION}\b(?:today|tonight)\b"),
    ("month", r"\b(?P<which>next|last|this coming)\s+month\b"),
    ("year", r"\b(?P<which>next|last)\s+year\b"),
]
_REGEX = re.compile("|".join(f"(?P<{name}>{pattern.replace('?P<', f'?P<{name}_')})" for name, pattern in _PATTERNS),
                    re.IGNORECASE)


def _count(words: str) -> int:
    words = words.lower()
    return int(words) if words.isdigit() else _NUMBERS[words]


def _day(d: date) -> str:
    return f"{_WEEKDAYS[d.weekday()].capitalize()} {d.day} {_MONTHS[d.month - 1]} {d.year}"


def _month_shift(d: date, months: int) -> str:
    index = d.year * 12 + d.month - 1 + months
    return f"{_MONTHS[index % 12]} {index // 12}"


def _replace(kind: str, groups: dict[str, str | None], today: date) -> str:
    def g(name: str) -> str | None:
        return groups.get(f"{kind}_{name}")

    prep = g("prep")
    on = prep if prep else "on "
    if kind in ("tomorrow", "yesterday", "today", "day_after_tomorrow", "day_before_yesterday"):
        shift = {"tomorrow": 1, "yesterday": -1, "today": 0, "day_after_tomorrow": 2, "day_before_yesterday": -2}[kind]
        return on + _day(today + timedelta(days=shift))
    if kind in ("ago_today", "in_count"):
        days = _count(g("n")) * (7 if g("unit").lower().startswith("week") else 1)
        return (on if kind == "ago_today" else "on ") + _day(today + timedelta(days=-days if kind == "ago_today" else days))
    if kind == "weekday":
        target = _WEEKDAYS.index(g("day").lower())
        which = g("which").lower()
        if which == "last":
            back = (today.weekday() - target) % 7 or 7
            return on + _day(today - timedelta(days=back))
        ahead = (target - today.weekday()) % 7
        if ahead == 0 and which != "this":
            ahead = 7
        return on + _day(today + timedelta(days=ahead))
    if kind == "month":
        return "in " + _month_shift(today, -1 if g("which").lower() == "last" else 1)
    if kind == "year":
        return f"in {today.year + (-1 if g('which').lower() == 'last' else 1)}"
    raise ValueError(f"no date rule for {kind!r}")  # unreachable: every alternative of _REGEX is handled above


def resolve_relative_dates(text: str, when: datetime | None) -> str:
    """The text with each relative date said at `when` written as a calendar date (or month, or year)."""
    if when is None:
        return text
    today = when.date()

    def sub(m: re.Match[str]) -> str:
        kind = m.lastgroup if m.lastgroup in dict(_PATTERNS) else next(k for k, _ in _PATTERNS if m.group(k))
        return _replace(kind, m.groupdict(), today)
    return _REGEX.sub(sub, text)


def parse_timestamp(timestamp: str | None) -> datetime | None:
    """A message timestamp (ISO 8601) as a datetime; None when absent or not a date."""
    if not timestamp:
        return None
    try:
        return datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return None
