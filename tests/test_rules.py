"""The rule table: every row's examples run through the whole extract() and must come from that row.

No model, no database: this tier runs in seconds.
"""
from fnmatch import fnmatch

import pytest

from engine.extraction import RULES, Rule, correct, extract, structured
from engine.extraction import handlers

pytestmark = pytest.mark.unit


def _example_params():
    for row in RULES:
        for i, (message, expected) in enumerate(row.examples):
            yield pytest.param(row, message, expected, id=f"{row.name}-{i}")


def test_every_rule_has_an_example():
    assert [row.name for row in RULES if not row.examples] == []


def test_rule_names_are_unique_and_not_reserved():
    names = [row.name for row in RULES]
    assert len(names) == len(set(names))
    assert not {"fallback", "correction", "structured", ""} & set(names)


@pytest.mark.parametrize("row, message, expected", list(_example_params()))
def test_rule_example(row, message, expected):
    produced = [c for c in extract(message) if c.rule == row.name]
    assert produced, f"{row.name} produced nothing for {message!r}: {extract(message)}"
    if isinstance(expected, tuple):
        assert expected in [(c.subject, c.attribute, c.value) for c in produced]
        declared = [a.strip() for a in row.attribute.split(",")]
        assert any(fnmatch(expected[1], pattern) for pattern in declared), (expected[1], row.attribute)
    else:
        assert expected in [c.text for c in produced]


def test_a_template_row_fills_its_template_from_the_value_group():
    row = Rule("commute", "commute", r"^i (?:commute|get to work) by\s+(?P<v>.+)", template="{S} commutes by {v}.")
    [found] = row.apply("I commute by bike now", "Maya", "Maya's")
    assert (found.attribute, found.value, found.text, found.rule) == ("commute", "bike", "Maya commutes by bike.", "commute")
    assert row.apply("I walk to work", "Maya", "Maya's") == []


def test_a_row_without_template_stores_the_clause_in_third_person():
    row = Rule("commute", "commute", r"^i (?:commute|get to work) by\s+(?P<v>.+)")
    [found] = row.apply("I commute by bike", "User", "User's")
    assert found.text is None  # extract() then voices the clause: "User commutes by bike."


@pytest.mark.parametrize("bad", [
    dict(template="{S} is {v}.", handler=handlers.name_intro),  # a handler decides the text itself
    dict(attribute="name, age"),  # a template row fills one slot
    dict(pattern=r"^x (?P<value>.+)"),  # a template row reads the "v" group
    dict(name="Has Spaces"),
])
def test_a_malformed_row_is_refused(bad):
    row = dict(name="x", attribute="name", pattern=r"^x (?P<v>.+)") | bad
    with pytest.raises(ValueError):
        Rule(**row)


def test_a_handler_that_finds_nothing_lets_the_next_rule_try():
    # "I'm Vegan" has the shape of a name introduction; name_intro declines and the diet row takes it.
    [c] = extract("I'm Vegan")
    assert (c.rule, c.attribute) == ("diet", "diet")


@pytest.mark.parametrize("row, message, expected", list(_example_params()))
def test_rows_are_anchored_at_the_start_of_the_clause(row, message, expected):
    # A row reads a clause from its start, so it never fires on the same words in mid-sentence.
    assert row.regex.search("zzq " + message) is None


def test_rule_of_a_clause_kept_as_a_note_is_fallback():
    [c] = extract("honestly the commute here is brutal but the coffee is great")
    assert (c.rule, c.understood) == ("fallback", False)


def test_rule_of_a_negated_fact_names_the_rule_and_the_negation():
    [c] = extract("I no longer use Vim")
    assert c.rule == "use (negated)"


def test_rule_of_an_elliptical_correction_and_what_it_becomes():
    [said] = extract("My dentist appointment is on Monday")
    [fix] = extract("oops, I meant Tuesday")
    assert (fix.rule, fix.elliptical) == ("correction", True)
    assert correct(said, fix).rule == "correction"


def test_rule_of_a_structured_fact():
    assert structured("user", "favorite color", "green", "preference").rule == "structured"
