"""Turn an informative clause into (subject, attribute, value) candidates.

Rules recognise the common slots of a person and a project; a clause no rule understands is still
kept as a note (the engine files it under the nearest canonical attribute by embedding similarity),
so nothing the user said is silently lost.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Callable, Protocol, runtime_checkable

from .. import text as textlib



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
    ("note", "fact", True, 0.5, "other information about the person"),
)


@dataclass(frozen=True)
class Candidate:
    subject: str
    attribute: str
    value: str
    type: str
    importance: float
    multi: bool
    text: str  # the memory as stored, third person
    clause: str  # the clause it came from
    update_cue: bool = False
    replaced_value: str | None = None  # "switched from X to Y", "no longer X": the X
    understood: bool = True  # False when no rule matched and the attribute is a best guess
    elliptical: bool = False  # "oops, I meant Tuesday": a bare value correcting the last thing said


# --- gazetteer: well-known names that tell which slot a value belongs to ---------------------

_KNOWN = {
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
_KNOWN_RE = {slot: re.compile(rf"(?<![\w.])(?:{pat})(?![\w])", re.IGNORECASE) for slot, pat in _KNOWN.items()}


def known_slot(value: str) -> tuple[str, str] | None:
    """The slot a well-known product name belongs to, and the name as matched."""
    for slot, pattern in _KNOWN_RE.items():
        m = pattern.search(value)
        if m:
            return slot, m.group(0)
    return None


# --- third-person rewriting --------------------------------------------------------------------

_MODALS = {"can", "could", "will", "would", "should", "must", "might", "may", "shall", "did", "was", "had",
           "used", "cannot", "can't", "won't", "wouldn't", "couldn't", "shouldn't", "didn't", "wasn't"}
_PAST = set("""
forgot got went had made took came saw knew thought told found gave left felt became began bought brought built
caught chose drove ate fell flew grew heard held kept lost met paid ran read said sent sold spent stood taught
wrote won woke wore broke spoke sang swam quit set put cut hit let shut hurt cost lent meant slept sat misread
""".split())
_IRREGULAR = {"have": "has", "do": "does", "go": "goes", "be": "is", "am": "is", "'m": "is", "don't": "doesn't",
              "haven't": "hasn't", "are": "is", "were": "was", "'ve": "has", "'d": "would", "'ll": "will", "'re": "is",
              "aren't": "isn't"}
_ADVERBS = {"really", "also", "just", "still", "usually", "often", "always", "never", "now", "currently",
            "mostly", "recently", "definitely", "absolutely", "actually", "only", "sometimes", "already",
            "finally", "totally", "truly", "generally", "mainly", "primarily", "normally", "basically", "kinda",
            "rarely", "seriously", "honestly", "probably", "even", "newly", "no", "longer", "not", "kind", "of",
            "sort", "pretty", "slowly", "happily", "officially", "again"}


def _third_person_verb(verb: str) -> str:
    low = verb.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if low in _MODALS or low in _PAST or low.endswith("ed") or not low.isalpha():
        return verb
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if low.endswith("y") and len(low) > 2 and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def third_person(clause: str, name: str = "User") -> str:
    """Rewrite a first-person clause about the speaker into a stored memory sentence.

    "I use Arch Linux" -> "User uses Arch Linux."; "my dog is Rex" -> "User's dog is Rex."
    """
    possessive = f"{name}'s"
    out: list[str] = []
    words = re.findall(r"\S+", clause)
    i = 0
    expect_verb = False
    while i < len(words):
        w = words[i]
        bare = re.sub(r"^[\"'(\[]+|[\"')\],.!?;:]+$", "", w)
        lead = w[: w.find(bare)] if bare else ""
        trail = w[w.find(bare) + len(bare):] if bare else w
        low = bare.lower()
        if low in ("i", "we"):
            out.append(lead + name + trail)
            expect_verb = True
        elif low in ("i'm", "im", "we're"):
            out.append(f"{lead}{name} is{trail}")
            expect_verb = False
        elif low in ("i've", "we've"):
            out.append(f"{lead}{name} has{trail}")
        elif low in ("i'd", "we'd"):
            out.append(f"{lead}{name} would{trail}")
        elif low in ("i'll", "we'll"):
            out.append(f"{lead}{name} will{trail}")
        elif low in ("my", "our"):
            out.append(lead + possessive + trail)
        elif low in ("mine", "ours"):
            out.append(lead + possessive + trail)
        elif low in ("me", "us"):
            out.append(lead + ("them" if out else name) + trail)
        elif low in ("myself", "ourselves"):
            out.append(lead + "themselves" + trail)
        elif expect_verb and low in _ADVERBS:
            out.append(w)
            i += 1
            continue
        elif expect_verb and bare:
            if low == "do" and i + 1 < len(words) and words[i + 1].lower().startswith("not"):
                out.append(lead + "does" + trail)
            else:
                out.append(lead + _third_person_verb(bare) + trail)
            expect_verb = False
        else:
            out.append(w)
            expect_verb = False
        i += 1
    sentence = " ".join(out).strip()
    sentence = re.sub(r"\s+([,.!?;:])", r"\1", sentence)
    return finish_sentence(sentence)


def finish_sentence(sentence: str) -> str:
    sentence = sentence.strip().rstrip(",;:-")
    if not sentence:
        return sentence
    sentence = sentence[0].upper() + sentence[1:]
    if sentence[-1] not in ".!?":
        sentence += "."
    return sentence


# --- cues ------------------------------------------------------------------------------------

_CUE_PREFIX = re.compile(
    r"^(?:(?:actually|correction|update|oops|sorry|scratch that|wait|no wait|oh wait|my bad|i meant|"
    r"i misspoke|to correct myself|let me correct that|small correction|quick correction|change of plans|"
    r"never mind|nevermind|no|nope|not quite|turns out|as of (?:today|now|this week)|these days|nowadays|"
    r"from now on|starting (?:today|now|next week)|now|currently|right now|at the moment|for now)\b[\s,:;!.-]*)+",
    re.IGNORECASE,
)
UPDATE_CUES = re.compile(
    r"\b(?:actually|moved|moving|relocated|switched|switching|changed|changing|no longer|not anymore|anymore|"
    r"correction|now|instead|these days|nowadays|from now on|rescheduled|postponed|pushed|delayed|"
    r"brought forward|moved up|updated|update|new|i meant|scratch that|turns out|wrong|replaced|migrated|"
    r"migrating|quit|stopped|gave up|left|any more|ditched|dropped|upgraded|became|become|cut down|cut back|"
    r"down to|up to|sorry|oops|my bad|misread|mistake|mistaken|forgot|correct|no more|revised|rescheduling)\b",
    re.IGNORECASE,
)
_FROM_TO = re.compile(r"\bfrom\s+(?P<old>.+?)\s+to\s+(?P<new>.+)$", re.IGNORECASE)
_NOT_ANYMORE = re.compile(r"\bnot\s+(?P<old>[\w .+#-]+?)\s+any\s?more\b", re.IGNORECASE)
_INSTEAD_OF = re.compile(r"\b(?:instead of|rather than|not)\s+(?P<old>[\w .+#-]+?)(?:[,.;]|$)", re.IGNORECASE)
_IMPORTANT = re.compile(
    r"\b(?:important|must|never|always|critical|crucial|required|requirement|hard constraint|allergic|"
    r"urgent|essential|can't|cannot|strictly)\b",
    re.IGNORECASE,
)


_TRAILING_PLEASANTRY = re.compile(
    r"(?:[\s,;:!.-]+(?:nice to meet you|pleased to meet you|good to meet you|thanks|thank you|cheers|lol|haha|"
    r"btw|by the way|fyi|just so you know|:\)|:-\)|;\))+)+[\s!.]*$",
    re.IGNORECASE,
)


def strip_cue_prefix(clause: str) -> str:
    """"Actually, the deadline moved" -> "the deadline moved"; a bare "Correction" -> ""."""
    return _CUE_PREFIX.sub("", clause).strip()


# --- value helpers ----------------------------------------------------------------------------

_TRAILING_NOISE = re.compile(
    r"(?:\s*[,;]?\s*(?:now|these days|nowadays|anymore|any more|instead|currently|at the moment|right now|"
    r"as well|too|lol|haha|though|btw|by the way|for now|again|actually)\b)+\s*[.!]*$",
    re.IGNORECASE,
)


def clean_value(value: str) -> str:
    value = value.strip().strip("\"'")
    value = _TRAILING_NOISE.sub("", value)
    value = re.sub(r"[\s.,;:!]+$", "", value)
    return value.strip().strip("\"'")


_TRAILING_WHEN = re.compile(
    r"(?:\s*,?\s+(?:last|this|earlier this|back in|in|since|over the|a few|a couple of|two|three|several|\d+)\s+"
    r"(?:week|weekend|month|year|summer|winter|spring|fall|autumn|january|february|march|april|may|june|july|"
    r"august|september|october|november|december|\d{4}|days|weeks|months|years)s?(?:\s+ago)?|\s+(?:recently|"
    r"lately|yesterday|today|ago|for good|permanently|for work|for a new job|with my family|with my partner))+$",
    re.IGNORECASE,
)


def strip_when(value: str) -> str:
    """"Lisbon last month" -> "Lisbon": when something happened is not part of where or who."""
    stripped = _TRAILING_WHEN.sub("", value).strip(" ,")
    return stripped or value


def value_key(value: str) -> str:
    """The comparable form of a value: casefolded, no articles or punctuation."""
    key = value.casefold()
    key = re.sub(r"\b(?:a|an|the|my|our|in|at|to|on)\b", " ", key)
    key = re.sub(r"[^\w+#]+", " ", key)
    return " ".join(key.split())


# --- rules ------------------------------------------------------------------------------------

_JOB_NOUNS = re.compile(
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
_DIETS = (
    r"vegan|vegetarian|pescatarian|pescetarian|keto|on keto|paleo|gluten[- ]free|lactose[- ]intolerant|"
    r"dairy[- ]free|kosher|halal|plant[- ]based|carnivore|flexitarian"
)
_PETS = (
    r"dog|dogs|puppy|puppies|cat|cats|kitten|kittens|parrot|hamster|rabbit|bunny|fish|goldfish|turtle|tortoise|"
    r"snake|lizard|horse|bird|birds|ferret|guinea pig|gecko|chinchilla|hedgehog|budgie|cockatiel|rat|mouse|"
    r"retriever|labrador|poodle|beagle|terrier|husky|corgi|bulldog|shepherd|spaniel|dachshund|chihuahua|"
    r"pug|collie|maine coon|siamese|tabby"
)
_INSTRUMENTS = (
    r"guitar|electric guitar|acoustic guitar|piano|keyboard|violin|viola|drums|bass|bass guitar|cello|flute|"
    r"saxophone|sax|ukulele|trumpet|clarinet|harp|banjo|accordion|harmonica|trombone|oboe|mandolin|synth"
)
_SPORTS = (
    r"tennis|football|soccer|basketball|baseball|volleyball|chess|golf|hockey|rugby|cricket|badminton|"
    r"squash|padel|pickleball|table tennis|ping pong|video games|board games|poker|bridge|frisbee|ultimate"
)
_EVENT_NOUNS = (
    r"meeting|appointment|interview|call|conference|trip|flight|exam|test|wedding|party|demo|presentation|"
    r"review|standup|stand-up|dinner|lunch|vacation|holiday|checkup|check-up|surgery|concert|match|race|"
    r"marathon|workshop|webinar|deadline|launch|release|hackathon|meetup|talk|class|lesson|session|visit|"
    r"reunion|birthday party|ceremony|recital|game|tournament|sync|retro|retrospective|1:1|one-on-one|offsite"
)
_WHEN = (
    r"(?:on|at|in|next|this|tomorrow|tonight|today|every|each|later|coming|by|from|until|before|after|"
    r"january|february|march|april|may|june|july|august|september|october|november|december|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|\d)"
)
_RELATIONS = {
    "wife": "partner", "husband": "partner", "spouse": "partner", "partner": "partner", "girlfriend": "partner",
    "boyfriend": "partner", "fiance": "partner", "fiancé": "partner", "fiancee": "partner", "fiancée": "partner",
    "mom": "mother", "mum": "mother", "mother": "mother", "dad": "father", "father": "father",
    "sister": "siblings", "brother": "siblings", "son": "children", "daughter": "children",
    "kid": "children", "child": "children",
}
_PROJECT_ATTRS = {
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
_PERSON_ATTRS = {
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
_FAVORITE_KINDS = {
    "food": "favorite_food", "dish": "favorite_food", "meal": "favorite_food", "cuisine": "favorite_food",
    "snack": "favorite_food", "dessert": "favorite_food", "fruit": "favorite_food", "pizza": "favorite_food",
    "drink": "favorite_drink", "beverage": "favorite_drink", "coffee": "favorite_drink", "tea": "favorite_drink",
    "beer": "favorite_drink", "wine": "favorite_drink", "cocktail": "favorite_drink",
    "color": "favorite_color", "colour": "favorite_color", "band": "favorite_music", "artist": "favorite_music",
    "singer": "favorite_music", "song": "favorite_music", "music": "favorite_music", "genre": "favorite_music",
    "album": "favorite_music", "composer": "favorite_music", "musician": "favorite_music",
    "movie": "favorite_movie", "film": "favorite_movie", "book": "favorite_book", "author": "favorite_book",
    "novel": "favorite_book", "writer": "favorite_book", "show": "favorite_show", "tv show": "favorite_show",
    "series": "favorite_show", "sport": "favorite_sport", "team": "favorite_sport", "game": "favorite_game",
    "video game": "favorite_game", "board game": "favorite_game",
}


@dataclass(frozen=True)
class _Found:
    attribute: str
    value: str
    text: str | None = None  # a template sentence; default is the third-person clause
    subject: str | None = None
    replaced_value: str | None = None
    type: str | None = None


Rule = Callable[[str, "re.Match[str]", str, str], "list[_Found] | _Found | None"]
_RULES: list[tuple["re.Pattern[str]", Rule]] = []


def rule(pattern: str, flags: int = re.IGNORECASE) -> Callable[[Rule], Rule]:
    def register(fn: Rule) -> Rule:
        _RULES.append((re.compile(pattern, flags), fn))
        return fn
    return register


_I = r"(?:i|we)"
_IM = r"(?:i'm|im|i am|we're|we are)"
_NOW = r"(?:(?:now|currently|still|also|actually|just|recently|finally|really|officially|happily)\s+)*"


@rule(rf"^(?:my name is|my name's|{_IM} called|call me|people call me|everyone calls me|you can call me)\s+(?P<v>[^,.;!?]+)")
def _name(clause, m, S, P):
    v = clean_value(m["v"])
    return _Found("name", v, f"{P} name is {v}.")


@rule(r"^(?i:i'm|im|i am|this is)\s+(?P<v>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?)\s*[.!]?$", 0)
def _name_intro(clause, m, S, P):
    v = m["v"]
    if v.lower() in textlib.STOPWORDS or _JOB_NOUNS.search(v) or re.search(_DIETS, v, re.IGNORECASE):
        return None
    return _Found("name", v, f"{P} name is {v}.")


@rule(rf"^{_IM}\s+{_NOW}(?P<v>\d{{1,3}})(?:\s*(?:years?|yrs?)(?:\s+old)?|\s*y/?o)?\s*(?:now|today|this year)?$")
def _age(clause, m, S, P):
    return _Found("age", m["v"], f"{S} is {m['v']} years old.")


@rule(r"^i (?:just )?turned (?P<v>\d{1,3})\b")
def _turned(clause, m, S, P):
    return _Found("age", m["v"], f"{S} is {m['v']} years old.")


@rule(r"^(?:my (?:birthday|bday|date of birth) is|i was born on|my birthday falls on)\s+(?:on\s+)?(?P<v>.+)")
def _birthday(clause, m, S, P):
    v = clean_value(m["v"])
    return _Found("birthday", v, f"{P} birthday is {v}.")


@rule(rf"^{_I} (?:was )?(?:born|grew up|raised)\s+(?:and raised\s+)?in\s+(?P<v>.+)|^{_IM} (?:originally )?from\s+(?P<w>.+)")
def _hometown(clause, m, S, P):
    v = clean_value(m["v"] or m["w"])
    if re.match(r"^\d|^(?:19|20)\d\d", v):
        return _Found("birthday", v, f"{S} was born in {v}.")
    return _Found("hometown", v, f"{S} is from {v}.")


_LIVE = (
    rf"^(?:{_I}\s+{_NOW}(?:live|living|reside|residing|stay|staying|am living|'m living|am staying|am based|"
    rf"am located|have been living|'ve been living|'ve lived|have lived)|{_IM}\s+{_NOW}(?:living|based|located|"
    rf"staying|residing|settled))\s+(?:in|at|near|out of|on)\s+(?P<v>.+)"
)


@rule(_LIVE)
def _live(clause, m, S, P):
    v = strip_when(clean_value(m["v"]))
    return _Found("location", v, f"{S} lives in {v}.")


@rule(rf"^(?:{_I}\s+{_NOW}(?:have\s+|'ve\s+)?(?:moved|relocated|moving|relocating|am moving|am relocating)|{_IM}\s+{_NOW}(?:moving|relocating))\s+(?:back\s+)?(?:to|into)\s+(?P<v>.+)")
def _moved(clause, m, S, P):
    v = strip_when(clean_value(m["v"]))
    old = None
    fm = re.match(r"(?P<new>.+?)\s+from\s+(?P<old>.+)$", v, re.IGNORECASE)
    if fm:
        v, old = clean_value(fm["new"]), clean_value(fm["old"])
    return _Found("location", v, f"{S} lives in {v}.", replaced_value=old)


@rule(r"^(?:i|we) (?:just )?(?:moved|relocated) from\s+(?P<old>.+?)\s+to\s+(?P<v>.+)")
def _moved_from_to(clause, m, S, P):
    v = strip_when(clean_value(m["v"]))
    return _Found("location", v, f"{S} lives in {v}.", replaced_value=clean_value(m["old"]))


@rule(r"^(?:my (?:home|address|home address|city|location)(?: now)? is|home is(?: now)?)\s+(?:in\s+)?(?P<v>.+)")
def _home(clause, m, S, P):
    v = clean_value(m["v"])
    return _Found("location", v, f"{S} lives in {v}.")


@rule(rf"^(?i:{_I}\s+{_NOW}(?:work|am working|'m working|have been working|'ve been working)\s+as\s+(?:an?\s+|the\s+)?)(?P<job>.+?)\s+(?i:at|for|in)\s+(?P<emp>[A-Z0-9].+)$", 0)
@rule(rf"^(?i:{_IM}\s+{_NOW}(?:an?\s+))(?P<job>.+?)\s+(?i:at|for)\s+(?P<emp>[A-Z0-9].+)$", 0)
def _job_at(clause, m, S, P):
    job, emp = clean_value(m["job"]), clean_value(m["emp"])
    if not _JOB_NOUNS.search(job):
        return None
    return [_Found("job_title", job, f"{S} works as {_article(job)} {job}."), _Found("employer", emp, f"{S} works at {emp}.")]


@rule(rf"^(?:{_I}\s+{_NOW}(?:work|am working|'m working|have been working|'ve been working|am employed|'m employed)\s+(?:at|for|by|with)|{_I}\s+{_NOW}(?:(?:started|got|landed|accepted|took|began)\s+(?:a\s+)?(?:new\s+)?(?:job|position|role|gig)\s+(?:at|with)|joined|started at|started working at|started working for|got a job at|got hired at|got hired by|took a job at|accepted a job at|accepted an offer from|switched jobs to|moved to a job at|changed jobs to)|{_IM}\s+{_NOW}(?:employed (?:at|by)|working (?:at|for)|at))\s+(?P<v>.+)")
def _employer(clause, m, S, P):
    v = strip_when(clean_value(m["v"]))
    old = None
    fm = _FROM_TO.search(v)
    if fm:
        v, old = clean_value(fm["new"]), clean_value(fm["old"])
    v = re.sub(r"\s+as\s+an?\s+.+$", "", v)
    if not v or len(v.split()) > 8:
        return None
    return _Found("employer", v, f"{S} works at {v}.", replaced_value=old)


@rule(rf"^(?:{_I}\s+{_NOW}(?:work|am working|'m working)\s+as|my (?:job|role|position|title|job title|profession|occupation) is|{_I}\s+{_NOW}(?:became|got promoted to|was promoted to|have become))\s+(?:an?\s+|the\s+)?(?P<v>.+)")
def _job(clause, m, S, P):
    v = clean_value(m["v"])
    v = re.sub(r"^(?:an?|the)\s+", "", v, flags=re.IGNORECASE)
    return _Found("job_title", v, f"{S} works as {_article(v)} {v}.")


@rule(rf"^{_IM}\s+{_NOW}(?:an?\s+)?(?P<v>(?:{_DIETS}))(?:\s+now)?\b(?P<rest>.*)$")
def _diet(clause, m, S, P):
    v = clean_value(m["v"])
    return _Found("diet", v, third_person(clause, S))


@rule(rf"^{_IM}\s+{_NOW}(?:an?\s+)(?P<v>.+)$")
def _job_identity(clause, m, S, P):
    v = clean_value(m["v"])
    if not _JOB_NOUNS.search(v) or len(v.split()) > 6:
        return None
    v = re.sub(r"\s+(?:by trade|by profession)$", "", v)
    return _Found("job_title", v, f"{S} works as {_article(v)} {v}.")


@rule(r"^i (?:(?:don't|do not|no longer|never|can't|cannot|won't) (?:eat|consume|touch)|(?:stopped|quit|gave up) eating)\s+(?P<v>.+)")
def _diet_not(clause, m, S, P):
    v = clean_value(m["v"])
    return _Found("diet", f"no {v}", third_person(clause, S))


@rule(r"^(?:i'?m|i am|i've always been|i have been)\s+(?:severely |very |mildly |deathly |really )?allergic to\s+(?P<v>.+)|^i have an? (?P<w>.+?) allergy")
def _allergy(clause, m, S, P):
    v = clean_value(m["v"] or m["w"])
    return _Found("allergies", v, f"{S} is allergic to {v}.")


@rule(rf"^(?:i|we)\s+{_NOW}(?:have|own|got|adopted|have got|'ve got|rescued|am getting|'m getting|are getting|just got)\s+(?P<v>(?:an?|one|two|three|four|\d+|some|several)?\s*(?:[\w-]+\s+){{0,3}}?(?:{_PETS})\b.*)")
def _pets(clause, m, S, P):
    return _Found("pets", clean_value(m["v"]))


@rule(rf"^(?i:my) (?P<kind>(?i:{_PETS}))(?i:'s name)? (?i:is) (?i:called |named )?(?P<v>[A-Z][\w'-]+.*)$", 0)
def _pet_name(clause, m, S, P):
    v = f"{m['kind']} named {clean_value(m['v'])}"
    return _Found("pets", v)


_COUNT_NOUNS = {"sibling": "sibling_count", "kid": "children_count", "child": "children_count",
                "children": "children_count", "pet": "pet_count"}


@rule(r"^(?:i|we) (?:have|'ve got|have got) (?P<n>no|zero|one|two|three|four|five|six|seven|eight|nine|ten|\d+) (?P<noun>siblings?|kids?|children|child|pets?)\b")
def _count(clause, m, S, P):
    noun = m["noun"].lower()
    noun = "child" if noun == "children" else noun.rstrip("s")
    return _Found(_COUNT_NOUNS[noun], m["n"].lower())


@rule(r"^(?:i|we) have (?:an?|one|two|three|\d+) (?:(?:older|younger|little|big|twin|step|half)[\s-])?(?P<rel>sister|brother|son|daughter|kid|child)s?\b(?:\s+(?:named|called)\s+(?P<v>[A-Z][\w'-]+))?", re.IGNORECASE)
def _sibling(clause, m, S, P):
    v = clean_value(m.group(0).split(" have ", 1)[1])
    return _Found(_RELATIONS[m["rel"].lower()], v)


@rule(r"^(?i:my (?:(?:older|younger|little|big|twin|step|half)[\s-])?)(?P<rel>(?i:wife|husband|spouse|partner|girlfriend|boyfriend|fiancée?|fiance|mom|mum|mother|dad|father|sister|brother|son|daughter|kid))(?i:'s name)? (?i:is) (?i:called |named )?(?P<v>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?)\s*$")
def _relation_name(clause, m, S, P):
    rel = m["rel"].lower()
    slot = _RELATIONS[rel]
    v = m["v"]
    if slot in ("siblings", "children"):
        return _Found(slot, f"{rel} {v}", f"{P} {rel} is named {v}.")
    return _Found(slot, v, f"{P} {rel} is named {v}.")


@rule(r"^(?:i|we)\s+(?:also\s+)?(?:speak|can speak|am fluent in|'m fluent in|speak fluent|am a native speaker of|'m a native speaker of)\s+(?P<v>.+)")
def _languages(clause, m, S, P):
    return _Found("languages", clean_value(m["v"]))


@rule(rf"^i\s+{_NOW}(?:play|can play|have been playing|'ve been playing|started playing|learned to play|learnt to play)\s+(?:the\s+|a\s+little\s+|some\s+)?(?P<v>(?:{_INSTRUMENTS}))\b")
def _instrument(clause, m, S, P):
    return _Found("instruments", clean_value(m["v"]).lower())


@rule(rf"^i\s+{_NOW}(?:play|enjoy playing|love playing|like playing)\s+(?P<v>(?:{_SPORTS}))\b")
def _sport(clause, m, S, P):
    return _Found("hobbies", clean_value(m["v"]).lower())


@rule(r"^(?:my (?:main |favou?rite |big )?hobb(?:y|ies) (?:is|are|include)|in my (?:free|spare) time,? i(?: like to| love to| enjoy)?|for fun,? i)\s+(?P<v>.+)")
def _hobby(clause, m, S, P):
    return _Found("hobbies", clean_value(m["v"]))


@rule(r"^i (?:go|love going|like going|enjoy going|went)\s+(?P<v>\w+ing)\b(?P<rest>.*)$")
def _go_ing(clause, m, S, P):
    return _Found("hobbies", clean_value(m["v"]))


@rule(r"^(?:my (?:favou?rite|fav|favorite|preferred|go-to)\s+(?P<kind>[\w\s-]+?)\s+(?:is|are|has to be|would be|was|remains)\s+(?P<v>.+)|(?P<v2>[^,]+?)\s+(?:is|are) (?:still |now |definitely )?my (?:new |all-time |absolute )?(?:favou?rite|fav)\s+(?P<kind2>[\w\s-]+?))$")
def _favorite(clause, m, S, P):
    kind = (m["kind"] or m["kind2"]).strip().lower()
    v = clean_value(m["v"] or m["v2"])
    attr = _FAVORITE_KINDS.get(kind) or _FAVORITE_KINDS.get(kind.split()[-1]) or "favorite_" + _slug(kind)
    return _Found(attr, v, f"{P} favorite {kind} is {v}.", type="preference")


@rule(r"^i (?:really |absolutely |also |just |still |totally )*(?:prefer|like|love|enjoy|adore|am into|'m into|am a (?:big |huge )?fan of|'m a (?:big |huge )?fan of|dig|can't live without|am obsessed with|'m obsessed with)\s+(?P<v>.+)")
def _likes(clause, m, S, P):
    v = clean_value(m["v"])
    over = re.match(r"(?P<a>.+?)\s+(?:over|to|rather than|instead of)\s+(?P<b>.+)$", v, re.IGNORECASE)
    known = known_slot(over["a"] if over else v)
    if known:
        return _Found(known[0], known[1], type="preference")
    return _Found("likes", v, type="preference")


@rule(r"^i (?:really |absolutely |just )*(?:hate|dislike|can't stand|cannot stand|detest|despise|don't like|do not like|don't enjoy|am not a fan of|'m not a fan of|avoid)\s+(?P<v>.+)")
def _dislikes(clause, m, S, P):
    return _Found("dislikes", clean_value(m["v"]), type="preference")


@rule(r"^(?:i|we)\s+(?:mostly |mainly |usually |primarily |now |currently )*(?:code|program|write code|develop|write)\s+(?:mostly |mainly |primarily )?in\s+(?P<v>.+)")
def _code_in(clause, m, S, P):
    return _Found("programming_languages", clean_value(m["v"]))


@rule(rf"^(?:(?:i|we)\s+{_NOW}(?:use|am using|'m using|are using|run|am running|'m running|'re using|'re running|rely on|daily-drive|daily drive|work on|work with|have|own|drive)|{_IM}\s+{_NOW}(?:using|on|running)|(?:i|we)\s+{_NOW}(?:switched|switch|moved|migrated|changed|upgraded|went back|am switching|'m switching|are switching|'re switching|are moving|'re moving|are migrating|'re migrating)\s+(?:over\s+)?(?:from\s+(?P<old>.+?)\s+)?to)\s+(?P<v>.+)")
def _use(clause, m, S, P):
    v = clean_value(m["v"])
    old = clean_value(m["old"]) if m["old"] else None
    inst = _INSTEAD_OF.search(v)
    if inst and not old:
        old = clean_value(inst["old"])
        v = clean_value(v[: inst.start()])
    for_project = bool(re.search(r"\b(?:for|in|on) (?:the|our|my|this) (?:project|app|backend|frontend|site|api|service|product)\b|^we\b", clause, re.IGNORECASE))
    known = known_slot(v)
    if known is None:
        if re.search(rf"\b(?:{_PETS})\b", v, re.IGNORECASE):
            return None  # "I have a dog" is the pets rule's
        if re.match(r"^(?:an?|the|some|my)\s", v, re.IGNORECASE) and re.search(r"\b(?:car|bike|truck|motorcycle|scooter|tesla|toyota|honda|bmw|audi|ford|volkswagen|vw|subaru|mazda|kia|hyundai|volvo)\b", v, re.IGNORECASE):
            return _Found("car", v, replaced_value=old)
        if re.match(r"^(?:have|own)\b", m.group(0).split()[1] if len(m.group(0).split()) > 1 else "", re.IGNORECASE):
            return None
        return _Found("tools", v, replaced_value=old, type="preference") if len(v.split()) <= 6 else None
    slot, name = known
    if for_project:
        slot = {"database": "project_database", "programming_languages": "project_language"}.get(slot, slot)
    if slot in ("framework", "hosting", "project_database", "project_language"):
        return _Found(slot, name, subject="project", replaced_value=old, type="project_detail")
    return _Found(slot, name, replaced_value=old, type="preference")


@rule(r"^(?:i'?m|i am|we'?re|we are)\s+(?:currently |now |still |also )*(?:building|working on|developing|making|creating|writing|shipping|prototyping|hacking on)\s+(?P<v>.+)")
def _building(clause, m, S, P):
    v = clean_value(m["v"])
    known = known_slot(v)
    if known and known[0] == "framework":
        return _Found("framework", known[1], subject="project", type="project_detail")
    if len(v.split()) > 15:
        return None
    return _Found("project_description", v, subject="project", type="project_detail")


_PROJECT_ATTR_ALT = "|".join(sorted((re.escape(k) for k in _PROJECT_ATTRS), key=len, reverse=True))


_PROJECT_VERB = (
    r"(?:(?:has|had)\s+been\s+|is\s+|was\s+|got\s+|will be\s+|just\s+|now\s+)*"
    r"(?P<verb>moved|pushed(?:\s+back)?|changed|set|extended|shifted|rescheduled|postponed|delayed|brought forward|"
    r"moved up|bumped|updated|locked|fixed|switched|migrated|runs on|uses|lives on|lives at|is on|is hosted on|"
    r"hosted on|deployed (?:on|to)|called|named|is|was|will be|=|:)"
)


@rule(rf"^(?:(?:the|my|our|this)\s+)?(?:project(?:'s)?\s+|app(?:'s)?\s+|site(?:'s)?\s+|product(?:'s)?\s+)?(?:(?P<qual>[a-z][\w-]*)\s+)??(?P<attr>{_PROJECT_ATTR_ALT})\s*{_PROJECT_VERB}\s*(?:(?:now|still)\s+)?(?:to|for|on|at|until|as|from\s+\S.*?\s+to)?\s*(?P<v>.+)")
def _project_attr(clause, m, S, P):
    raw = m["attr"].lower()
    attr = _PROJECT_ATTRS[raw]
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
    if qual:  # "the backend deadline" and "the frontend deadline" are two slots
        attr, raw = f"{attr}_{_slug(qual)}", f"{qual} {raw}"
    text = f"The project is called {v}." if attr == "project_name" else f"Project {raw} is {v}."
    return _Found(attr, v, text, subject="project", replaced_value=old, type="project_detail")


@rule(r"^(?:it's|it is|the (?:project|app|release|launch|mvp|demo) is|everything is|we(?:'re| are) (?:due|shipping|launching|releasing)|we (?:ship|launch|release|go live))\s+(?:now\s+)?(?:due|shipping|launching|releasing)?\s*(?:on|by|in|for|before)\s+(?P<v>.+)")
def _due(clause, m, S, P):
    v = clean_value(m["v"])
    return _Found("deadline", v, subject="project", type="project_detail")


@rule(r"^(?:(?:the|my|our) )?(?:project|app|product|startup|side project) is (?:called|named)\s+(?P<v>.+)")
def _project_name(clause, m, S, P):
    v = clean_value(m["v"])
    return _Found("project_name", v, f"The project is called {v}.", subject="project", type="project_detail")


@rule(rf"^(?:(?:i|we) (?:have|'ve got|got|have got)|there(?:'s| is)|(?:my|our|the))\s+(?:an?\s+|my\s+|our\s+|the\s+)?(?P<e>[\w\s'-]{{0,30}}?(?:{_EVENT_NOUNS})(?:\s+(?:with|to|at|for|in)\s+(?:the\s+|my\s+|our\s+)?[\w'-]+)?)\s+(?:is\s+|was\s+|got\s+|has been\s+|'s\s+)?(?:(?:lands|departs|leaves|starts|begins|ends|arrives|happens|takes place)\s+)?(?:now\s+)?(?:moved\s+|rescheduled\s+|pushed\s+|postponed\s+|changed\s+|set\s+|scheduled\s+|planned\s+|booked\s+)?(?:to\s+|for\s+)?(?P<v>{_WHEN}.*)$")
def _event(clause, m, S, P):
    name = clean_value(m["e"]).lower()
    name = re.sub(r"^(?:an?|the|my|our)\s+", "", name)
    if name in ("deadline", "launch", "release"):
        v = clean_value(m["v"])
        return _Found("deadline", v, subject="project", type="project_detail")
    return _Found("date", clean_value(m["v"]), subject=event_subject(name), type="event")


def event_subject(name: str) -> str:
    """Word order and small words do not make another event: "meeting with the investors" is
    "investor meeting"."""
    words = sorted(set(textlib.tokenize(name))) or [name]
    return "event:" + " ".join(words)


@rule(r"^(?:i'?m|i am|we'?re|we are)\s+(?:going|flying|traveling|travelling|heading|driving|off|visiting|taking a trip)\s+(?:to\s+)?(?P<e>.+?)\s+(?P<v>(?:on|in|next|this|tomorrow|for|over|during|at the end of)\b.+)$")
def _trip(clause, m, S, P):
    dest = clean_value(m["e"])
    return _Found("date", clean_value(m["v"]), subject=event_subject(f"trip {dest}"), type="event")


@rule(r"^(?:my (?:main |big |long[- ]term |career |ultimate |new |current )?(?:goal|dream|ambition|plan|aim|resolution|objective) (?:is|for this year is|this year is) to|i (?:really )?(?:want|wanna|would like|'d like|hope|plan|am planning|'m planning|intend|aim|am aiming|'m aiming|am hoping|'m hoping|am trying|'m trying|dream) to|i(?:'m| am) (?:training|preparing|saving up|studying) for)\s+(?P<v>.+)")
def _goal(clause, m, S, P):
    return _Found("goal", clean_value(m["v"]), type="goal")


@rule(r"^(?:i'?m|i am)\s+(?:currently |also |now )*(?:learning|studying|taking (?:a )?(?:course|class)(?:es)? (?:in|on))\s+(?P<v>.+)")
def _learning(clause, m, S, P):
    return _Found("learning", clean_value(m["v"]), type="goal")


@rule(r"^(?:i (?:study|studied|majored in|graduated in|have a degree in|'ve got a degree in|hold a degree in)|i graduated from|i went to|i(?:'m| am) (?:a (?:student|freshman|sophomore|junior|senior) )?at)\s+(?P<v>.+)")
def _education(clause, m, S, P):
    return _Found("education", clean_value(m["v"]))


@rule(r"^(?:i|we) (?:have|got|'ve got|have got) (?:an?\s+)?(?:new\s+)?(?P<rel>[a-z][\w -]{1,30}?)(?:\s+now)?(?:,|\s+and|\s+-)?\s+(?:(?:his|her|their) name is|(?:he|she|they)(?:'s| is| are) called|named|called)\s+(?P<v>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?)", re.IGNORECASE)
def _new_person(clause, m, S, P):
    rel = m["rel"].strip().lower()
    slot = _RELATIONS.get(rel)
    if slot in ("siblings", "children"):
        return _Found(slot, f"{rel} {m['v']}", f"{P} {rel} is named {m['v']}.")
    return _Found(slot or _slug(rel), m["v"], f"{P} {rel} is {m['v']}.")


@rule(r"^(?:i|we) (?:just\s+)?(?:bought|rented|purchased|found|got) (?:a|an|our|my) (?:new\s+)?(?:house|home|flat|apartment|condo|place) (?:in|near)\s+(?P<v>.+)")
def _bought_home(clause, m, S, P):
    v = strip_when(clean_value(m["v"]))
    return _Found("location", v, f"{S} lives in {v}.")


@rule(r"^(?:(?:we|i) (?:deploy|host|ship|run)(?: it| the app| the site| the project| everything| our app| my app)?|(?:the|our|my) (?:app|site|project|api|service|backend|frontend) (?:is deployed|is hosted|runs|is running|lives))\s+(?:on|to|at|with|in)\s+(?P<v>.+)")
def _deploy(clause, m, S, P):
    v = clean_value(m["v"])
    known = known_slot(v)
    return _Found("hosting", known[1] if known and known[0] == "hosting" else v, subject="project", type="project_detail")


@rule(r"^(?:the|our|my) (?:app|site|project|api|service|product|codebase|backend|frontend) (?:uses|is built (?:with|on|in)|is written in|relies on|runs on|is using)\s+(?P<v>.+)")
def _project_uses(clause, m, S, P):
    v = clean_value(m["v"])
    known = known_slot(v)
    if known is None:
        return None
    slot = {"database": "project_database", "programming_languages": "project_language"}.get(known[0], known[0])
    if slot not in ("framework", "hosting", "project_database", "project_language"):
        return None
    return _Found(slot, known[1], subject="project", type="project_detail")


@rule(r"^(?:my|our) (?P<attr>[a-z][\w\s'-]{0,30}?)\s+(?P<cop>is|are|was|were|=|:)\s+(?P<v>.+)")
def _my_x_is(clause, m, S, P):
    if any(word[:1].isupper() for word in m["attr"].split()):
        return None  # "my sister Elena is getting married": about a person, not a slot of the user's
    raw_attr = re.sub(r"^(?:new|current|old|former|previous|actual)\s+", "", m["attr"].strip().lower())
    v = clean_value(m["v"])
    if not v:
        return None
    subject_word = raw_attr.split()[-1]
    if raw_attr in _PERSON_ATTRS:
        attr = _PERSON_ATTRS[raw_attr]
    elif raw_attr in _PROJECT_ATTRS:
        attr = _PROJECT_ATTRS[raw_attr]
        return _Found(attr, v, f"Project {raw_attr} is {v}.", subject="project", type="project_detail")
    elif subject_word in _RELATIONS or raw_attr.startswith(("favourite", "favorite")):
        return None
    else:
        attr = _slug(raw_attr)
    slot = SLOTS.get(attr)
    if slot and slot.multi:
        return _Found(attr, v)
    copula = m["cop"] if m["cop"] in ("is", "are", "was", "were") else "is"
    return _Found(attr, v, f"{P} {raw_attr} {copula} {v}.")


def _slug(words: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", words.lower()).strip("_")[:40] or "note"


def _article(noun: str) -> str:
    return "an" if noun[:1].lower() in "aeiou" else "a"


# --- the extractor -----------------------------------------------------------------------------

_NEGATION = re.compile(
    r"^(?:i|we)\s+(?:(?:no longer|don't|do not|never|stopped|quit|gave up|dropped|ditched|am not|'m not|"
    r"are not|'re not)\s+(?:really\s+)?(?:have|own|use|using|play|playing|live|living|work|working|eat|eating|"
    r"drink|drinking|speak|like|love|do|go|drive|run|ride|keep|smoke|smoking)?)\b\s*(?P<rest>.*?)(?:\s+any\s?more)?\s*[.!]*$",
    re.IGNORECASE,
)
_NEGATION_CUE = re.compile(r"\b(?:no longer|not|don't|do not|stopped|quit|gave up|any\s?more|dropped|ditched)\b", re.IGNORECASE)


def slot_of(attribute: str, mem_type: str | None = None) -> Slot | None:
    """The canonical slot an attribute belongs to ("deadline_backend" -> deadline), if any."""
    if attribute in SLOTS:
        return SLOTS[attribute]
    for name, slot in SLOTS.items():
        if attribute.startswith(name + "_"):
            return slot
    return SLOTS["event"] if mem_type == "event" else None


def embedding_text(text: str, speaker: str | None) -> str:
    """What is embedded for a memory: its text with the speaker's name written as "User".

    Every memory of one person carries their name, so a question naming them would otherwise score
    all of those memories on the name alone (the engine asks such questions about "the user" too).
    """
    if speaker:
        name = " ".join(speaker.split())[:60]
        if name:
            text = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", "User", text)
    return text


def person_names(speaker: str | None) -> tuple[str, str, str]:
    """(subject key, name used in sentences, possessive)."""
    if speaker:
        name = " ".join(speaker.split())[:60]
        return name.casefold(), name, f"{name}'s"
    return "user", "User", "User's"


def informative(clause: str) -> bool:
    """Worth keeping when no rule understood it: a statement with at least two content words."""
    if textlib.is_small_talk(clause) or textlib.is_question_or_request(clause):
        return False
    tokens = textlib.tokenize(clause)
    # Scripts without spaces (Japanese, Chinese) give one long token for a whole sentence.
    return len(tokens) >= 2 or sum(len(t) for t in tokens) >= 6


MAX_RULE_CLAUSE = 300
_CORRECTION = re.compile(
    r"\b(?:i meant|i mean|meant to say|make (?:that|it)|correction|sorry|oops|my bad|scratch that|rather|"
    r"not\b|wrong|mistake|typo)", re.IGNORECASE)
_BARE_VALUE_BUT = re.compile(r"^(?:not\s+(?P<old>[^,]+?),?\s+(?:but\s+)?(?P<new>.+)|(?P<new2>.+?),?\s+not\s+(?P<old2>.+))$",
                             re.IGNORECASE)


def _elliptical_correction(original: str, clause: str) -> tuple[str, str | None] | None:
    """(new value, replaced value or None) when the clause is a bare value said as a correction:
    "Oops, I meant Tuesday", "make that 7pm", "Tuesday, not Monday". Such a clause has no subject
    of its own; it corrects whatever the user said last."""
    if not _CORRECTION.search(original):
        return None
    clause = re.sub(r"^(?:i meant|i mean|meant to say|make (?:that|it)|it's|it is|rather)\s+", "", clause,
                    flags=re.IGNORECASE).strip(" ,.!")
    clause = re.sub(r"[\s,]+(?:sorry|oops|my bad)$", "", clause, flags=re.IGNORECASE).strip(" ,.!")
    if not textlib.tokenize(re.sub(r"\bnot\b", "", clause, flags=re.IGNORECASE)):
        return None
    if not clause or len(clause.split()) > 5 or re.match(r"^(?:i|my|we|our|i'm|i've|you|your)\b", clause, re.IGNORECASE):
        return None
    pair = _BARE_VALUE_BUT.match(clause)
    if pair:
        new, old = (pair["new"] or pair["new2"]).strip(" ,."), (pair["old"] or pair["old2"]).strip(" ,.")
        return (new, old) if new and old else None
    return clause, None


def extract(message: str, *, speaker: str | None = None) -> list[Candidate]:
    """Every fact candidate in a message, in order. Small talk, questions and requests give none."""
    subject_key, S, P = person_names(speaker)
    candidates: list[Candidate] = []
    for sentence in textlib.split_sentences(textlib.normalize(message)):
        cue_in_sentence = bool(UPDATE_CUES.search(sentence))
        for clause in textlib.split_clauses(sentence):
            candidates.extend(_extract_clause(clause, subject_key, S, P, cue_in_sentence))
    return _dedupe(candidates)


def _extract_clause(clause: str, subject_key: str, S: str, P: str, cue_in_sentence: bool) -> list[Candidate]:
    original = clause.strip()
    clause = textlib.strip_leading_filler(original)
    clause = strip_cue_prefix(clause)
    clause = textlib.strip_leading_filler(clause).strip(" ,;:-")
    if not clause or textlib.is_small_talk(clause) or textlib.is_question_or_request(clause):
        return []
    clause = re.sub(r"^(?:remember that|note that|fyi,?|just so you know,?|for the record,?|please remember(?: that)?|keep in mind(?: that)?)\s+", "", clause, flags=re.IGNORECASE)
    clause = _TRAILING_PLEASANTRY.sub("", clause)
    clause = re.sub(r"[.!]+$", "", clause).strip()
    if not clause:
        return []
    cue = bool(UPDATE_CUES.search(original)) or cue_in_sentence
    # Rules are for sentences people say; a very long clause goes straight to the fallback, which
    # also keeps matching time linear in the length of the message.
    found = _apply_rules(clause, S, P) if len(clause) <= MAX_RULE_CLAUSE else []
    negated = None
    if not found and len(clause) <= MAX_RULE_CLAUSE:
        neg = _NEGATION.match(clause)
        if neg and neg["rest"]:
            positive = re.sub(r"\b(?:no longer|don't|do not|never|stopped|quit|gave up|dropped|ditched|am not|'m not|are not|'re not)\s+", "", clause, count=1, flags=re.IGNORECASE)
            positive = re.sub(r"\s+any\s?more\b", "", positive, flags=re.IGNORECASE)
            positive = re.sub(r"^(i|we)\s+(\w+)ing\b", lambda mm: f"{mm[1]} {mm[2]}", positive, flags=re.IGNORECASE)
            inner = _apply_rules(positive, S, P)
            if inner:
                negated = [replace(f, value=f"not {f.value}", text=third_person(clause, S), replaced_value=f.value) for f in inner]
        found = negated or []
    out: list[Candidate] = []
    for f in found:
        slot = SLOTS.get(f.attribute)
        subject = f.subject or (slot.subject if slot and slot.subject != "user" else subject_key)
        mem_type = f.type or (slot.type if slot else "fact")
        multi = slot.multi if slot else False
        if subject.startswith("event:"):
            mem_type, multi, slot = "event", False, SLOTS["event"]
        text = f.text or third_person(clause, S)
        value = f.value.strip()
        if not value:
            continue
        out.append(Candidate(
            subject=subject, attribute=f.attribute, value=value[:500], type=mem_type,
            importance=_importance(slot, original), multi=multi, text=text[:1000], clause=original,
            update_cue=cue or f.replaced_value is not None, replaced_value=f.replaced_value,
        ))
    if out:
        return out
    elliptical = _elliptical_correction(original, clause)
    if elliptical is not None:
        value, replaced = elliptical
        return [Candidate(subject="", attribute="", value=value, type="fact", importance=0.5, multi=False,
                          text=value, clause=original, update_cue=True, replaced_value=replaced, elliptical=True)]
    if not informative(clause):
        return []
    return [Candidate(
        subject=subject_key, attribute="note", value=clean_value(clause)[:500], type="fact",
        importance=_importance(SLOTS["note"], original) - 0.05, multi=True, text=third_person(clause, S)[:1000],
        clause=original, update_cue=cue, replaced_value=None, understood=False,
    )]


def _apply_rules(clause: str, S: str, P: str) -> list[_Found]:
    for pattern, fn in _RULES:
        m = pattern.search(clause)
        if not m:
            continue
        result = fn(clause, m, S, P)
        if result:
            return result if isinstance(result, list) else [result]
    return []


def _importance(slot: Slot | None, clause: str) -> float:
    base = slot.importance if slot else 0.5
    if _IMPORTANT.search(clause):
        base += 0.1
    return round(min(1.0, max(0.0, base)), 2)


def _dedupe(candidates: list[Candidate]) -> list[Candidate]:
    seen: set[tuple[str, str, str]] = set()
    out = []
    for c in candidates:
        key = (c.subject, c.attribute, value_key(c.value))
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def correct(previous: "Candidate | object", correction: Candidate) -> Candidate | None:
    """Apply an elliptical correction ("I meant Tuesday") to the fact said last (a Memory or a
    Candidate): same slot, the value swapped in its sentence. None when the swap is not clear."""
    old_value = correction.replaced_value or previous.value
    text = previous.text
    where = text.casefold().find(old_value.casefold()) if old_value else -1
    if where < 0 or len(old_value) > 0.8 * len(text):
        return None  # the old value is not a distinct part of the sentence: nothing clear to swap
    new_text = text[:where] + correction.value + text[where + len(old_value):]
    new_value = correction.value if old_value.casefold() == previous.value.casefold() else \
        re.sub(re.escape(old_value), correction.value, previous.value, flags=re.IGNORECASE)
    multi = getattr(previous, "multi", getattr(previous, "multi_valued", False))
    return Candidate(subject=previous.subject, attribute=previous.attribute, value=new_value, type=previous.type,
                     importance=previous.importance, multi=multi, text=new_text, clause=correction.clause,
                     update_cue=True, replaced_value=previous.value)


def structured(subject: str, attribute: str, value: str, mem_type: str) -> Candidate:
    """A candidate for a memory given directly as (subject, attribute, value)."""
    attr = _slug(attribute)
    slot = SLOTS.get(attr)
    subj = subject.strip().casefold() or "user"
    name = "User" if subj == "user" else ("Project" if subj == "project" else subject.strip())
    label = attribute.strip().replace("_", " ")
    text = finish_sentence(f"{name}'s {label} is {value.strip()}" if name != "Project" else f"Project {label} is {value.strip()}")
    return Candidate(
        subject=subj, attribute=attr, value=value.strip(), type=mem_type,
        importance=slot.importance if slot else 0.6, multi=slot.multi if slot else False, text=text,
        clause=f"{subject}: {attribute} = {value}", update_cue=False,
    )


@runtime_checkable
class Extractor(Protocol):
    """Turns one message into fact candidates. Passed to MemoryEngine(extractor=...), like embedder=.

    `name` identifies it in evaluation runs. An extractor returns [] for small talk, questions and
    requests that hold no fact; it never raises on well-formed text.
    """

    name: str

    def extract(self, message: str, *, speaker: str | None = None) -> list[Candidate]: ...


class RuleExtractor:
    """The default extractor: the rule table of this package, no model needed."""

    name = "rules"

    def extract(self, message: str, *, speaker: str | None = None) -> list[Candidate]:
        return extract(message, speaker=speaker)
