"""Relative dates resolved against the message's timestamp (engine/extraction/dates.py): a table of
our own sentences, pure, no model. 2026-03-11 is a Wednesday."""
from __future__ import annotations

from datetime import datetime

import pytest

from engine.extraction.dates import resolve_relative_dates

WED = "2026-03-11T09:30:00"
pytestmark = pytest.mark.unit


@pytest.mark.parametrize("text, expected", [
    ("My dentist appointment is tomorrow.", "My dentist appointment is on Thursday 12 March 2026."),
    ("The parcel arrives the day after tomorrow", "The parcel arrives on Friday 13 March 2026"),
    ("I signed the lease yesterday", "I signed the lease on Tuesday 10 March 2026"),
    ("We painted the hall the day before yesterday", "We painted the hall on Monday 9 March 2026"),
    ("The plumber comes today", "The plumber comes on Wednesday 11 March 2026"),
    ("Dad's operation is in 10 days", "Dad's operation is on Saturday 21 March 2026"),
    ("the lease ends in two weeks", "the lease ends on Wednesday 25 March 2026"),
    ("My review is in a week", "My review is on Wednesday 18 March 2026"),
    ("I got my cast off 3 days ago", "I got my cast off on Sunday 8 March 2026"),
    ("we adopted the kitten a week ago today", "we adopted the kitten on Wednesday 4 March 2026"),
    ("The school play is this Friday", "The school play is on Friday 13 March 2026"),
    ("Book club meets next Monday", "Book club meets on Monday 16 March 2026"),
    ("I have to file it by this Friday", "I have to file it by Friday 13 March 2026"),
    ("I ran a half marathon last Sunday", "I ran a half marathon on Sunday 8 March 2026"),
    ("We're renovating the kitchen next month", "We're renovating the kitchen in April 2026"),
    ("I changed banks last month", "I changed banks in February 2026"),
    ("We married last year", "We married in 2025"),
    ("Our lease renews next year", "Our lease renews in 2027"),
    # no timestamp-relative words: untouched
    ("I work on Fridays", "I work on Fridays"),
    ("I have been learning Greek for two weeks", "I have been learning Greek for two weeks"),
])
def test_resolve_relative_dates(text, expected):
    assert resolve_relative_dates(text, datetime.fromisoformat(WED)) == expected


def test_year_and_month_boundaries():
    new_year_eve = datetime.fromisoformat("2026-12-31T22:10:00")
    assert resolve_relative_dates("The race is tomorrow", new_year_eve) == "The race is on Friday 1 January 2027"
    assert resolve_relative_dates("We move next month", new_year_eve) == "We move in January 2027"
    january = datetime.fromisoformat("2027-01-15T08:00:00")
    assert resolve_relative_dates("I left my job last month", january) == "I left my job in December 2026"


def test_no_timestamp_leaves_the_text_alone():
    assert resolve_relative_dates("The race is tomorrow", None) == "The race is tomorrow"
