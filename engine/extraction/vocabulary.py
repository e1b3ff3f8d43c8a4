"""The data extraction reads: canonical slots, the gazetteer of well-known names, word lists and cue patterns.

Nothing here runs at import time beyond compiling regular expressions.
"""
from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Slot:
    name: str
    type: str
    multi: bool
    importance: float
    description: str
    subject: str = "user"


def _slots(*rows: tuple) -> dict[str, Slot]:
    return {row[0]: Slot(*row) for row in rows}


# Canonical attributes. `multi` slots accumulate values ("I also play piano"); single ones are replaced.
SLOTS: dict[str, Slot] = _slots(
    ("name", "fact", False, 0.8, "the person's name, what they are called"),
    ("age", "fact", False, 0.6, "how old the person is, their age in years"),
    ("birthday", "fact", False, 0.7, "birthday, date of birth, when they were born"),
    ("location", "fact", False, 0.7, "where the person lives: city, country, home address, place of residence"),
    ("hometown", "fact", False, 0.6, "where the person is from, grew up, hometown, place of birth"),
    ("employer", "fact", False, 0.7, "the company or organisation the person works for, employer, workplace"),
    ("job_title", "fact", False, 0.7, "the person's job, occupation, role, profession, position"),
    ("education", "fact", False, 0.6, "school, university, degree, what the person studies or studied"),
    ("partner", "fact", False, 0.7, "wife, husband, spouse, partner, girlfriend, boyfriend"),
    ("mother", "fact", False, 0.6, "the person's mother, mom"),
    ("father", "fact", False, 0.6, "the person's father, dad"),
    ("siblings", "fact", True, 0.6, "brother or sister, siblings"),
    ("children", "fact", True, 0.7, "son or daughter, kids, children"),
    ("pets", "fact", True, 0.6, "pet animals: dog, cat, bird, fish, their names"),
    ("languages", "fact", True, 0.6, "human languages the person speaks: English, Spanish, Japanese"),
    ("email", "fact", False, 0.6, "email address"),
    ("phone", "fact", False, 0.6, "phone number, mobile number"),
    ("timezone", "fact", False, 0.6, "time zone"),
    ("car", "fact", False, 0.5, "the car or vehicle the person drives"),
    ("commute", "fact", False, 0.6, "how the person gets to work, school or around: by bus, train, bike, car or on foot"),
    ("allergies", "fact", True, 0.9, "allergies, allergic reactions to food or medicine, health constraints"),
    ("health", "fact", True, 0.7, "medical conditions, health, injuries, medication"),
    ("diet", "preference", False, 0.8, "diet: vegetarian, vegan, keto, gluten-free, food they do not eat"),
    ("os", "preference", False, 0.6, "computer operating system: Linux, Windows, macOS"),
    ("editor", "preference", False, 0.6, "code editor or IDE: Vim, VS Code, Emacs"),
    ("shell", "preference", False, 0.5, "command line shell: bash, zsh, fish"),
    ("browser", "preference", False, 0.5, "web browser: Firefox, Chrome, Safari"),
    ("phone_model", "preference", False, 0.5, "mobile phone model: iPhone, Android, Pixel"),
    ("laptop", "preference", False, 0.5, "laptop or computer hardware the person uses"),
    ("theme", "preference", False, 0.5, "colour theme of the editor or apps: dark mode, light mode"),
    ("indentation", "preference", False, 0.5, "code formatting: tabs or spaces, indentation width"),
    ("programming_languages", "preference", True, 0.6, "programming languages the person codes in"),
    ("database", "preference", False, 0.6, "database the person prefers: PostgreSQL, MySQL, MongoDB"),
    ("tools", "preference", True, 0.5, "software tools, apps and services the person uses"),
    ("favorite_food", "preference", False, 0.6, "favourite food, dish, cuisine the person likes to eat"),
    ("favorite_drink", "preference", False, 0.6, "favourite drink: coffee, tea, beer, wine"),
    ("favorite_color", "preference", False, 0.5, "favourite colour"),
    ("favorite_music", "preference", False, 0.6, "favourite music, band, artist, song, music genre"),
    ("favorite_movie", "preference", False, 0.5, "favourite movie or film"),
    ("favorite_book", "preference", False, 0.5, "favourite book or author"),
    ("favorite_show", "preference", False, 0.5, "favourite TV show or series"),
    ("favorite_sport", "preference", False, 0.5, "favourite sport or team"),
    ("favorite_game", "preference", False, 0.5, "favourite video game or board game"),
    ("likes", "preference", True, 0.55, "things the person likes, loves or enjoys"),
    ("dislikes", "preference", True, 0.55, "things the person dislikes, hates or avoids"),
    ("hobbies", "preference", True, 0.6, "hobbies, sports and pastimes: hiking, climbing, painting, chess"),
    ("instruments", "preference", True, 0.6, "musical instruments the person plays: guitar, piano, violin"),
    ("goal", "goal", True, 0.7, "goals, plans, ambitions, what the person wants to achieve"),
    ("learning", "goal", True, 0.65, "what the person is currently learning or studying"),
    ("event", "event", True, 0.7, "upcoming events: meetings, appointments, trips, conferences, interviews"),
    ("project_name", "project_detail", False, 0.7, "the name of the project or app", "project"),
    ("project_description", "project_detail", False, 0.7, "what the project or app being built is", "project"),
    ("framework", "project_detail", False, 0.8, "the project's framework: Next.js, Django, Rails", "project"),
    ("project_language", "project_detail", False, 0.7, "the project's programming language", "project"),
    ("project_database", "project_detail", False, 0.8, "the project's database", "project"),
    ("frontend", "project_detail", False, 0.7, "the project's frontend, UI framework", "project"),
    ("backend", "project_detail", False, 0.7, "the project's backend, server framework", "project"),
    ("hosting", "project_detail", False, 0.7, "where the project is hosted or deployed: AWS, Vercel", "project"),
    ("deadline", "project_detail", False, 0.9, "project deadline, due date, launch or release date", "project"),
    ("budget", "project_detail", False, 0.8, "project budget, cost limit", "project"),
    ("repository", "project_detail", False, 0.6, "code repository URL, GitHub repo", "project"),
    ("port", "project_detail", False, 0.6, "the port the app or server runs on", "project"),
    ("team", "project_detail", False, 0.6, "the project team: size, members, who works on it", "project"),
    ("client", "project_detail", False, 0.7, "the client or customer the project is for", "project"),
    ("sibling_count", "fact", False, 0.6, "how many brothers and sisters the person has"),
    ("children_count", "fact", False, 0.7, "how many children the person has"),
    ("pet_count", "fact", False, 0.5, "how many pets the person has"),
    ("reply_language", "preference", False, 0.8, "the language the assistant should reply in"),
    ("assistant_instruction", "preference", True, 0.8, "how the assistant should answer, write or behave for the person"),
    ("note", "fact", True, 0.5, "other information about the person"),
)
CATCH_ALL = "note"  # the slot of what no rule understood: sentences about anything


# --- gazetteer: well-known names that tell which slot a value belongs to ---------------------

KNOWN = {
    "os": "arch linux|arch|ubuntu|debian|fedora|linux mint|mint|manjaro|linux|windows 11|windows 10|windows|"
    "macos|mac os|osx|os x|pop!_os|pop os|nixos|gentoo|freebsd|chromeos|chrome os|endeavouros|opensuse",
    "editor": "neovim|nvim|vim|emacs|vs ?code|visual studio code|visual studio|sublime text|sublime|atom|intellij|"
    "pycharm|webstorm|goland|clion|rider|zed|helix|nano|cursor|xcode|android studio|notepad\\+\\+|jetbrains",
    "shell": "bash|zsh|fish shell|fish|powershell|nushell",
    "browser": "firefox|chrome|chromium|safari|edge|brave|arc browser|opera|vivaldi",
    "database": "postgresql|postgres|mysql|mariadb|sqlite|mongodb|mongo|redis|dynamodb|cassandra|supabase|"
    "firebase|firestore|neo4j|cockroachdb|oracle|sql server|duckdb|elasticsearch|clickhouse|planetscale",
    "framework": "next\\.?js|nextjs|react native|react|vue(?:\\.js)?|nuxt|sveltekit|svelte|angular|django|flask|"
    "fastapi|ruby on rails|rails|laravel|spring boot|spring|express(?:\\.js)?|nestjs|remix|astro|gatsby|flutter|"
    "electron|tauri|phoenix|asp\\.net|\\.net|streamlit|htmx|solidjs|qwik|ember",
    "programming_languages": "python|javascript|typescript|rust|golang|go|java|kotlin|swift|c\\+\\+|c#|ruby|php|"
    "scala|elixir|haskell|clojure|dart|julia|lua|zig|ocaml|perl|fortran|cobol|r",
    "hosting": "aws|amazon web services|gcp|google cloud|azure|vercel|netlify|heroku|fly\\.io|render|digitalocean|"
    "cloudflare|railway|linode|hetzner|github pages|kubernetes|k8s",
    "phone_model": "iphone(?: \\d+)?|android|pixel(?: \\d+)?|galaxy s\\d+|samsung galaxy|oneplus",
    "laptop": "macbook(?: pro| air)?|thinkpad|xps|surface|framework laptop|chromebook",
    "theme": "dark mode|light mode|dark theme|light theme|solarized|dracula|gruvbox|monokai",
    "indentation": "tabs|spaces|\\d+[- ]space indent(?:ation)?",
}
# A name that is also a common noun is that noun when "of" follows it: "the edge of town", "the mint of a coin".
KNOWN_RE = {slot: re.compile(rf"(?<![\w.])(?:{pat})(?![\w])(?!\s+of\b)", re.IGNORECASE) for slot, pat in KNOWN.items()}


def known_slot(value: str) -> tuple[str, str] | None:
    """The slot a well-known product name belongs to, and the name as matched."""
    for slot, pattern in KNOWN_RE.items():
        for m in pattern.finditer(value):
            if m.group(0) in _SEASONS and _TIME_PREPOSITION_BEFORE.search(value[:m.start()]):
                continue  # "cycling since spring": the season; "written in Spring" is still the framework
            return slot, m.group(0)
    return None


_SEASONS = frozenset({"spring"})  # lowercase only: the framework is written with a capital
_TIME_PREPOSITION_BEFORE = re.compile(
    r"\b(?:since|in|this|last|next|every|by|until|till|early|late|during)\s+(?:the\s+)?$", re.IGNORECASE)


# --- cues: words that mark an update, a correction or an important constraint ------------------

CUE_PREFIX = re.compile(
    r"^(?:(?:actually|correction|update|oops|sorry|scratch that|wait|no wait|oh wait|my bad|i meant|"
    r"i misspoke|to correct myself|let me correct that|small correction|quick correction|change of plans|"
    r"never mind|nevermind|nope|"
    # "no" that answers, not "no more friday deploys", "no meat for me"
    r"no(?=\s*[,.!;:-]|\s+(?:i|i'm|im|it|it's|its|we|we're|my|our|the|that|that's|this|actually|wait|sorry|you|he|"
    r"she|they)\b)|not quite|turns out|as of (?:today|now|this week)|these days|nowadays|"
    r"from now on|starting (?:today|now|next week)|now|currently|right now|at the moment|for now|"
    # chat's openers, which say how something is said, not what: "ngl radiohead is my favourite band"
    r"ngl|tbh|tbf|imo|imho|fwiw|btw|honestly|ok so|okay so|anyway|anyways|lol|omg)\b[\s,:;!.-]*)+",
    re.IGNORECASE,
)
class CuePattern:
    """A cue word pattern that passes over a capitalised word inside a sentence: that word is part of a name,
    not the cue ("bought a Switch", "visited New York", "a Moved Out tour"), though it reads like one."""

    def __init__(self, pattern: str, flags: int = re.IGNORECASE):
        self.regex = re.compile(pattern, flags)

    def search(self, text: str) -> re.Match[str] | None:
        for match in self.regex.finditer(text):
            if not _inside_a_name(text, match):
                return match
        return None


def _inside_a_name(text: str, match: re.Match[str]) -> bool:
    word = match.group(0)
    if not word[:1].isupper() or word.split()[0] in ("I", "I'm", "I've"):
        return False
    before = text[: match.start()].rstrip()
    return bool(before) and before[-1] not in ".!?:;\"'(-—"


UPDATE_CUES = CuePattern(
    r"\b(?:actually|moved|moving|relocated|switched|switching|changed|changing|no longer|not anymore|anymore|"
    r"correction|now|instead|these days|nowadays|from now on|rescheduled|postponed|pushed|delayed|slipped|slid|"
    r"brought forward|moved up|updated|update|new|i meant|scratch that|turns out|wrong|replaced|migrated|"
    r"migrating|quit|stopped|gave up|left|any more|ditched|dropped|upgraded|became|become|cut down|cut back|"
    r"down to|up to|sorry|oops|my bad|misread|mistake|mistaken|forgot|correct|no more|revised|rescheduling|"
    r"(?:not|never) going back|done with|no going back|"
    r"(?:from|starting|as of) (?:next|this|the (?:next|start of)) (?:week|month|year|term|season))\b",
)
# Saying that a thing one had or did has ended: "Sold the Golf", "we cancelled Netflix", "the kettle broke".
ENDING_CUES = CuePattern(
    r"\b(?:sold|cancell?ed|quit|stopped|ditched|dropped|closed|retired|broke up|split up|divorced|"
    r"died|dead|finished|done with|gave up|got rid of|no longer|ripped out|binned|scrapped|left|"
    r"moved out|moved away from|stolen|broke|broken|cracked|written off|totalled)\b")
# Saying outright that something said before was wrong: holds for every clause of the sentence.
CORRECTION_CUES = CuePattern(
    r"\b(?:i meant|meant to say|correction|scratch that|my bad|oops|typo|i misspoke|i was wrong|that was wrong|"
    r"mistake)\b")
FROM_TO = re.compile(r"\bfrom\s+(?P<old>.+?)\s+to\s+(?P<new>.+)$", re.IGNORECASE)
INSTEAD_OF = re.compile(r"\b(?:instead of|rather than|not)\s+(?P<old>[\w .+#-]+?)(?:[,.;]|$)", re.IGNORECASE)
IMPORTANT = re.compile(
    r"\b(?:important|must|never|always|critical|crucial|required|requirement|hard constraint|allergic|"
    r"urgent|essential|can't|cannot|strictly)\b",
    re.IGNORECASE,
)


TRAILING_PLEASANTRY = re.compile(
    r"(?:[\s,;:!.-]+(?:nice to meet you|pleased to meet you|good to meet you|thanks|thank you|cheers|lol|haha|"
    r"btw|by the way|fyi|just so you know|:\)|:-\)|;\))+)+[\s!.]*$",
    re.IGNORECASE,
)


TRAILING_NOISE = re.compile(
    r"(?:\s*[,;]?\s*(?:now|these days|nowadays|anymore|any more|instead|currently|at the moment|right now|"
    r"as well|too|lol|haha|though|btw|by the way|for now|again|actually)\b)+\s*[.!]*$",
    re.IGNORECASE,
)


TRAILING_WHEN = re.compile(
    # a date as relative dates are written once resolved: "on Monday 23 February 2026", "in February 2026"
    r"(?:\s*,?\s+(?:on\s+)?(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day\s+)?\d{1,2}\s+(?:january|february|march|"
    r"april|may|june|july|august|september|october|november|december)\s+\d{4}|"
    r"\s*,?\s+(?:in\s+)?(?:january|february|march|april|may|june|july|august|september|october|november|december)"
    r"\s+\d{4}|"
    r"\s*,?\s+(?:last|this|earlier this|back in|in|since|over the|a few|a couple of|two|three|several|\d+|"
    r"next|after|before|by|until|early|late)\s+(?:the\s+)?"
    r"(?:week|weekend|month|year|summer|winter|spring|fall|autumn|january|february|march|april|may|june|july|"
    r"august|september|october|november|december|\d{4}|days|weeks|months|years)s?(?:\s+ago)?|\s+(?:recently|"
    r"lately|yesterday|today|ago|for good|permanently|for work|for a new job|with my family|with my partner))+$",
    re.IGNORECASE,
)


# --- word lists the rules match against ---------------------------------------------------------

# The speaker's relatives: each one's words (the first names it), and who "she" or "he" can be ("f", "m", "" for
# either). One list for the extractor (whom a pronoun stands for) and for questions (near misses, a question said
# in the memory's words), so a word one of them knows the other knows too.
RELATIVES: tuple[tuple[str, str], ...] = (
    ("mother mom mum mommy mummy mam mama mammy", "f"), ("father dad daddy papa pops", "m"),
    ("sister sis", "f"), ("brother bro", "m"), ("son", "m"), ("daughter", "f"),
    ("wife missus wifey", "f"), ("husband hubby", "m"),
    ("grandmother grandma granny gran nan nana nanna", "f"),
    ("grandfather grandpa granddad grandad gramps grampa", "m"),
    ("aunt auntie aunty", "f"), ("uncle", "m"), ("niece", "f"), ("nephew", "m"), ("cousin", ""),
    ("girlfriend", "f"), ("boyfriend", "m"), ("fiance fiancee fiancé fiancée", ""),
    ("stepmother stepmom stepmum", "f"), ("stepfather stepdad", "m"), ("stepdaughter", "f"), ("stepson", "m"),
    ("mother-in-law", "f"), ("father-in-law", "m"),
)


JOB_NOUNS = re.compile(
    r"\b(?:engineer|developer|dev|designer|manager|teacher|nurse|doctor|physician|surgeon|student|scientist|"
    r"analyst|consultant|architect|lawyer|attorney|accountant|writer|editor|journalist|artist|musician|chef|"
    r"cook|baker|pilot|driver|researcher|professor|lecturer|intern|founder|ceo|cto|cfo|director|lead|"
    r"administrator|admin|technician|mechanic|electrician|plumber|carpenter|photographer|therapist|"
    r"pharmacist|dentist|vet|veterinarian|programmer|coder|freelancer|contractor|officer|agent|assistant|"
    r"specialist|coordinator|sre|devops|owner|entrepreneur|marketer|salesperson|recruiter|librarian|"
    r"paramedic|firefighter|soldier|farmer|tutor|coach|trainer|translator|economist|statistician|"
    r"biologist|chemist|physicist|mathematician|psychologist|counselor|counsellor|social worker|barista|"
    r"waiter|waitress|bartender|cashier|clerk|secretary|receptionist|producer|animator|illustrator|"
    r"tester|qa|pm|product manager|data scientist|retiree|retired|unemployed)s?\b",
    re.IGNORECASE,
)
DIETS = (
    r"vegan|vegetarian|pescatarian|pescetarian|keto|on keto|paleo|gluten[- ]free|lactose[- ]intolerant|"
    r"dairy[- ]free|kosher|halal|plant[- ]based|carnivore|flexitarian"
)
PETS = (
    r"dog|dogs|puppy|puppies|cat|cats|kitten|kittens|parrot|hamster|rabbit|bunny|fish|goldfish|turtle|tortoise|"
    r"snake|lizard|horse|bird|birds|ferret|guinea pig|gecko|chinchilla|hedgehog|budgie|cockatiel|rat|mouse|"
    r"retriever|labrador|poodle|beagle|terrier|husky|corgi|bulldog|shepherd|spaniel|dachshund|chihuahua|"
    r"pug|collie|maine coon|siamese|tabby"
)
INSTRUMENTS = (
    r"guitar|electric guitar|acoustic guitar|piano|keyboard|violin|viola|drums|bass|bass guitar|cello|flute|"
    r"saxophone|sax|ukulele|trumpet|clarinet|harp|banjo|accordion|harmonica|trombone|oboe|mandolin|synth"
)
SPORTS = (
    r"tennis|football|soccer|basketball|baseball|volleyball|chess|golf|hockey|rugby|cricket|badminton|"
    r"squash|padel|pickleball|table tennis|ping pong|video games|board games|poker|bridge|frisbee|ultimate"
)
EVENT_NOUNS = (
    r"meeting|appointment|interview|call|conference|trip|flight|exam|test|wedding|party|demo|presentation|"
    r"review|standup|stand-up|dinner|lunch|vacation|holiday|checkup|check-up|surgery|concert|match|race|"
    r"marathon|workshop|webinar|deadline|launch|release|hackathon|meetup|talk|class|lesson|session|visit|"
    r"reunion|birthday party|ceremony|recital|game|tournament|sync|retro|retrospective|1:1|one-on-one|offsite"
)
WHEN = (
    r"(?:on|at|in|next|this|tomorrow|tonight|today|every|each|later|coming|by|from|until|before|after|"
    r"the(?=\s+\d{1,2}(?:st|nd|rd|th)\b)|"
    r"january|february|march|april|may|june|july|august|september|october|november|december|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|\d)"
)
RELATIONS = {
    "wife": "partner", "husband": "partner", "spouse": "partner", "partner": "partner", "girlfriend": "partner",
    "boyfriend": "partner", "fiance": "partner", "fiancé": "partner", "fiancee": "partner", "fiancée": "partner",
    "mom": "mother", "mum": "mother", "mother": "mother", "dad": "father", "father": "father",
    "sister": "siblings", "brother": "siblings", "son": "children", "daughter": "children",
    "kid": "children", "child": "children",
}
PROJECT_ATTRS = {
    "deadline": "deadline", "due date": "deadline", "launch date": "deadline", "release date": "deadline",
    "ship date": "deadline", "go-live date": "deadline", "go live date": "deadline", "demo day": "deadline",
    "database": "project_database", "db": "project_database", "datastore": "project_database",
    "framework": "framework", "frontend framework": "framework", "backend framework": "framework",
    "frontend": "frontend", "backend": "backend", "stack": "framework", "tech stack": "framework",
    "hosting": "hosting", "host": "hosting", "cloud": "hosting", "cloud provider": "hosting",
    "hosting provider": "hosting", "server": "hosting", "deployment": "hosting",
    "repo": "repository", "repository": "repository", "github repo": "repository", "git repo": "repository",
    "port": "port", "budget": "budget", "team": "team", "team size": "team", "client": "client",
    "customer": "client", "language": "project_language", "programming language": "project_language",
    "name": "project_name", "codename": "project_name", "code name": "project_name",
}
PERSON_ATTRS = {
    "name": "name", "first name": "name", "full name": "name", "nickname": "name", "age": "age",
    "birthday": "birthday", "date of birth": "birthday", "bday": "birthday",
    "address": "location", "home": "location", "home town": "hometown", "hometown": "hometown",
    "city": "location", "location": "location", "employer": "employer", "company": "employer",
    "workplace": "employer", "job": "job_title", "role": "job_title", "position": "job_title",
    "title": "job_title", "job title": "job_title", "profession": "job_title", "occupation": "job_title",
    "email": "email", "email address": "email", "e-mail": "email", "phone": "phone", "phone number": "phone",
    "number": "phone", "cell": "phone", "mobile": "phone", "mobile number": "phone", "timezone": "timezone",
    "time zone": "timezone", "car": "car", "diet": "diet", "os": "os", "operating system": "os",
    "editor": "editor", "ide": "editor", "shell": "shell", "browser": "browser", "laptop": "laptop",
    "phone model": "phone_model", "theme": "theme", "major": "education", "degree": "education",
    "school": "education", "university": "education", "college": "education",
    "goal": "goal", "main goal": "goal", "dream": "goal", "plan": "goal", "hobby": "hobbies",
    "hobbies": "hobbies", "native language": "languages", "mother tongue": "languages",
}
# Words for one kind of favourite: "film" and "movie" are one slot, so the later replaces the earlier. Kinds that
# are only near each other are slots of their own ("favourite band" and "favourite singer" can both hold, as can
# "favourite book" and "favourite author"); a kind not listed gets "favorite_<kind>".
FAVORITE_KINDS = {
    "food": "favorite_food", "dish": "favorite_food", "meal": "favorite_food",
    "drink": "favorite_drink", "beverage": "favorite_drink",
    "color": "favorite_color", "colour": "favorite_color", "music": "favorite_music", "genre": "favorite_music",
    "band": "favorite_band", "artist": "favorite_artist", "musician": "favorite_artist",
    "movie": "favorite_movie", "film": "favorite_movie", "book": "favorite_book", "novel": "favorite_book",
    "author": "favorite_author", "writer": "favorite_author", "show": "favorite_show", "tv show": "favorite_show",
    "series": "favorite_show", "sport": "favorite_sport", "team": "favorite_team", "game": "favorite_game",
    "video game": "favorite_game",
}


COUNT_NOUNS = {"sibling": "sibling_count", "kid": "children_count", "child": "children_count",
                "children": "children_count", "pet": "pet_count"}
