"""Updates worded in ways no slot rule was written for, end to end on the real engine (SQLite, Chroma, MiniLM).
Our own sentences (a probe written before the open-world rules they exercise), not evaluation cases: the old
fact must be gone from recall and the new one served first."""
from __future__ import annotations

import pytest

from engine import MemoryEngine, Settings

pytestmark = pytest.mark.integration

UPDATES = [
    # (messages, question, expected in the top hit, the old fact's words that must not be served)
    (["Our sprint length is two weeks.", "We went to one-week sprints."], "how long are our sprints?",
     "one-week", "two weeks"),
    (["The book club meets monthly.", "Book club is every two weeks now."], "how often does book club meet?",
     "two weeks", "monthly"),
    (["Our staging server runs Ubuntu 20.04.", "Staging is on Ubuntu 24.04 after the upgrade."],
     "what OS does staging run?", "24.04", "20.04"),
    (["My mom lives in Leeds.", "Mum moved down to Bristol to be closer to us."], "where does my mom live?",
     "Bristol", "Leeds"),
    (["My salary is 60k.", "Got a raise, I'm on 68k now."], "what's my salary?", "68k", "60k"),
    (["The deploy freeze starts on the 15th.", "Freeze got pushed to the 20th."],
     "when does the deploy freeze start?", "20th", "15th"),
    (["My car is a 2012 Golf.", "Traded the Golf in for a Model 3."], "what car do I drive?", "Model 3", "2012 Golf"),
    (["I drink three coffees a day.", "Down to one coffee a day."], "how much coffee do I drink?", "one coffee",
     "three coffees"),
    # a name said with a cue, near in meaning to the one memory holding a name, no topic word shared (rule 9)
    (["I back up my photos to Google Photos.", "All my pictures sync to iCloud now."],
     "where are my photos backed up?", "iCloud", "Google Photos"),
    # "a new <role>, <Name>" names who holds the role now, in another word for it
    (["My manager is Helen.", "The team is 6 people.", "We got a new boss this week, Marcus, seems decent."],
     "who's my boss?", "Marcus", "Helen"),
    # told in passing: a well-known value of the old one's kind, the change said with a reason beside it
    (["My browser is Chrome.", "gave firefox a real go after the extension drama, not going back to chrome"],
     "which browser do I use?", "firefox", "browser is Chrome"),
    (["I'm pescatarian and also gluten-free.", "I'm keto now."], "what diet am I on?", "keto", "pescatarian"),
    (["My insurer is Aviva.", "Moved the car insurance over to Admiral, Aviva wanted 300 more"],
     "who is my insurer?", "Admiral", "insurer is Aviva"),
    (["My physio is Mr. Grant.", "the clinic changed hands, new physio is a lady called Hanne"],
     "who is my physio?", "Hanne", "Grant"),
    # no word shared: one's home, one way to work, a plan's level, a thing that died, a thing gone off
    (["I live with two flatmates in Hackney.", "got a studio flat in Peckham, moving in went fine"],
     "where do I live?", "Peckham", "Hackney"),
    (["I get the train to work.", "switched to cycling to work, the fares went up again"],
     "how do I get to work?", "cycling", "train"),
    (["We're on the free tier of Figma.", "bumped figma up to professional for the new hires"],
     "what figma plan are we on?", "professional", "free tier"),
    (["My phone is a Pixel 7.", "the pixel is dead, using my partner's old iphone for now"],
     "what phone do I have?", "iphone", "Pixel 7"),
    (["My go-to snack is crisps.", "been on rice cakes lately, crisps got too greasy"],
     "what's my go-to snack?", "rice cakes", "snack is crisps"),
    # an ending, then what holds instead, in one message: the second replaces the first
    (["My piano teacher is Mrs. Lee.", "quit lessons with mrs lee, I learn with a teacher called Omar now"],
     "who is my piano teacher?", "Omar", "Lee"),
    (["My boyfriend is Sam.", "sam and I broke up, I'm seeing Chris now"], "who am I dating?", "Chris", "Sam"),
    (["Our telly is an old Panasonic.", "got rid of the old tv at last!! the new one is a huge LG OLED"],
     "what TV do we have?", "LG", "Panasonic"),
    # said in a second language: a change verb in its base form with a past time (extraction/second_language.py)
    (["My broadband is with Virgin.", "last month we change to Sky, was more cheap"], "who is our broadband with?",
     "Sky", "Virgin"),
    # ... or by the same word, as the old one
    (["My laptop is a ThinkPad X1.", "sold the old laptop. my new one is a MacBook Air"], "what laptop do I have?",
     "MacBook", "old laptop"),
    (["I'm on 40mg of omeprazole.", "my GP moved me down to 20mg"], "how much omeprazole do I take?", "20mg", "40mg"),
    # a time of day said in words; an amount with when it holds; a birthday said by its number
    (["I train at 6am.", "moved my training to lunchtimes, mornings were killing me"], "when do I train?",
     "lunchtimes", "6am"),
    (["My rent is 1200 a month.", "landlord wants 1350 from next month, ugh"],
     "how much is my rent?", "1350", "1200"),
    (["I'm 34.", "just had my 35th birthday party"], "how old am I?", "35", "34"),
    # a thing named by its bare name, changed into another of what the memory says it has
    (["I'm on the free plan of Notion.", "upgraded notion to the plus plan"], "which notion plan am I on?", "plus",
     "free plan"),
    # an amount in a unit of measure with no thing of its own: what the memory in that unit measures
    (["I weigh 80kg.", "I run 10km on Sundays.", "down to 74kg after the diet"], "how much do I weigh?", "74kg",
     "80kg"),
    (["I cycle to work twice a week.", "with the new baby I'm down to cycling in once a week"],
     "how often do I cycle to work?", "once a week", "twice"),
]


@pytest.mark.parametrize("messages, question, expected, old", UPDATES, ids=[u[1] for u in UPDATES])
def test_an_update_in_other_words_replaces_the_fact(engine, messages, question, expected, old):
    for message in messages:
        engine.ingest(message, user_id="u")
    hits = engine.recall(question, user_id="u").hits
    # a name typed in lower case is stored capitalised (extraction/casing.py): the words, not their case, are pinned
    assert hits and expected.casefold() in hits[0].memory.text.casefold(), [h.memory.text for h in hits]
    assert not any(old.casefold() in h.memory.text.casefold() for h in hits), [h.memory.text for h in hits]


def test_a_replacement_said_as_a_story_is_kept_under_the_name_of_what_it_replaced(engine):
    # no one new value to restate the old memory with: the user's words stay, named as what they replaced
    engine.ingest("My climbing gym is The Arch.", user_id="u")
    result = engine.ingest("let the arch membership lapse, joined the bouldering place by the station instead",
                           user_id="u")
    assert result.status == "superseded"
    assert result.memories[0].text.startswith("User's climbing gym: ")
    hits = engine.recall("which climbing gym do I go to?", user_id="u").hits
    assert hits and "bouldering" in hits[0].memory.text, [h.memory.text for h in hits]


def test_a_bare_value_between_two_candidates_replaces_neither(engine):
    engine.ingest("I work 40 hours a week.", user_id="u")
    engine.ingest("I sleep about 6 hours a night.", user_id="u")
    result = engine.ingest("Getting a solid 8 hours these days.", user_id="u")
    assert result.superseded_ids == []


def test_a_tool_for_a_purpose_is_replaced_by_the_next_one_for_it(engine):
    first = engine.ingest("I use Notion for notes.", user_id="u")
    result = engine.ingest("moved all my notes to Obsidian", user_id="u")
    assert first.memories[0].id in result.superseded_ids


def test_tools_for_work_accumulate(engine):
    engine.ingest("I use Trello for work.", user_id="u")
    result = engine.ingest("I use Slack for work.", user_id="u")
    assert result.superseded_ids == []


# Things said beside each other that share words but are not one fact said twice: none replaces the other.
SIDE_BY_SIDE = [
    ("We use Postgres for the main app.", "We use Redis for caching."),
    ("I work with Tom on the API.", "I work with Sara on the mobile app."),
    ("I went to a concert with Mel last week.", "I went to a museum with Jon on Sunday."),
    ("I bought a Kindle in March.", "I bought a Switch in July."),
    # one more way to work, said as one more; a second home; a complaint about what one keeps
    ("I drive to work.", "I also cycle to work on Fridays."),
    ("I live in Madrid.", "we have a little beach house in Cadiz"),
    ("I'm learning Spanish.", "Spanish grammar got too hard lately but I keep going"),
]


# Said with an update cue, yet no update of the fact before it: an addition, someone else's, a wish, another
# thing of the kind, a one-off. Rule 9 (a cued value replaces the nearest memory of its kind) must leave them.
CUED_BESIDE = [
    ("I use Figma for design.", "We now also use Miro for workshops."),
    ("I bank with Monzo.", "My sister switched to Revolut now."),
    ("My dentist is Dr Okafor.", "My husband sees Dr Reyes now for his teeth."),
    ("I work at Deloitte.", "Thinking about moving to Accenture next year."),
    ("I live in Leeds.", "My parents moved to York now that dad retired."),
    ("We host the blog on Netlify.", "The new client site lives on Vercel."),
    ("Standup is at 9:30.", "Lunch moved to 12:30 now."),
    # a word that only begins like a cue ("newsletter") is none; watching a thing somewhere is no new favourite
    ("My email is priya.k@proton.me", "I made a throwaway email for newsletter signups."),
    ("My favourite TV show is Succession.", "I watch on Now TV."),
    # "sorry" after a state is an apology, not a correction of the last thing said
    ("Our standup is at 9:30.", "Running late, sorry"),
    ("My dentist is Dr. Patel.", "Stuck in traffic, sorry!"),
]


@pytest.mark.parametrize("first, second", CUED_BESIDE, ids=[s[1] for s in CUED_BESIDE])
def test_a_cued_fact_about_something_else_replaces_nothing(engine, first, second):
    engine.ingest(first, user_id="u")
    assert engine.ingest(second, user_id="u").superseded_ids == []


@pytest.mark.parametrize("first, second", SIDE_BY_SIDE, ids=[s[1] for s in SIDE_BY_SIDE])
def test_facts_side_by_side_replace_nothing(engine, first, second):
    engine.ingest(first, user_id="u")
    assert engine.ingest(second, user_id="u").superseded_ids == []


# A value of the same thing said again without any update word ("Dentist appointment: the 9th.").
UNCUED = [
    (["The dentist appointment is on the 5th.", "Dentist appointment: the 9th."], "when is the dentist appointment?",
     "9th", "5th"),
    (["My landlord is Mr. Hughes.", "The flat's landlord is Ms. Adeyemi."], "who is my landlord?", "Adeyemi",
     "Hughes"),
    (["I go to bed around midnight.", "I go to bed at 10:30."], "when do I go to bed?", "10:30", "midnight"),
    # a role held once, filled again in a verb; where one's own thing is kept, said actively or passively
    (["My bank is Monzo.", "I bank with Starling."], "which bank am I with?", "Starling", "Monzo"),
    (["My gym is PureGym.", "I train at The Gym Group."], "which gym do I go to?", "Gym Group", "PureGym"),
    (["I keep my passwords in 1Password.", "I keep my passwords in Bitwarden."], "where do I keep my passwords?",
     "Bitwarden", "1Password"),
    (["The docs are hosted on GitBook.", "We host the docs on Netlify."], "where are the docs hosted?", "Netlify",
     "GitBook"),
]


@pytest.mark.parametrize("messages, question, expected, old", UNCUED, ids=[u[1] for u in UNCUED])
def test_a_value_said_again_without_a_cue_replaces_the_fact(engine, messages, question, expected, old):
    test_an_update_in_other_words_replaces_the_fact(engine, messages, question, expected, old)


def test_two_things_of_one_kind_stay_two(engine):
    engine.ingest("Our staging server is in Frankfurt.", user_id="u")
    assert engine.ingest("Our production server is in Dublin.", user_id="u").superseded_ids == []


def test_facts_near_a_role_leave_it_alone(engine):
    engine.ingest("My landlord is Mr. Hughes.", user_id="u")
    assert engine.ingest("I rent a garage from Mr. Cole.", user_id="u").superseded_ids == []
    engine.ingest("My car is a Golf.", user_id="u")
    assert engine.ingest("I want a Tesla.", user_id="u").superseded_ids == []


def test_a_change_understood_in_its_own_slot_is_stored_as_the_fact(engine):
    engine.ingest("We deploy the app on Heroku.", user_id="u")
    result = engine.ingest("Migrated to Render yesterday.", user_id="u")
    assert result.superseded_ids and result.memories[0].text == "User deploys the app on Render."


@pytest.mark.parametrize("message", ["Sold the Golf, my neighbour bought it", "Sold the Golf. It was a great car"])
def test_what_follows_an_ending_about_something_else_stays_beside(engine, message):
    """What the next clause says of someone or something else is not what holds instead of the car."""
    engine.ingest("I drive a Golf.", user_id="u")
    result = engine.ingest(message, user_id="u")
    ended, other = result.memories
    assert result.superseded_ids == [1] and ended.supersedes == 1 and other.supersedes is None
    assert {m.id for m in engine.list_memories(user_id="u")} >= {ended.id, other.id}


@pytest.mark.parametrize("old, message, question, expected, gone", [
    ("My accountant is Sue Marsh.", "the accountant retired last spring, we use Kim Doyle now",
     "who is our accountant?", "Kim Doyle", "Sue Marsh"),
    ("Our choir rehearses on Wednesdays.", "choir lost the church hall, it's Saturdays now",
     "when does our choir rehearse?", "Saturdays", "Wednesdays"),
])
def test_a_value_said_of_the_thing_in_the_clause_before_replaces_it(engine, old, message, question, expected, gone):
    engine.ingest(old, user_id="u")
    result = engine.ingest(message, user_id="u")
    assert result.status == "superseded", [t.reason for t in result.trace]
    active = [m.text for m in engine.list_memories(user_id="u")]
    assert any(expected in t for t in active) and not any(gone in t for t in active), active
    hits = engine.recall(question, user_id="u").hits
    assert not any(gone in h.memory.text for h in hits), [h.memory.text for h in hits]


@pytest.mark.parametrize("old, message, question, expected, gone", [
    ("Our choir rehearses at the church hall.", "the hall roof is leaking so we rehearse at the scout hut now",
     "where does our choir rehearse?", "scout hut", "church hall"),
    ("I order my veg box from Riverford.", "too much packaging, I order it from Abel & Cole now",
     "where do I order my veg box from?", "Abel & Cole", "Riverford"),
    ("My broadband is with Virgin.", "broadband renewal was a joke, I'm with Sky this year",
     "who is my broadband with?", "Sky", "Virgin"),
])
def test_a_change_said_in_the_old_frame_replaces_it(engine, old, message, question, expected, gone):
    engine.ingest(old, user_id="u")
    result = engine.ingest(message, user_id="u")
    assert result.status == "superseded", [t.reason for t in result.trace]
    active = [m.text for m in engine.list_memories(user_id="u")]
    assert any(expected in t for t in active) and not any(gone in t for t in active), active
    hits = engine.recall(question, user_id="u").hits
    assert hits and expected in hits[0].memory.text, [h.memory.text for h in hits]


@pytest.mark.parametrize("old, message", [
    ("Our choir rehearses at the church hall.", "my band rehearses at the scout hut now"),  # another thing
    ("My brother works at Arup.", "I work at Atkins now"),  # another person
    ("My broadband is with Virgin.", "I'm with Sam now, we met at work"),  # the thing is never named
    # the new value is another thing's, said after a part about the old one
    ("Our retro is at 4pm on Fridays.", "retro dragged on forever today, dinner is at 8 now"),
])
def test_the_old_frame_about_another_thing_stays(engine, old, message):
    engine.ingest(old, user_id="u")
    result = engine.ingest(message, user_id="u")
    assert result.superseded_ids == [], [t.reason for t in result.trace]


@pytest.mark.parametrize("messages, question, expected, gone", [
    (["Our gym membership is 42 pounds a month.", "ugh they put it up to 49 pounds"],
     "how much is our gym membership?", "49", "42 pounds"),
    (["Maya's ballet class is at 5:15 on Tuesdays.", "Maya got a gold star today!", "they moved it to 6pm though"],
     "what time is Maya's ballet?", "6pm", "5:15"),
    (["My cousin lives in Bristol.", "he moved to Exeter in the end, new job"], "where does my cousin live?",
     "Exeter", "Bristol"),
])
def test_a_change_pointing_back_replaces_the_newest_fact_of_its_kind(engine, messages, question, expected, gone):
    for message in messages[:-1]:
        engine.ingest(message, user_id="u")
    result = engine.ingest(messages[-1], user_id="u")
    assert result.status == "superseded", [t.reason for t in result.trace]
    active = [m.text for m in engine.list_memories(user_id="u")]
    assert not any(gone in t for t in active), active
    hits = engine.recall(question, user_id="u").hits
    assert hits and expected in hits[0].memory.text, [h.memory.text for h in hits]


@pytest.mark.parametrize("messages", [
    ["Our standup is at 9:30.", "My dentist is Dr. Shah.", "Sam's party was great.", "they moved it to 10"],  # too far
    ["Our standup is at 9:30.", "it's 5pm now, heading home"],  # a clock, not a change
    ["My bank is Monzo.", "it's at the Ritz this time, dress up"],  # one occasion
])
def test_a_pointer_with_nothing_to_point_back_to_replaces_nothing(engine, messages):
    for message in messages[:-1]:
        engine.ingest(message, user_id="u")
    result = engine.ingest(messages[-1], user_id="u")
    assert result.superseded_ids == [], [t.reason for t in result.trace]


@pytest.mark.parametrize("messages", [
    ["My boyfriend is Sam.", "sam and I broke up, I'm seeing Chris now"],  # found by meaning (rule 6), then in place
    ["I back up my photos to Google Photos.", "All my pictures sync to iCloud now."],  # rule 9, by meaning
    ["I live in Oslo.", "I moved to Lisbon."],  # the slot
])
def test_one_batch_keeps_what_one_message_at_a_time_keeps(tmp_path, embedder, messages):
    """ingest_many writes its batch in one transaction and gives the vector index its memories after the commit:
    the batch's later messages must still find the earlier ones by meaning."""
    kept = []
    for where, batched in (("one", False), ("many", True)):
        engine = MemoryEngine(Settings(data_dir=tmp_path / where), embedder=embedder)
        try:
            if batched:
                engine.ingest_many(messages, user_id="u")
            else:
                for message in messages:
                    engine.ingest(message, user_id="u")
            kept.append(sorted(m.text for m in engine.list_memories(user_id="u")))
        finally:
            engine.close()
    assert kept[0] == kept[1]
    assert len(kept[1]) == 1, kept[1]


@pytest.mark.parametrize("standing, exception, question, expected", [
    # each of these but the first replaced the standing fact before rule 0
    ("I normally cycle to the office.", "The bike's in for repair so I'm taking the tram until Thursday.",
     "how do I usually get to the office?", "cycle"),
    ("We meet at the Crown on Thursdays.", "we're meeting at the Swan instead this week",
     "where do we meet on Thursdays?", "Crown"),
    ("I usually catch the 7:40 bus.", "strikes, so I'm catching the 6:55 bus instead until Friday",
     "which bus do I normally catch?", "7:40"),
    ("Standup is at 9:30.", "standup is at 11 this week instead, sprint review clash", "when is standup?", "9:30"),
    ("I park on Level 2.", "parking on Level 4 for the next few days, level 2 is being painted",
     "where do I park?", "Level 2"),
    ("My yoga class is on Mondays.", "yoga's on Wednesday instead this week", "what day is my yoga class?",
     "Mondays"),
])
def test_a_value_said_for_a_while_sits_beside_the_standing_fact(engine, standing, exception, question, expected):
    engine.ingest(standing, user_id="u")
    result = engine.ingest(exception, user_id="u")
    assert result.superseded_ids == [], [t.reason for t in result.trace]
    hits = engine.recall(question, user_id="u").hits
    assert hits and expected in hits[0].memory.text, [h.memory.text for h in hits]


@pytest.mark.parametrize("switch, old, message, status", [
    ({"clause_before_floor": None}, "My accountant is Sue Marsh.",
     "the accountant retired last spring, we use Kim Doyle now", "created"),  # rule 11 off
    ({"frame_updates": False}, "Our choir rehearses at the church hall.", "we rehearse at the scout hut now",
     "created"),  # rule 12 off
    ({"pointing_back_messages": 0}, "Maya's ballet class is at 5:15 on Tuesdays.", "they moved it to 6pm though",
     "created"),  # rule 13 off
    ({"for_a_while_beside": False}, "We meet at the Crown on Thursdays.",
     "we're meeting at the Swan instead this week", "superseded"),  # rule 0 off: the rules below pair them
])
def test_a_rule_turns_off(tmp_path, embedder, switch, old, message, status):
    engine = MemoryEngine(Settings(data_dir=tmp_path, **switch), embedder=embedder)
    try:
        engine.ingest(old, user_id="u")
        result = engine.ingest(message, user_id="u")
        assert result.status == status, [t.reason for t in result.trace]
    finally:
        engine.close()
