"""The rule table: each row turns one way of saying a fact into (subject, attribute, value).

Rules are tried in order on a clause (first person, cue words such as "actually" already stripped);
the first row whose pattern matches and which finds something wins. A row has:

- ``name``: unique; it is the ``rule`` of every Candidate the row produces, so an ingest trace can
  say which rule understood a clause.
- ``attribute``: the slot(s) the row fills, comma separated; ``*`` patterns allowed where the slot
  depends on the words ("favorite_*"). A test checks that every example lands in one of them.
- ``pattern``: a regular expression (case-insensitive unless ``flags`` says otherwise).
- either a ``template`` (the stored sentence from ``{S}`` the speaker, ``{P}`` their possessive and
  ``{v}`` the value; no template means the clause itself in third person) with ``value`` turning the
  ``v`` group into the stored value; or a ``handler`` from handlers.py when words must be checked or
  a slot chosen.
- ``examples``: (message, expected) pairs, expected being a (subject, attribute, value) triple or
  the stored sentence. tests/test_rules.py runs every example through the whole ``extract()`` and
  checks that this row produced it, so no rule goes untested.

Adding a rule: add a row where it must win against the rows around it (an earlier row shadows a
later one), with at least one example, e.g.::

    Rule("commute", "commute", r"^i (?:commute|get to work) by\\s+(?P<v>.+)",
         template="{S} commutes by {v}.", examples=[
             ("I commute by bike", ("user", "commute", "bike")),
             ("I get to work by train", "User commutes by train."),
         ]),

then run ``pytest tests/test_rules.py tests/test_extract.py``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Callable, Optional, Sequence, Union

from . import handlers
from .handlers import Found
from .values import clean_value, strip_when
from .vocabulary import DIETS, EVENT_NOUNS, INSTRUMENTS, PETS, PROJECT_ATTRS, SPORTS, WHEN

Triple = tuple[str, str, str]
Example = tuple[str, Union[Triple, str]]


def clean_when(value: str) -> str:
    """A place without the time it was said of: "Lisbon last month" -> "Lisbon"."""
    return strip_when(clean_value(value))


def clean_lower(value: str) -> str:
    return clean_value(value).lower()


@dataclass(frozen=True)
class Rule:
    name: str
    attribute: str
    pattern: str
    template: Optional[str] = None
    handler: Optional[Callable[[str, "re.Match[str]", str, str], handlers.Handled]] = None
    value: Callable[[str], str] = clean_value
    subject: Optional[str] = None
    type: Optional[str] = None
    flags: int = re.IGNORECASE
    examples: Sequence[Example] = ()
    regex: "re.Pattern[str]" = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", self.name):
            raise ValueError(f"rule name must be a lower-case identifier, got {self.name!r}")
        regex = re.compile(self.pattern, self.flags)
        if self.handler is not None:
            if self.template is not None or self.value is not clean_value or self.subject or self.type:
                raise ValueError(f"rule {self.name}: a handler decides text, value, subject and type itself")
        else:
            # A template row stores exactly one slot, read from the pattern's "v" group.
            if not re.fullmatch(r"[a-z][a-z0-9_]*", self.attribute):
                raise ValueError(f"rule {self.name}: a template row fills one slot, got {self.attribute!r}")
            if "v" not in regex.groupindex:
                raise ValueError(f"rule {self.name}: a template row needs a (?P<v>...) group")
        object.__setattr__(self, "regex", regex)
        object.__setattr__(self, "examples", tuple(self.examples))

    def apply(self, clause: str, S: str, P: str) -> list[Found]:
        """What this rule finds in the clause, each finding named after the rule; [] when nothing."""
        m = self.regex.search(clause)
        if not m:
            return []
        if self.handler is not None:
            result = self.handler(clause, m, S, P)
            found = result if isinstance(result, list) else [result] if result else []
        else:
            v = self.value(m["v"])
            text = self.template.format(S=S, P=P, v=v) if self.template is not None else None
            found = [Found(self.attribute, v, text, subject=self.subject, type=self.type)]
        return [replace(f, rule=self.name) for f in found]


# Pattern pieces several rows share.
_I = r"(?:i|we)"
_IM = r"(?:i'm|im|i am|we're|we are)"
_NOW = r"(?:(?:now|currently|still|also|actually|just|recently|finally|really|officially|happily)\s+)*"

# Where one commutes to, and what one commutes by.
_WORKPLACE = r"(?:work|the office|(?:the\s+)?school|uni|college|campus|the studio|the hospital|the lab|the site)\b"
_HOME = r"(?:flat|apartment|house|condo|studio|bungalow|cottage|loft|houseboat)"  # a place one lives in
_VEHICLE = r"(?:bus|train|tube|metro|subway|tram|car|bike|bicycle|e-bike|motorbike|scooter|ferry)"

_LIVE = (
    rf"^(?:{_I}\s+{_NOW}(?:live|living|reside|residing|stay|staying|am living|'m living|am staying|am based|"
    rf"am located|have been living|'ve been living|'ve lived|have lived)|{_IM}\s+{_NOW}(?:living|based|located|"
    rf"staying|residing|settled))\s+(?:in|at|near|out of|on)\s+(?P<v>.+)"
)


_PROJECT_ATTR_ALT = "|".join(sorted((re.escape(k) for k in PROJECT_ATTRS), key=len, reverse=True))


_PROJECT_VERB = (
    r"(?:(?:has|had)\s+been\s+|is\s+|was\s+|got\s+|will be\s+|just\s+|now\s+)*"
    r"(?P<verb>moved|pushed(?:\s+back)?|changed|set|extended|shifted|rescheduled|postponed|delayed|brought forward|"
    r"moved up|bumped|updated|locked|fixed|switched|migrated|runs on|uses|lives on|lives at|is on|is hosted on|"
    r"hosted on|deployed (?:on|to)|called|named|is|was|will be|=|:)"
)


RULES: tuple[Rule, ...] = (
    Rule("name", "name", rf"^(?:my name is|my name's|{_IM} called|call me|people call me|everyone calls me|you can call me)\s+(?P<v>[^,.;!?]+)",
         template="{P} name is {v}.", examples=[
             ("My name is Priya", ("user", "name", "Priya")),
             ("you can call me Jo", "User's name is Jo."),
         ]),
    Rule("name_intro", "name", r"^(?i:i'm|im|i am|this is)\s+(?P<v>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?)\s*[.!]?$",
         handler=handlers.name_intro, flags=0, examples=[
             ("I'm Sam", ("user", "name", "Sam")),
             ("Hello, I'm Sam", "User's name is Sam."),
         ]),
    Rule("age", "age", rf"^{_IM}\s+{_NOW}(?P<v>\d{{1,3}})(?:\s*(?:years?|yrs?)(?:\s+old)?|\s*y/?o)?\s*(?:now|today|this year)?$",
         template="{S} is {v} years old.", examples=[
             ("I'm 34 years old", ("user", "age", "34")),
             ("I'm 29.", "User is 29 years old."),
         ]),
    Rule("turned", "age", r"^i (?:just )?turned (?P<v>\d{1,3})\b",
         template="{S} is {v} years old.", examples=[
             ("I turned 30 yesterday!", ("user", "age", "30")),
         ]),
    # A birthday said by its number, had or being had: the age it makes ("my 40th is next month" is not yet)
    Rule("birthday_age", "age", r"^(?:i (?:just )?(?:had|celebrated)|it'?s|today is) my (?P<v>\d{1,3})(?:st|nd|rd|th)"
         r" (?:birthday|bday)\b(?! (?:is|will)\b)(?!.*\b(?:next|tomorrow|coming up)\b)",
         template="{S} is {v} years old.", examples=[
             ("just had my 35th birthday party", ("user", "age", "35")),
             ("It's my 50th birthday today!", "User is 50 years old."),
             ("I celebrated my 21st bday on Saturday", ("user", "age", "21")),
         ]),
    Rule("birthday", "birthday", r"^(?:my (?:birthday|bday|date of birth) is|i was born on|my birthday falls on)\s+(?:on\s+)?(?P<v>.+)",
         template="{P} birthday is {v}.", examples=[
             ("My birthday is July 4.", ("user", "birthday", "July 4")),
         ]),
    Rule("hometown", "hometown, birthday", rf"^{_I} (?:was )?(?:born|grew up|raised)\s+(?:and raised\s+)?in\s+(?P<v>.+)|^{_IM} (?:originally )?from\s+(?P<w>.+)",
         handler=handlers.hometown, examples=[
             ("I'm originally from Guadalajara, Mexico.", ("user", "hometown", "Guadalajara, Mexico")),
             ("I was born in 1990", ("user", "birthday", "1990")),
         ]),
    Rule("live", "location", _LIVE,
         template="{S} lives in {v}.", value=clean_when, examples=[
             ("I live in Berlin", ("user", "location", "Berlin")),
             ("I'm based in Toronto these days", ("user", "location", "Toronto")),
         ]),
    Rule("moved", "location, planned_move", rf"^(?:{_I}(?:\s+{_NOW}(?:have\s+)?|'ve\s+{_NOW})(?:moved|relocated)|(?:{_I}\s+{_NOW}(?:am\s+)?|{_IM}\s+{_NOW})(?P<plan>moving|relocating))\s+(?P<back>back\s+)?(?:to|into)\s+(?P<v>.+)",
         handler=handlers.moved, examples=[
             ("I moved to Denver two years ago", ("user", "location", "Denver")),
             ("we've relocated to Porto", ("user", "location", "Porto")),
             ("I'm moving to Seoul in September", ("user", "planned_move", "Seoul")),
         ]),
    Rule("moved_from_to", "location", r"^(?:i|we) (?:just )?(?:moved|relocated) from\s+(?P<old>.+?)\s+to\s+(?P<v>.+)",
         handler=handlers.moved_from_to, examples=[
             ("I moved from Lisbon to Porto", ("user", "location", "Porto")),
             ("We relocated from Leeds to Bristol last year", "User lives in Bristol."),
         ]),
    Rule("home_in", "location", rf"^{_I}\s+{_NOW}(?:have|'ve got|have got|got|own|rent|rented|bought|purchased|found|moved into|'ve moved into|"
         rf"have moved into|got the keys to)\s+(?P<home>(?:(?:my|our)\s+(?:own\s+)?|an?\s+|the\s+)?(?:(?!(?:to|of|for|my|our|the)\b)[\w-]+\s+){{0,3}}?"
         rf"(?:place|home|{_HOME})(?:,\s+(?:an?\s+)?(?:[\w-]+\s+){{0,3}}?{_HOME})?)\s+(?P<prep>in|near|on|by|off|close to|outside)\s+(?P<v>.+)",
         handler=handlers.home_in, examples=[
             ("I finally got my own flat in Cardiff", ("user", "location", "Cardiff")),
             ("We bought a house in York", ("user", "location", "York")),
             ("We rent a small flat near the station.", "User lives in a small flat near the station."),
             ("we bought a house on the edge of town in March", ("user", "location", "a house on the edge of town")),
         ]),
    Rule("commute", "commute", rf"^{_I}\s+{_NOW}(?:(?:usually|normally|mostly|always|often)\s+)?(?:"
         rf"(?:commute|get|go|travel|come|head)\s+(?:in(?:to\s+\w+)?\s+|to\s+{_WORKPLACE}\s+)?(?:by|on)\s+(?:the\s+)?(?P<v>{_VEHICLE}|foot)|"
         rf"(?:take|catch|ride|get)\s+(?:the|a|my)\s+(?P<v2>{_VEHICLE})\s+(?:in\b|into\s+\w+|to\s+{_WORKPLACE})|"
         rf"(?P<v3>cycle|bike|walk|drive|run|scoot)\s+(?:in\b|into\s+\w+|to\s+{_WORKPLACE})|"
         rf"(?:switched|changed|moved|gone|went)\s+(?:over\s+)?to\s+(?:the\s+)?(?P<v4>cycling|biking|walking|driving|running|"
         rf"{_VEHICLE})\s+(?:in\b|into\s+\w+|to\s+{_WORKPLACE}))",
         handler=handlers.commute, examples=[
             ("I take the tube to the office.", ("user", "commute", "tube")),
             ("I cycle in every day now", ("user", "commute", "bike")),
             ("I switched to cycling to work since spring.", ("user", "commute", "bike")),
             ("I commute by bus.", ("user", "commute", "bus")),
             ("we usually go to school on foot", ("user", "commute", "foot")),
         ]),
    Rule("home", "location", r"^(?:my (?:home|address|home address|city|location)(?: now)? is|home is(?: now)?)\s+(?:in\s+)?(?P<v>.+)",
         template="{S} lives in {v}.", examples=[
             ("My home is in Leeds", ("user", "location", "Leeds")),
             ("My address is 12 Baker Street", "User lives in 12 Baker Street."),
         ]),
    Rule("job_at_employer", "job_title, employer", rf"^(?i:{_IM}\s+{_NOW}(?:an?\s+))(?P<job>.+?)\s+(?i:at|for)\s+(?P<emp>[A-Z0-9].+)$",
         handler=handlers.job_at, flags=0, examples=[
             ("I'm a nurse at St. Mary's Hospital", ("user", "job_title", "nurse")),
             ("I'm a backend engineer at Shopify", ("user", "employer", "Shopify")),
         ]),
    Rule("work_as_at_employer", "job_title, employer", rf"^(?i:{_I}\s+{_NOW}(?:work|am working|'m working|have been working|'ve been working)\s+as\s+(?:an?\s+|the\s+)?)(?P<job>.+?)\s+(?i:at|for|in)\s+(?P<emp>[A-Z0-9].+)$",
         handler=handlers.job_at, flags=0, examples=[
             ("I work as a nurse at St. Mary's Hospital", ("user", "employer", "St. Mary's Hospital")),
             ("I work as a software engineer at Spotify.", ("user", "job_title", "software engineer")),
         ]),
    Rule("employer", "employer", rf"^(?:{_I}\s+{_NOW}(?:work|am working|'m working|have been working|'ve been working|am employed|'m employed)\s+(?:at|for|by)|{_I}\s+{_NOW}(?:(?:started|got|landed|accepted|took|began)\s+(?:a\s+)?(?:new\s+)?(?:job|position|role|gig)\s+(?:at|with)|joined(?=\s+(?:the\s+)?(?-i:[A-Z])|\s+(?:a|an|the)\s+(?:[\w-]+\s+){{0,2}}?(?:startup|company|firm|agency|bank|consultancy|studio|lab|hospital|clinic|school|university|practice|nonprofit|charity|council|ministry|department|newspaper|publisher|team at)\b)|started at|started working at|started working for|got a job at|got hired at|got hired by|took a job at|accepted a job at|accepted an offer from|switched jobs to|moved to a job at|changed jobs to)|{_IM}\s+{_NOW}(?:employed (?:at|by)|working (?:at|for)|at))\s+(?P<v>.+)",
         handler=handlers.employer, examples=[
             ("I work at Spotify", ("user", "employer", "Spotify")),
             ("I just joined Stripe", ("user", "employer", "Stripe")),
         ]),
    Rule("job", "job_title", rf"^(?:{_I}\s+{_NOW}(?:work|am working|'m working)\s+as|{_IM}\s+{_NOW}working\s+as|my (?:job|role|position|title|job title|profession|occupation) is|{_I}\s+{_NOW}(?:became|got promoted to|was promoted to|have become)|{_I}\s+{_NOW}(?:got|landed|found|took|accepted|started)\s+(?:a\s+|the\s+)?(?:new\s+)?(?:job|role|position|gig)\s+as|{_I}\s+{_NOW}(?:started|began)\s+(?:working\s+)?as)\s+(?:an?\s+|the\s+)?(?P<v>.+)",
         handler=handlers.job, examples=[
             ("I work as a chef.", ("user", "job_title", "chef")),
             ("got a job as a junior dev finally!!", ("user", "job_title", "junior dev")),
             ("I started as a nurse at the clinic in May", ("user", "job_title", "nurse at the clinic")),
             ("My job is a teacher", "User works as a teacher."),
         ]),
    Rule("diet", "diet", rf"^{_IM}\s+{_NOW}(?:an?\s+)?(?P<v>(?:{DIETS}))(?:\s+now)?\b(?P<rest>.*)$",
         examples=[
             ("I'm vegetarian now", ("user", "diet", "vegetarian")),
             ("I'm vegan.", "User is vegan."),
         ]),
    Rule("job_identity", "job_title", rf"^{_IM}\s+{_NOW}(?:an?\s+)(?P<v>.+)$",
         handler=handlers.job_identity, examples=[
             ("I'm a data scientist", ("user", "job_title", "data scientist")),
         ]),
    Rule("diet_not", "diet", r"^i (?:(?:don't|do not|no longer|never|can't|cannot|won't) (?:eat|consume|touch)|(?:stopped|quit|gave up) eating)\s+(?P<v>.+)",
         handler=handlers.diet_not, examples=[
             ("I don't eat pork", ("user", "diet", "no pork")),
         ]),
    Rule("allergy", "allergies", r"^(?:i'?m|i am|i've always been|i have been)\s+(?:severely |very |mildly |deathly |really )?allergic to\s+(?P<v>.+)|^i have an? (?P<w>.+?) allergy",
         handler=handlers.allergy, examples=[
             ("I'm allergic to peanuts", ("user", "allergies", "peanuts")),
             ("I have a nut allergy", ("user", "allergies", "nut")),
         ]),
    Rule("pets", "pets", rf"^(?:i|we)\s+{_NOW}(?:have|own|got|adopted|have got|'ve got|rescued|am getting|'m getting|are getting|just got)\s+(?P<v>(?:an?|one|two|three|four|\d+|some|several)?\s*(?:[\w-]+\s+){{0,3}}?(?:{PETS})\b.*)",
         examples=[
             ("I have two cats", ("user", "pets", "two cats")),
             ("I have a golden retriever named Max", ("user", "pets", "a golden retriever named Max")),
         ]),
    Rule("pet_name", "pets", rf"^(?i:my) (?P<kind>(?i:{PETS}))(?i:'s name)? (?i:is) (?i:called |named )?(?P<v>[A-Z][\w'-]+.*)$",
         handler=handlers.pet_name, flags=0, examples=[
             ("My cat is called Miso", ("user", "pets", "cat named Miso")),
         ]),
    Rule("count", "*_count", r"^(?:i|we) (?:have|'ve got|have got) (?P<n>no|zero|one|two|three|four|five|six|seven|eight|nine|ten|\d+) (?P<noun>siblings?|kids?|children|child|pets?)\b",
         handler=handlers.count, examples=[
             ("I have two kids.", ("user", "children_count", "two")),
             ("I have three siblings.", ("user", "sibling_count", "three")),
         ]),
    Rule("sibling", "siblings, children", r"^(?:i|we) have (?:an?|one|two|three|\d+) (?:(?:older|younger|little|big|twin|step|half)[\s-])?(?P<rel>sister|brother|son|daughter|kid|child)s?\b(?:\s+(?:named|called)\s+(?P<v>[A-Z][\w'-]+))?",
         handler=handlers.sibling, examples=[
             ("I have an older sister named Ana", ("user", "siblings", "an older sister named Ana")),
             ("We have two daughters", ("user", "children", "two daughters")),
         ]),
    Rule("relation_name", "partner, mother, father, siblings, children", r"^(?i:my (?:(?:older|younger|little|big|twin|step|half)[\s-])?)(?P<rel>(?i:wife|husband|spouse|partner|girlfriend|boyfriend|fiancée?|fiance|mom|mum|mother|dad|father|sister|brother|son|daughter|kid))(?i:'s name)? (?i:is) (?:(?i:called |named )|(?=(?-i:[A-Z])))(?P<v>[A-Z][\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)\s*$",
         handler=handlers.relation_name, examples=[
             ("My partner is called Ren.", ("user", "partner", "Ren")),
             ("My brother is called Ravi.", ("user", "siblings", "brother Ravi")),
         ]),
    Rule("languages", "languages", r"^(?:i|we)\s+(?:also\s+)?(?:speak|can speak|am fluent in|'m fluent in|speak fluent|am a native speaker of|'m a native speaker of)\s+(?P<v>.+)",
         examples=[
             ("I speak Spanish and Portuguese", ("user", "languages", "Spanish and Portuguese")),
         ]),
    Rule("instrument", "instruments", rf"^i\s+{_NOW}(?:play|can play|have been playing|'ve been playing|started playing|learned to play|learnt to play)\s+(?:the\s+|a\s+little\s+|some\s+)?(?P<v>(?:{INSTRUMENTS}))\b",
         value=clean_lower, examples=[
             ("I also play the piano", ("user", "instruments", "piano")),
         ]),
    Rule("sport", "hobbies", rf"^i\s+{_NOW}(?:play|enjoy playing|love playing|like playing)\s+(?P<v>(?:{SPORTS}))\b",
         value=clean_lower, examples=[
             ("I play tennis on weekends.", ("user", "hobbies", "tennis")),
         ]),
    Rule("hobby", "hobbies", r"^(?:my (?:main |favou?rite |big )?hobb(?:y|ies) (?:is|are|include)|in my (?:free|spare) time,? i(?: like to| love to| enjoy)?|for fun,? i)\s+(?P<v>.+)",
         examples=[
             ("My hobbies are painting and chess", ("user", "hobbies", "painting and chess")),
             ("In my free time I like to bake bread", ("user", "hobbies", "bake bread")),
         ]),
    Rule("go_ing", "hobbies", r"^i (?:go|love going|like going|enjoy going|went)\s+(?P<v>\w+ing)\b(?P<rest>.*)$",
         examples=[
             ("I go climbing on weekends", ("user", "hobbies", "climbing")),
         ]),
    Rule("favorite", "favorite_*", r"^(?:my (?:favou?rite|fav|favorite|preferred|go-to)\s+(?P<kind>[\w\s-]+?)\s+(?:is|are|has to be|would be|was|remains)\s+(?P<v>.+)|(?P<v2>[^,]+?)\s+(?:is|are) (?:still |now |definitely )?my (?:new |all-time |absolute )?(?:favou?rite|fav)\s+(?P<kind2>[\w\s-]+?))$",
         handler=handlers.favorite, examples=[
             ("My favourite food is sushi", ("user", "favorite_food", "sushi")),
             ("My favourite band is Muse.", "User's favorite band is Muse."),
         ]),
    Rule("likes", "likes, *", r"^i (?:really |absolutely |also |just |still |totally )*(?:prefer|like|love|enjoy|adore|am into|'m into|am a (?:big |huge )?fan of|'m a (?:big |huge )?fan of|dig|can't live without|am obsessed with|'m obsessed with)\s+(?P<v>.+)",
         handler=handlers.likes, examples=[
             ("I love hiking", ("user", "likes", "hiking")),
             ("I prefer dark mode", ("user", "theme", "dark mode")),
         ]),
    Rule("dislikes", "dislikes", r"^i (?:really |absolutely |just )*(?:hate|dislike|can't stand|cannot stand|detest|despise|don't like|do not like|don't enjoy|am not a fan of|'m not a fan of|avoid)\s+(?P<v>.+)",
         type="preference", examples=[
             ("I hate horror movies.", ("user", "dislikes", "horror movies")),
         ]),
    Rule("code_in", "programming_languages", r"^(?:i|we)\s+(?:mostly |mainly |usually |primarily |now |currently )*(?:code|program|write code|develop|write)\s+(?:mostly |mainly |primarily )?in\s+(?P<v>.+)",
         examples=[
             ("I code in Python", ("user", "programming_languages", "Python")),
         ]),
    Rule("use", "*", rf"^(?:(?:i|we)\s+{_NOW}(?:use|am using|'m using|are using|run|am running|'m running|'re using|'re running|rely on|daily-drive|daily drive|work on|work with|have|own|drive|(?:got|bought)(?:\s+(?:myself|me|ourselves|us))?|picked up|purchased|treated (?:myself|ourselves) to)|{_IM}\s+{_NOW}(?:using|on|running)|(?:i|we)\s+{_NOW}(?:switched|switch|moved|migrated|changed|upgraded|went back|am switching|'m switching|are switching|'re switching|are moving|'re moving|are migrating|'re migrating)\s+(?:over\s+)?(?:from\s+(?P<old>.+?)\s+)?to)\s+(?P<v>.+)",
         handler=handlers.use, examples=[
             ("I use Arch Linux.", ("user", "os", "Arch Linux")),
             ("We're using Postgres for the backend", ("project", "project_database", "Postgres")),
         ]),
    Rule("building", "framework, project_description", r"^(?:i'?m|i am|we'?re|we are)\s+(?:currently |now |still |also )*(?:building|working on|developing|making|creating|writing|shipping|prototyping|hacking on)\s+(?P<v>.+)",
         handler=handlers.building, examples=[
             ("I'm building a Next.js app.", ("project", "framework", "Next.js")),
             ("I'm building a budgeting tool for freelancers", ("project", "project_description", "a budgeting tool for freelancers")),
             ("I'm making a habit tracker for nurses in Flutter.", ("project", "project_description", "a habit tracker for nurses in Flutter")),
             ("We're developing a parking app for campuses in SvelteKit", ("project", "framework", "SvelteKit")),
         ]),
    Rule("project_attr", "*", rf"^(?:(?:the|my|our|this)\s+)?(?:project(?:'s)?\s+|app(?:'s)?\s+|site(?:'s)?\s+|product(?:'s)?\s+)?(?:(?P<qual>[a-z][\w-]*)\s+)??(?P<attr>{_PROJECT_ATTR_ALT})\s*{_PROJECT_VERB}\s*(?:(?:now|still)\s+)?(?:to|for|on|at|until|as|from\s+\S.*?\s+to)?\s*(?P<v>.+)",
         handler=handlers.project_attr, examples=[
             ("My project deadline is October 15.", ("project", "deadline", "October 15")),
             ("Actually, the deadline moved to November 2.", ("project", "deadline", "November 2")),
             ("my budget is 5k", "Project budget is 5k."),
         ]),
    Rule("due", "deadline", r"^(?:it's|it is|the (?:project|app|release|launch|mvp|demo) is|everything is|we(?:'re| are) (?:due|shipping|launching|releasing)|we (?:ship|launch|release|go live))\s+(?:now\s+)?(?:due|shipping|launching|releasing)?\s*(?:on|by|in|for|before)\s+(?P<v>.+)",
         subject="project", type="project_detail", examples=[
             ("We're launching on the 1st of May.", ("project", "deadline", "the 1st of May")),
         ]),
    Rule("project_name", "project_name", r"^(?:(?:the|my|our) )?(?:project|app|product|startup|side project) is (?:called|named)\s+(?P<v>.+)",
         template="The project is called {v}.", subject="project", type="project_detail", examples=[
             ("Our app is called Tidewater", ("project", "project_name", "Tidewater")),
             ("The project is named Nimbus", "The project is called Nimbus."),
         ]),
    Rule("event", "date, deadline", rf"^(?:(?:(?:i|we) (?:have|'ve got|got|have got)|there(?:'s| is)|(?:my|our|the))\s+(?:an?\s+|my\s+|our\s+|the\s+)?(?P<e>[\w\s'-]{{0,30}}?(?:{EVENT_NOUNS})(?:\s+(?:with|to|at|for|in)\s+(?:the\s+|my\s+|our\s+)?[\w'-]+)?)|(?P<bare>(?:[\w'-]+\s+(?=(?-i:[a-z])))?(?:{EVENT_NOUNS})))(?:\s*:\s*|'s\s+|\s+)(?:is\s+|was\s+|got\s+|has been\s+|will be\s+|'ll be\s+|is going to be\s+|'s\s+)?(?:(?:lands|departs|leaves|starts|begins|ends|arrives|happens|takes place)\s+)?(?:now\s+)?(?:moved\s+|rescheduled\s+|pushed\s+|postponed\s+|changed\s+|set\s+|scheduled\s+|planned\s+|booked\s+)?(?:to\s+|for\s+)?(?P<v>{WHEN}.*)$",
         handler=handlers.event, examples=[
             ("The standup moved to 10am", ("event:standup", "date", "10am")),
             ("My flight lands at 18:40", ("event:flight", "date", "at 18:40")),
             ("Dentist appointment: the 9th.", ("event:appointment dentist", "date", "the 9th")),
             ("The wedding will be on June 21.", ("event:wed", "date", "on June 21")),
             ("Daily standup happens at 10.", ("event:standup", "date", "at 10")),
             ("Wedding's on the 21st.", ("event:wed", "date", "on the 21st")),
         ]),
    Rule("trip", "date", r"^(?:i'?m|i am|we'?re|we are)\s+(?:going|flying|traveling|travelling|heading|driving|off|visiting|taking a trip)\s+(?:to\s+)?(?P<e>.+?)\s+(?P<v>(?:on|in|next|this|tomorrow|for|over|during|at the end of)\b.+)$",
         handler=handlers.trip, examples=[
             ("I'm going to Japan in April.", ("event:japan trip", "date", "in April")),
         ]),
    Rule("goal", "goal", r"^(?:my (?:main |big |long[- ]term |career |ultimate |new |current )?(?:goal|dream|ambition|plan|aim|resolution|objective) (?:is|for this year is|this year is) to|i (?:really )?(?:want|wanna|would like|'d like|hope|plan|am planning|'m planning|intend|aim|am aiming|'m aiming|am hoping|'m hoping|am trying|'m trying|dream) to|i(?:'m| am) (?:training|preparing|saving up|studying) for)\s+(?P<v>.+)",
         type="goal", examples=[
             ("I want to run a marathon next year", ("user", "goal", "run a marathon next year")),
         ]),
    Rule("learning", "learning", r"^(?:i'?m|i am)\s+(?:currently |also |now )*(?:learning|studying|taking (?:a )?(?:course|class)(?:es)? (?:in|on))\s+(?P<v>.+)",
         type="goal", examples=[
             ("I'm learning German.", ("user", "learning", "German")),
         ]),
    Rule("education", "education", r"^(?:i (?:study|studied|majored in|graduated in|have a degree in|'ve got a degree in|hold a degree in)|i graduated from|i went to(?=(?:\s+[\w'-]+){0,5}?\s+(?:university|college|school|uni|academy|institute|polytechnic|conservatory|conservatoire)\b)|i(?:'m| am) (?:a (?:student|freshman|sophomore|junior|senior) )?at)\s+(?P<v>.+)",
         examples=[
             ("I study at MIT", ("user", "education", "at MIT")),
         ]),
    Rule("new_person", "*", r"^(?:i|we) (?:have|got|'ve got|have got) (?:an?\s+)?(?:new\s+)?(?!been\b|had\b|got\b)(?P<rel>[a-z][\w -]{1,30}?)(?:\s+now)?(?:,|\s+and|\s+-)?\s+(?:(?:his|her|their) name is|(?:he|she|they)(?:'s| is| are) called|named|called)\s+(?P<v>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?)",
         handler=handlers.new_person, examples=[
             ("I have a new manager now, his name is Tomasz.", ("user", "manager", "Tomasz")),
         ]),
    Rule("deploy", "hosting", r"^(?:(?:we|i) (?:deploy|host|ship|run)(?: it| the app| the site| the project| everything| our app| my app)?|(?:the|our|my) (?:app|site|project|api|service|backend|frontend) (?:is deployed|is hosted|runs|is running|lives))\s+(?:on|to|at|with|in)\s+(?P<v>.+)",
         handler=handlers.deploy, examples=[
             ("We deploy on Fly.io.", ("project", "hosting", "Fly.io")),
         ]),
    Rule("project_uses", "framework, hosting, project_database, project_language", r"^(?:the|our|my) (?:app|site|project|api|service|product|codebase|backend|frontend) (?:uses|is built (?:with|on|in)|is written in|relies on|runs on|is using)\s+(?P<v>.+)",
         handler=handlers.project_uses, examples=[
             ("Our API is written in Go.", ("project", "project_language", "Go")),
             ("The project uses PostgreSQL.", ("project", "project_database", "PostgreSQL")),
         ]),
    Rule("my_x_is", "*", r"^(?:my|our) (?P<attr>[a-z][\w\s'-]{0,30}?)\s+(?P<cop>is|are|was|were|=|:)\s+(?P<v>.+)",
         handler=handlers.my_x_is, examples=[
             ("My salary is 85k.", ("user", "salary", "85k")),
             ("My email is sam@example.com", ("user", "email", "sam@example.com")),
         ]),
)


def apply_rules(clause: str, S: str, P: str) -> list[Found]:
    """The findings of the first rule that understands the clause."""
    for row in RULES:
        found = row.apply(clause, S, P)
        if found:
            return found
    return []
