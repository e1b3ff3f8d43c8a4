"""Question rewriting for recall: history cues, the third-person question, the statement it asks for."""
import pytest

from engine import questions

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("query, expected", [
    ("Where did I live before?", True), ("What editor did I use to have?", True),
    ("What was my original deadline?", True), ("Where do I live?", False), ("How old am I?", False),
    ("What's my first name?", False), ("What was my old rent?", True), ("How old is my daughter?", False),
    ("How old was I when I moved?", False),
    # "before" asks about the past at the end, or in a question said in the past; in the present it says when
    ("which phone did I have before the upgrade?", True), ("where were we hosted before hetzner", True),
    ("what do I have before bed?", False), ("what should I eat before a long run?", False),
    ("when do I walk the dog before work?", False),
])
def test_wants_history(query, expected):
    assert questions.wants_history(query) is expected


# The statement a question asks for: the input is the third-person question recall embeds; the output is the
# start of the sentence that would answer it, in the voice memories are stored in ("User ..."). None when the
# question has no such shape (an imperative, a fragment), so recall embeds the question alone.
@pytest.mark.parametrize("question, statement", [
    # wh + be + the user + rest
    ("What is the user making?", "User is making"),
    ("what was the user reading last summer", "User was reading last summer"),
    ("Where are the user's parents?", "User's parents are in"),
    ("Who is the user's dentist?", "User's dentist is"),
    ("What's the user's favourite band?", "User's favourite band is"),
    ("What are the user's kids called?", "User's kids are called"),
    # wh + do/does/did + the user + verb
    ("When does the user work out?", "User works out at"),
    ("Where does the user live?", "User lives in"),
    ("What does the user teach?", "User teaches"),
    ("Who does the user study with?", "User studies with"),
    ("What did the user buy for the trip?", "User bought for the trip"),
    ("When did the user adopt the dog?", "User adopted the dog on"),
    ("what did the user research", "User researched"),
    ("Where did the user go hiking?", "User went hiking in"),
    ("Why did the user quit the band?", "User quit the band because"),
    # a noun after the wh-word moves to the end of the statement
    ("What kind of music does the user play?", "User plays music"),
    ("How many kids does the user have?", "User has kids"),
    ("Which database does the user's team use?", "User's team uses database"),
    ("What time does the user start work?", "User starts work at"),
    # ... and a word before that noun stays with it
    ("What combat sport does the user do?", "User does combat sport"),
    ("Which programming language does the user prefer?", "User prefers programming language"),
    ("what musical hobby does the user have", "User has musical hobby"),
    # has/have + participle
    ("What has the user been building?", "User has been building"),
    ("Where has the user travelled?", "User has travelled in"),
    # yes/no questions
    ("Is the user vegan?", "User is vegan"),
    ("Does the user have a pet?", "User has a pet"),
    ("Did the user finish the marathon?", "User finished the marathon"),
    ("Has the user ever been to Japan?", "User has ever been to Japan"),
    ("Can the user speak Spanish?", "User can speak Spanish"),
    # "is there a ...": the kind the statement ends with
    ("is there a sport the user do?", "User does sport"),
    ("Is there a language the user is learning?", "User is learning language"),
    ("are there any apps the user use for budgeting", "User uses for budgeting apps"),
    ("is there a gym near the user?", None),
    # no question shape
    ("tell me about the user's job", None),
    ("the user's allergies", None),
    ("", None),
])
def test_as_statement(question, statement):
    assert questions.as_statement(question) == statement


# A question about how the assistant should behave asks for an instruction, stored as "User wants the
# assistant to ..." (extraction/requests.py): the statement says it that way.
@pytest.mark.parametrize("question, statement", [
    ("what should you call the user?", "User wants the assistant to call them"),
    ("What kind of books should you recommend to the user?", "User wants the assistant to recommend books to them"),
    ("what tone should you use with the user", "User wants the assistant to use tone with them"),
    ("how should you format your answers for the user?", "User wants the assistant to format its answers for them"),
    ("Should you use emoji with the user?", "User wants the assistant to use emoji with them"),
    ("which units must you use for the user's recipes?", "User wants the assistant to use units for their recipes"),
    ("what should the user call you?", "User should call the assistant"),
    ("what do you know about the user?", None),  # asks what is known, not how to behave
    ("how many bullet points can you use?", "User wants the assistant to use bullet points"),
    # what the assistant's output should be like: its answers, its code, its recommendations
    ("how long should your answers be?", "User wants the assistant's answers to be long"),
    ("which language should code be in?", "User wants the assistant's code to be in language"),
    ("what genre should book recommendations be?", "User wants the assistant's book recommendations to be genre"),
    ("when should the meeting be?", None),  # not about the assistant
])
def test_as_statement_of_an_instruction(question, statement):
    assert questions.as_statement(question) == statement


@pytest.mark.parametrize("question, expected", [
    ("what should you call the user?", True), ("Should you use emoji with the user?", True),
    ("what should the user call you?", False), ("what do you know about the user?", False), ("", False),
    ("how long should your answers be?", True), ("which language should code be in", True),
    ("when should the meeting be?", False),
])
def test_asks_for_instruction(question, expected):
    assert questions.asks_for_instruction(question) is expected


def test_as_statement_composes_with_third_person_rewriting():
    def rewritten(question: str) -> str | None:
        return questions.as_statement(questions.as_third_person_question(question))

    assert rewritten("When do I work out?") == "User works out at"
    assert rewritten("What's my cat called?") == "User's cat is called"


# Near misses: a question about one member of a family of alternatives (a relative, a pet, a team role) is not
# answered by a memory that names only another member of that family ("where does my aunt work?" is not
# answered by the uncle's job). Synonyms share a member; hypernyms (partner, kids, pets) are no member at all.
@pytest.mark.parametrize("query, memory, expected", [
    ("where does my aunt work?", "User's uncle works at a bakery.", True),
    ("what does my father do for a living?", "User's mom is a nurse.", True),
    ("what's my dog's name?", "User has a cat named Pixel.", True),
    ("where do my sons go to school?", "User's daughters go to Hillside school.", True),
    ("who are the testers on the team?", "The team has 4 designers.", True),
    ("what does my dad do?", "User's father is a pilot.", False),
    ("how old is my kitten?", "User's cat is three years old.", False),
    ("where does my partner work?", "User's wife works at a hospital.", False),
    ("do I have a brother or a sister?", "User has a sister.", False),
    ("how many developers do we have?", "The team has 5 engineers.", False),
    # a question about the speaker, naming no one else, is not answered by another person's life
    ("where do I live?", "User's sister lives in Rome.", True),
    ("do I have any allergies?", "User's brother Omar is allergic to penicillin.", True),
    ("what do I do for work?", "User's wife Dana is a paramedic.", True),
    ("am I vegetarian?", "User's flatmate is vegan.", True),
    ("how do I get to work?", "User's husband cycles to the office.", True),
    ("who do I report to?", "User's manager is Ana.", False),  # naming who fills the user's role
    ("who is my dentist?", "User's dentist is Dr. Patel.", False),
    ("do I have a partner?", "User's partner Sam is a chef.", False),  # the question names the partner
    ("how do I get to work?", "User's wife drives User to work.", False),  # the user is in it
    ("where do we live?", "User's son lives in Leeds.", False),  # "we" may take the son in
    ("where does Maya live?", "User's sister lives in Rome.", False),  # someone named: the member rules apply
    ("what does my grandma like to cook?", "User's grandmother makes pierogi.", False),
    # a question about another person alone is not answered by the user's own fact
    ("what car does my sister drive?", "User drives a VW Golf.", True),
    ("what is my son allergic to?", "User is allergic to shellfish.", True),
    ("does my neighbour have any pets?", "User has got two cats, Miso and Tofu.", True),
    ("what sport does my boss play?", "User plays five-a-side football every Tuesday night.", True),
    ("which city does my brother live in?", "User's bro lives in Leeds now.", False),  # chat's word for him
    ("what instrument does my boyfriend play?", "User's bf plays bass in a punk band.", False),
    ("does my mum eat meat?", "User visits their mother every summer.", False),  # about the mother too
    ("what did I buy my sister?", "User bought a scarf.", False),  # the speaker is in the question
    ("who is my boss?", "User works for Karen at Acme.", False),  # asked who fills the role
    ("what's my sister's name?", "User is called Ben.", False),
    # a breed is its animal
    ("what's my dog called?", "User has a beagle named Rolo and a hamster named Pip.", False),
    ("how old is my cat?", "User's Siamese and User's rabbit are both six.", False),
    ("what breed is my cat?", "User has a miniature poodle.", True),
    # a favourite of one kind does not answer for another kind; words for one kind do
    ("what's my favourite drink?", "User's favorite food is ramen.", True),
    ("what's my fave film?", "User's favorite book is Dune.", True),
    ("what's my favourite music?", "User's favorite band is Radiohead.", False),
    ("what's my favourite movie?", "User's favorite film is Alien.", False),
    ("what's my favourite colour?", "User's favorite color is green.", False),
    ("what's my favourite food?", "User loves ramen.", False),
    ("what food do I like?", "User's favorite drink is tea.", False),
    ("what's my favourite thing to do on weekends?", "User's favorite sport is padel.", False),
    # a code or password of one thing is not another's
    ("what's the alarm code for the cabin?", "The wifi password for the cabin is bluefjord77.", True),
    ("what's the gate code?", "The door code at the flat is 4512.", True),
    ("what's the wifi password?", "The Wi-Fi password for the cabin is bluefjord77.", False),
    ("what's my bike lock combination?", "User's lock combination is 3-9-1.", False),
    ("what's my password?", "User's bank password is in the drawer.", False),  # no kind asked
    ("what's the door code?", "User keeps the spare key under the mat.", False),  # no kind said
    # one carer is not another: an appointment with the dentist is no appointment with the physio
    ("when is my physio appointment?", "User has a dentist appointment on Friday.", True),
    ("who is my GP?", "User's doctor is Dr. Lund.", False),
    ("when is my barber appointment?", "User's hairdresser appointment is on Monday.", False),
])
def test_contrast_mismatch(query, memory, expected):
    assert questions.contrast_mismatch(query, memory) is expected


# A question that asks for a value of a kind (a name, a phone number, a price) is not answered by a memory that
# holds no value of that kind, however close its topic ("what's my landlord's name?" vs "User's landlord is
# strict."). A name the question already says is not the answer ("what's Omar's last name?").
@pytest.mark.parametrize("query, memory, expected", [
    ("what's my landlord's name?", "User's landlord is strict.", True),
    ("what's my landlord's name?", "User's landlord is Mr Okafor.", False),
    ("what is the name of my rabbit", "User has a rabbit called biscuit.", False),
    ("what's Omar's last name?", "User's colleague is called Omar.", True),
    ("what's my nephew's name?", "User's nephew is named an engineer.", True),
    ("what's the dentist's phone number?", "User's dentist is on Baker Street.", True),
    ("what's the dentist's phone number?", "The dentist's number is 020 7946 0000.", False),
    ("how much is my car insurance?", "User's car insurance renews in May.", True),
    ("how much is my car insurance?", "User pays 40 pounds a month for car insurance.", False),
    ("how much does my gym cost", "User's gym costs twenty euros.", False),
    ("how much coffee do I drink?", "User drinks a lot of coffee.", False),
    # a price asked without "how much": what a thing costs, what it set one back
    ("what's the kitchen reno costing us?", "User is redoing the kitchen.", True),
    ("what's the kitchen reno costing us?", "The kitchen is costing them 18k all in.", False),
    ("what did the new boiler set us back?", "User had a new boiler fitted in March.", True),
    ("what does my phone plan cost?", "User's phone plan is 15 quid a month.", False),
    ("what's the price of my season ticket?", "User has a season ticket at Elland Road.", True),
    ("what costume am I wearing to the party?", "User is going as a pirate.", False),
    ("where do I live?", "User lives in Oslo.", False),
    # "when" asks for a time: a date, a day, a clock time, a part of the day, a season, a year, "ago"
    ("when is Elena's birthday?", "User's wife is named Elena.", True),
    ("what time does my gym open?", "User's gym is PureGym on Deansgate.", True),
    ("when did I get my cat?", "User has a cat named Miso.", True),
    ("when do I work out?", "User usually swims at 7pm after work.", False),
    ("when do I go running?", "User runs before breakfast.", False),
    ("when did I move to Berlin?", "User moved to Berlin in 2019.", False),
    ("when did I start at the bank?", "User started at the bank three years ago.", False),
    ("when is my dentist appointment?", "User's dentist appointment is on 2026-12-04.", False),
    ("when's the wedding?", "The wedding is next Saturday.", False),
    ("what time is standup?", "Standup is at 9:30.", False),
    ("when are we going to Japan?", "User is going to Japan in the spring.", False),
    ("when is the baby due?", "The baby is due on 3 March.", False),
    ("what do I eat when I'm sick?", "User eats toast.", False),
    # "May" is a month beside a day's number, and a date may be written with slashes
    ("when do we launch", "Correction, the launch date is May 8.", False),
    ("when is the backend deadline", "The backend deadline is 17 May.", False),
    ("when is the invoice due?", "The invoice is due 17/05.", False),
    ("when is my mum visiting?", "User's mum may visit.", True),
    # a measure is a number: a best time, a pace, an age, a height, a weight
    ("what's my marathon personal best?", "User is training for a half marathon.", True),
    ("what's my 10k PB?", "User's 10k PB is 47:30.", False),
    # a day or a month is no name; a kind of thing asked for is no test of a capital (chat writes "monzo")
    ("what's my dog's name?", "User walks the dog every Sunday.", True),
    ("what's my dog's name?", "User walks Biscuit every Sunday.", False),
    ("what bank am I with?", "User banks with monzo.", False),
    ("which accounting software do I use?", "User does the books in xero.", False),
    ("what pace do I run at?", "User runs 5 km every morning.", False),
    ("what pace do I run at?", "User runs along the canal.", True),
    ("how old is my daughter?", "User's daughter turned six in May.", False),
    ("how old is my daughter?", "User's daughter started school.", True),
    ("how tall is my son?", "User's son is 1.80 m.", False),
    ("what's my current weight?", "User wants to lose weight.", True),
    ("what's my weight?", "User weighs 72 kg.", False),
    # an hour said bare after a word of time answers "when"; a count of people does not
    ("when is my standup?", "User's standup is at 10.", False),
    ("when do I walk the dog?", "Dog walks are at 6 now.", False),
    ("when is the party?", "User invited 10 people to the party.", True),
    ("how far is my commute?", "User cycles to work.", True),
    ("how do I get to work?", "User cycles to work.", False),  # no measure asked
    # "where" asks for a place: a preposition of place, a name or a place word
    ("where does my aunt live?", "User's aunt is a retired teacher.", True),
    ("where does my aunt live?", "User's aunt lives in Galway.", False),
    ("where do I work?", "User works for monzo.", False),
    ("where do I keep my spare key?", "User keeps the spare key under the mat.", False),
    ("where is my yoga class?", "User's yoga class is on Tuesdays.", False),  # "on": no sure test of a place
    ("where do I work?", "User works remotely.", False),
    # "who" asks for a person: a name, a word for a person, or someone named
    ("who is my climbing partner?", "User climbs on Thursdays.", True),
    ("who is my climbing partner?", "User climbs with Dev on Thursdays.", False),
    ("who do I live with?", "User lives with their girlfriend.", False),
    ("who cuts my hair?", "User gets their hair cut by a barber called tomasz.", False),
    ("who is my accountant?", "User's accountant charges 300 pounds a year.", True),
    # ... or what they do: a job noun or a noun of a trade, unless the question already says it
    ("who repaired the roof?", "The roof was repaired by a roofing specialist.", False),
    ("who checks my eyes?", "User's eyes are checked by an optician every year.", False),
    ("who looks after my teeth?", "User's teeth are looked after by a hygienist.", False),
    ("who painted the mural?", "The mural was painted by a local artist.", False),
    ("who made my playlist?", "User made a workout playlist.", True),
    ("who hurt my wrist?", "User hurt their wrist playing padel.", True),
    ("who is my optician?", "User's optician appointment is in March.", True),
    # the doer of a passive is someone, whatever the noun
    ("who built the treehouse?", "The treehouse was built by a joiner from the village.", False),
    ("who grooms my dog?", "User's dog is groomed monthly by a mobile groomer.", False),
    ("who planted the hedge?", "The hedge was planted years ago.", True),
    ("who runs the market?", "The market is held in the square by the church.", True),
    ("who runs the cafe?", "The cafe is in the garden by the river.", True),  # "garden" is no participle
    ("who owns the flat?", "User's flat is in town by the station.", True),
    ("who did I have dinner with?", "User had dinner at a vegetarian place.", True),  # a modifier, no one
    ("who treats my knee?", "User's knee is treated by a physiotherapist every week.", False),
    ("who treats my shoulder?", "User sees a physiotherapist every week.", False),
    ("who fixed my bike?", "User's bike was fixed by a mechanic.", False),
    # a bare "May" is a month after a word saying when; holidays and breaks answer "when"
    ("when does my contract end?", "User's contract ends in May.", False),
    ("when is the reunion?", "The reunion is every May.", False),
    ("when do we go skiing?", "User goes skiing every Easter.", False),
    ("when do I see my grandparents?", "User sees their grandparents over Christmas.", False),
    ("when is the trip?", "User's trip is with May and Jon.", True),
    ("when is the trip?", "User's trip is to Oslo.", True),
    # a number or an email asked for is written as one
    ("what's my car's registration number?", "User drives a grey Skoda.", True),
    ("what's my car's registration number?", "User's car registration is KX19 ABC.", False),
    ("what number bus do I take?", "User takes the bus to work.", True),
    ("what's my landlord's email?", "User's landlord is Mr. Ruiz.", True),
    ("what's my landlord's email?", "User's landlord's email is ruiz@lets.co.uk.", False),
    # a year asked for needs a year said
    ("what year did I graduate?", "User graduated in July.", True),
    ("what year did I graduate?", "User graduated from Leeds in 2014.", False),
    ("which year did we get married?", "User got married three years ago.", False),
    # how long something lasts is no answer to when
    ("when is my brother's birthday?", "User has been close to their brother for 20 years.", True),
    ("when do I walk the dog?", "User walks the dog for an hour.", True),
    ("when is my dentist appointment?", "User's dentist appointment is in 2 weeks.", False),
    ("when did I move to Bristol?", "User moved to Bristol 6 years ago.", False),
    ("when do I walk the dog?", "User walks the dog for an hour every evening.", False),
])
def test_lacks_asked_value(query, memory, expected):
    assert questions.lacks_asked_value(query, memory) is expected


def test_a_past_event_told_on_a_known_day_answers_when_it_happened():
    """"when did ..." of an event told in a dated message: the day it was told is an answer, the time need not be in
    the sentence. "when is ..." asks for a time the memory itself must hold."""
    assert not questions.lacks_asked_value("when did I get my cat?", "User got a cat named Miso.", dated=True)
    assert questions.lacks_asked_value("when is Elena's birthday?", "User's wife is named Elena.", dated=True)


# The people (or named things) a question is about: a name after an auxiliary ("did Caroline paint") or
# in a possessive ("Caroline's sister"). Days, months and the user's own words are not names.
@pytest.mark.parametrize("question, names", [
    ("When did Caroline go to the support group?", {"Caroline"}),
    ("What is Melanie's favourite book?", {"Melanie"}),
    ("Where does Jon Baker work?", {"Jon Baker"}),
    ("What did Gina and Jon talk about?", {"Gina"}),
    ("where do I live?", set()),
    ("What did I do on Tuesday?", set()),
    ("Is March a good month for the trip?", set()),
    ("what's my sister's name?", set()),
    ("What did the user's mom say?", set()),
])
def test_names_asked_about(question, names):
    assert questions.names_asked_about(question) == names


@pytest.mark.parametrize("question, embedded", [
    ("which city am I based in these days", "which city am I based in"),
    ("where do I live now?", "where do I live?"),
    ("Now, where do I live?", "where do I live?"),
    ("what is my job at the moment?", "what is my job?"),
    ("Currently, which phone do I use?", "which phone do I use?"),
    ("what am I reading lately, and why?", "what am I reading and why?"),
    ("what car am I driving right now", "what car am I driving"),
    ("who is my landlord nowadays?", "who is my landlord?"),
    # "now" that says something else, and words that only contain it
    ("what should you do from now on?", "what should you do from now on?"),
    ("what have I done until now?", "what have I done until now?"),
    ("do I know Sam?", "do I know Sam?"),
    ("what's my snowboard brand?", "what's my snowboard brand?"),
    ("now?", "now?"),  # nothing left but the filler: kept
])
def test_words_that_only_say_at_present_are_not_embedded(question, embedded):
    assert questions.without_present_fillers(question) == embedded


@pytest.mark.parametrize("question, words", [
    ("what drink do I have before work?", ("drink",)),
    ("which sport does my son do?", ("sport",)),
    ("what kind of bird is in the garden?", ("bird",)),
    ("what type of flat do we rent?", ("flat",)),
    ("which piece of furniture came from my aunt?", ("furniture", "came")),
    ("what's my go-to snack?", ("go-to", "snack")),
    ("do I have any chronic illnesses?", ("chronic", "illnesses")),
    ("wat pets have we got", ("pets",)),
    # a question asking by no kind
    ("what did I do on Friday?", ()),
    ("what is the user making?", ()),
    ("where do I live?", ()),
    ("When did Caroline go to the support group?", ()),
    # a word before a name is a verb, and the kind ends there
    ("What helps Joanna stay focused?", ()),
    ("What attributes describe John?", ("attributes",)),
    ("What Italian dish does Tim cook?", ("italian", "dish")),
    ("what sport does Tim play?", ("sport",)),
    # "I" is no name: the kind does not end before it
    ("any allergies I have?", ("allergies",)),
    # a yes/no question about the speaker asks by kind with "a"/"an", and so does "is there"
    ("do I play an instrument?", ("instrument",)),
    ("have we got a pet?", ("pet",)),
    ("am I on a medication at the moment?", ("medication",)),
    ("Is there a water sport I do?", ("water", "sport")),
    ("are there any apps I use for budgeting?", ("apps",)),
    # ... not a question asking when, nor one about someone named
    ("when did I buy a car?", ()),
    ("does Tim have a dog?", ()),
])
def test_asked_kind_words(question, words):
    assert questions.asked_kind_words(question) == words


@pytest.mark.parametrize("query, memory, besides, missing", [
    ("what sport does my brother play?", "User plays tennis every Saturday.", ("sport",), True),
    ("what sport does my brother play?", "User's brother plays tennis.", ("sport",), False),
    ("what dog does my sister have?", "User has a whippet called Rex.", ("dog",), True),
    ("which vet does my cat go to?", "User takes the cat to Dr Moss.", ("vet",), False),
    # the kind asked by is the instance's, not a member the memory must name
    ("what dog do we have?", "User has a basenji called Ozzy.", ("dog",), False),
    ("what dog do we have?", "User has a basenji called Ozzy.", (), True),
    # a question naming no member asks nothing of the memory
    ("which sport do I play?", "Tennis every Tuesday evening.", ("sport",), False),
])
def test_names_members_missing(query, memory, besides, missing):
    assert questions.names_members_missing(query, memory, besides=besides) is missing


@pytest.mark.parametrize("sentence, kind_words, instance, said", [
    ("User plays sport", ("sport",), "tennis", "User plays tennis"),
    ("User does combat sport", ("combat", "sport"), "boxing", "User does boxing"),
    ("User's usual drink first thing in the day is", ("drink",), "espresso",
     "User's usual espresso first thing in the day is"),
    ("What Sport does the user play?", ("sport",), "squash", "What squash does the user play?"),
    # a word of the kind inside another word is no kind said
    ("User supports Leeds", ("sport",), "tennis", None),
    ("User plays sport", (), "tennis", None),
])
def test_with_instance(sentence, kind_words, instance, said):
    assert questions.with_instance(sentence, kind_words, instance) == said


@pytest.mark.parametrize("text, kept_away", [
    ("User found out the hard way as a kid that User is allergic to penicillin.", True),
    ("User never drinks beer on weeknights.", True),
    ("User gave up sugar in March.", True),
    ("User doesn’t eat meat.", True),  # a typographic apostrophe
    ("User takes aspirin every morning.", False),
    ("Honestly User can't start a morning without a double espresso.", False),
    ("User's hatchback is red.", False),  # "hat" and "not" inside words are no words of their own
    ("I do not drink coffee after noon.", True),
    ("User is not a fan of olives.", True),
    ("User no longer smokes.", True),
    ("User really doesn't like mushrooms.", True),
    ("what do I never eat?", True),
    ("I\u2019m not a big coffee person.", True),
    ("i just can't stand coriander", True),
    ("We gave up meat last year.", True),
    # a "not" or "never" that is not the person's own: a thing that never fails, someone else who would not approve
    ("User's lasagne never fails when guests come over.", False),
    ("User drinks merlot with dinner, User's doctor would not approve.", False),
    ("The bus never comes on time, so User cycles to work.", False),
    ("User's old laptop doesn't turn on any more, so User uses a tablet.", False),
    ("User plays tennis, not squash.", False),
])
def test_keeps_away(text, kept_away):
    assert questions.keeps_away(text) is kept_away


@pytest.mark.parametrize("question, things", [
    ("what colour is my car?", ("car",)),
    ("What colour is my new car", ("car",)),
    ("which tree grows in our garden?", ("garden",)),
    ("what is my laptop's brand?", ("laptop",)),
    ("what breed is my dog?", ()),  # a pet: names_members_missing's part
    ("what's my mum's favourite flower?", ()),
    ("what's my usual drink first thing in the day?", ()),  # the possession is not where the question ends
    ("what pet do we have?", ()),
    ("What kind of lighting does Joanna's gaming room have?", ("room",)),
    ("What helps Joanna stay focused and brings her joy?", ("joy",)),
    ("What's Caroline's favourite book?", ("book",)),
    ("what does my sister's husband do?", ()),
])
def test_possessed_things(question, things):
    assert questions.possessed_things(question) == things


@pytest.mark.parametrize("question, memory, said", [
    ("where does the user's grandmother live?", "Nan's been living in cardiff since she retired.",
     "where does the user's nan live?"),
    ("what does the user's mum do?", "User's mother is a retired teacher.", "what does the user's mother do?"),
    ("what game does the user play with the user's grandfather?", "User and grandad play chess every sunday.",
     "what game does the user play with the user's grandad?"),
    ("what does the user's dog eat?", "The spaniel only eats salmon kibble.", "what does the user's spaniel eat?"),
    ("where does the user's GP work?", "User's doctor is at the Riverside practice.",
     "where does the user's doctor work?"),
    ("when are the user's brothers visiting?", "User's bro is coming over at Easter.",
     "when are the user's bro visiting?"),
    # the same word, another member, or no member at all: nothing to say again
    ("where does the user's mother live?", "User's mother lives in Leeds.", None),
    ("where does the user's mother live?", "Nan lives in Cardiff.", None),
    ("where does the user live?", "Nan lives in Cardiff.", None),
    ("where does the user's dog sleep?", "The kitten sleeps on the radiator.", None),
    # a memory naming the question's own word as well needs no other
    ("what does the user's dog eat?", "User's dog, a spaniel, eats salmon kibble.", None),
    # a member word ending in "s" is read as the question's words are ("missus" is no plural of "missu")
    ("what does the user's wife do?", "The missus is a paramedic.", "what does the user's missus do?"),
    ("who taught the user to fish?", "Gramps taught User to fish.", None),
    # a word for any of several ("partner", "kid") is said as the one the memory names
    ("what's the user's other half called?", "User's husband is named Tom.", "what's the user's husband called?"),
    ("what does the user's partner do?", "User's girlfriend is a nurse.", "what does the user's girlfriend do?"),
    ("which school do the user's kids go to?", "User's daughter goes to St Mary's.",
     "which school do the user's daughter go to?"),
    ("what is the user's pet called?", "Our tortoise is called Shelby.", None),  # a pet is asked by kind
    # ... not when the memory names two of them: which one is asked about is not known
    ("where do the user's parents live?", "User's mum and dad live in Hull.", None),
    # a member said as someone else's is not the one the user's memory names
    ("what did Audrey teach her dogs?", "One of them, Daisy, is a Labrador.", None),
    ("where does Sam's grandmother live?", "Nan lives in Cardiff.", None),
    ("what are their kids called?", "User's daughter is called Ava.", None),
    ("what does the user's sister's husband do?", "User's hubby is a chef.", None),
    # ... a bare one is the user's ("what's" is no one's)
    ("what's nana allergic to?", "User's grandmother is allergic to penicillin.",
     "what's grandmother allergic to?"),
    ("User's grandmother lives in", "Nan's been living in cardiff.", "User's nan lives in"),
    ("what does the user's little brother do?", "User's bro is a plumber.", "what does the user's little bro do?"),
])
def test_in_the_memorys_words(question, memory, said):
    assert questions.in_the_memorys_words(question, memory) == said


_ONE_THING = {frozenset(p) for p in [("pushchair", "stroller"), ("specs", "glasses"), ("sofa", "couch"),
                                     ("flat", "apartment")]}


def _same_thing(a: str, b: str) -> bool:
    return frozenset((a, b)) in _ONE_THING


@pytest.mark.parametrize("question, memory, said", [
    # a thing the question names is said as the memory names it, when the two words name one thing
    ("what pushchair does the user use?", "User swapped to a stroller, the Joolz Aer.",
     "what stroller does the user use?"),
    ("where is the user's flat?", "User moved into an apartment in Leeds.", "where is the user's apartment?"),
    ("what colour is the user's couch?", "User's sofa is dark green velvet.", "what colour is the user's sofa?"),
    # a memory naming the question's own word needs no other
    ("what colour is the user's couch?", "User's couch, the sofa from Ikea, is grey.", None),
    # no other word for it: nothing said
    ("what colour is the user's car?", "User's sofa is dark green velvet.", None),
])
def test_a_thing_in_the_memorys_words(question, memory, said):
    assert questions.in_the_memorys_words(question, memory, same_thing=_same_thing) == said
    assert questions.in_the_memorys_words(question, memory) is None


@pytest.mark.parametrize("text, wished", [
    ("User would really love to try skiing one day.", True), ("User wants to learn the cello.", True),
    ("User is hoping to run a marathon.", True), ("User dreams of sailing round the world.", True),
    ("User plans to take up judo.", True), ("Some day User will buy a boat.", True),
    ("User plays the cello.", False), ("User boxes twice a week.", False),
    ("User skied in Austria last winter.", False),
    ("User's daughter is called Hope.", False),
])
def test_only_wished(text, wished):
    assert questions.only_wished(text) is wished


@pytest.mark.parametrize("query, text, dropped", [
    # only a wish, hope or plan, asked what is so now
    ("What winter sport do I do?", "User would really love to try skiing one day.", True),
    ("do I have a pet?", "User would love to get a dog someday, once User has got a garden.", True),
    ("is there a language I'm learning?", "User keeps saying User will learn Japanese before the trip.", True),
    ("what sport do I do?", "User's dream is to run a marathon.", True),
    ("what do I drive?", "User is saving up for a Tesla.", True),
    ("What does Caroline do?", "Caroline wants to become a counsellor.", True),
    ("do I sail?", "One day User would love to learn to sail, its been a dream forever.", True),
    ("do I own a boat?", "At some point User would like to buy a little boat.", True),
    ("have I got a tattoo?", "The plan is to get a rose tattoo on User's ankle.", True),
    ("do we have a pool?", "User would kill for a pool in the garden.", True),
    ("have I been to Japan?", "Seeing Japan in cherry blossom season is on User's bucket list.", True),
    ("what do I do on Fridays?", "On Fridays User plays five-a-side football.", False),
    # the question asks for the wish, a plan or the future
    ("what instrument do I want to learn?", "User would love to learn the cello one day.", False),
    ("what are my plans for next summer?", "User is planning to walk the Camino next summer.", False),
    ("what's my dream job?", "User's dream is to be a vet.", False),
    # a fact said first, a fact alone, a preference, what the user wants of the assistant or to be called
    ("what instrument do I play?", "User plays the violin, and one day User would love to try the cello.", False),
    ("what's my girlfriend's favourite band?",
     "User wants to surprise their girlfriend, her favourite band is Fleetwood Mac.", False),
    ("do I have any tattoos?", "The plan is to get a tattoo on User's forearm, just haven't found the artist yet.", True),
    ("what instrument do I play?", "User plays the violin.", False),
    ("what seat do I like?", "User would like a window seat.", False),
    ("what should you call me?", "User wants to be called Alex.", False),
    ("how should you answer me?", "User would like the assistant to keep answers short.", False),
])
def test_wished_not_done(query, text, dropped):
    assert questions.wished_not_done(query, text) is dropped


@pytest.mark.parametrize("query, expected", [
    ("what car does my sister drive?", "sister"),
    ("which bank is my little brother with?", "brother"),
    ("is our landlord's flat in town?", "landlord"),
    ("what does my bf do?", "bf"),
    ("where do I live?", None),
    ("what did we get my mum for christmas?", None),  # the speaker is in it
    ("who is my dentist?", None),  # asks who fills the role
    ("what's my brother called?", None),
    ("what's my brother's nickname?", None),  # a name asked for, as lacks_asked_value reads it
    ("whose birthday is my sister planning?", None),
    ("what car does Sam drive?", None),  # a name: recall knows whose names are the user's
    ("where are our client documents stored?", None),  # the word only says whose documents
    ("when do my kids lessons start?", None),
])
def test_asks_of_someone_else_alone(query, expected):
    assert questions.asks_of_someone_else_alone(query) == expected


@pytest.mark.parametrize("query, expected", [
    ("what phone does Tom have?", {"Tom"}),
    ("where is Marcus from?", {"Marcus"}),
    ("what did I give Tom?", set()),
    ("who is Tom?", set()),
    ("what's Helen's surname?", set()),
])
def test_names_asked_alone(query, expected):
    assert questions.names_asked_alone(query) == expected


@pytest.mark.parametrize("memory, expected", [
    ("User drives a VW Golf.", True),
    ("User's car is a red Fiat.", True),
    ("User's bro lives in Leeds.", False),
    ("User visits their mother every summer.", False),
    ("User and their wife both teach maths.", False),
    ("User's GP is Dr. Hargreaves.", False),
    ("Sam drives a Golf.", False),  # someone else's sentence
])
def test_of_the_user_alone(memory, expected):
    assert questions.of_the_user_alone(memory) is expected


@pytest.fixture(scope="module")
def kinds():
    from engine.kinds import WordNetKinds
    return WordNetKinds()


@pytest.mark.parametrize("query, memory, expected", [
    ("how long have I been playing the flute?", "User has been playing the violin since User was 7.", "violin"),
    ("am I allergic to pineapple?", "User is allergic to kiwi.", "kiwi"),
    ("do I like brussels sprouts?", "User hates broccoli.", "broccoli"),
    ("what do I usually have for breakfast?", "User's Friday dinner is always homemade pizza.", "dinner"),
    ("what colour is my car?", "User's bike is a red Brompton.", "bike"),
    # the thing itself, or asked by its kind, or a dish had at the meal asked about: no other thing
    ("how long have I been playing guitar?", "User has played guitar in a covers band for ten years.", None),
    ("what instrument do I play?", "User plays the cello in an orchestra.", None),
    ("are there any sports I do?", "User swims at the leisure centre before work.", None),
    ("what do I have for breakfast?", "User has porridge every morning.", None),
    ("who drives the kids to school?", "The driver for the kids is User's neighbour, it's her job.", None),
    ("where do we keep the lemon tree?", "User has got a lemon tree and a fig tree in pots on the terrace.", None),
    # a word naming a whole field of things asks of any of them; a thing of the kind asked about is an answer
    ("what do I do for work?", "User just started an apprenticeship as a plumber.", None),
    ("what do I eat most days?", "User eats a banana most days.", None),
    ("what colour are my clothes for the wedding?", "User is wearing a navy suit to the wedding.", None),
    ("what material are my summer clothes?", "User's summer shirts are all linen.", None),
    # an act, an idea or a text is said beside the thing talked about, not in its place
    ("what articles has Tim been writing for the online magazine?", "Tim has been writing about fantasy novels.", None),
    ("how often do I get health checkups?", "User goes to the gym and does exercise regularly.", None),
    ("what did I get for the dog to have fun?", "User got a chew toy for some entertainment.", None),
])
def test_names_another_of_its_kind(kinds, query, memory, expected):
    found = questions.names_another_of_its_kind(query, memory, kinds)
    assert (found[1] if found else None) == expected


@pytest.mark.parametrize("query, memory, expected", [
    # asked by a kind the memory names nothing of: the kind, and the things to compare with it in meaning
    ("which accounting software do I use?", "User works as an accountant.", ("software", ("accountant",))),
    ("what hotel am I staying at in Lisbon?", "User's flight to Lisbon is on Friday.", ("hotel", ("flight",))),
    ("which foods am I allergic to?", "User is allergic to penicillin.", ("food", ("penicillin",))),
    ("what pet do we have?", "User adopted a retired greyhound last month.",
     ("pet", ("greyhound", "last", "month"))),
    # the kind's word, or a word WordNet files under the kind: an instance
    ("what phone does Leo have?", "User's son keeps begging for a phone.", None),
    ("what drink do I have in the morning?", "User has a latte every morning.", None),
    ("what instrument do I play?", "User plays the cello in an orchestra.", None),
    # a capitalised word the question does not say may be an instance the dictionary does not know
    ("which accounting software do we use?", "User does all the invoicing in Xero.", None),
    ("what snack do I have in the afternoon?", "User can't get through the slump without a Twix.", None),
    # asked for a value of its own kind (a time, a name), by a kind that says what a thing is for, or by no kind
    ("what time is my dentist appointment?", "User's dentist is on the high street.", None),
    ("what job does my wife have?", "User's wife is a nurse.", None),
    ("where do I work?", "User is an accountant.", None),
    # the kind said in two words, and a word WordNet files under the two ("karate" is a martial art, no art)
    ("what martial art do I practise?", "User does karate.", None),
    # a word the dictionary files under nothing may name an instance of anything
    ("which accounting software do we use?", "User does all the invoicing in xero.", None),
    # asked for the value of one thing of the user's, not for a thing by its kind; or by a kind that says what it is for
    ("what's my salary?", "User earns 58k.", None),
    ("what hobby does my wife have?", "User's wife does pottery.", None),
    # the kind's own word
    ("what hotel am I staying at?", "User is staying at a hotel.", None),
])
def test_names_nothing_of_the_asked_kind(kinds, query, memory, expected):
    assert questions.names_nothing_of_the_asked_kind(query, memory, kinds) == expected


def test_a_doing_of_the_asked_kind_is_an_instance(kinds):
    query, memory = "what sport do I do?", "User boxes twice a week."
    assert questions.names_nothing_of_the_asked_kind(query, memory, kinds, ("boxing",)) is None
