"""The recall pipeline: query rewriting, dense ∪ lexical (∪ history) candidates, the group-chat
speaker filter, scoring (scoring.py) and the result with its citations."""
from __future__ import annotations

import re
import threading
import time
from dataclasses import replace
from functools import lru_cache
from typing import Callable

import numpy as np

from . import questions, scoring
from . import text as textlib
from .embed import Embedder
from .extraction import replies
from .kinds import Kinds, common_words, doings, kinds_in
from .limits import THRESHOLD_MAX, THRESHOLD_MIN, TOP_K_MAX, TOP_K_MIN
from .model import Hit, RecallResult
from .settings import Settings
from .storage import Ledger
from .sync import IndexSync, lexical_document


_WORD = re.compile(r"\w+")


class NameIndex:
    """Names found in a text in bounded work: the names are filed under their first word (lowercased),
    so a text is tokenised once and only the names filed under one of its words are compared, however
    many names there are (a regex per name costs seconds per query at 20,000 speakers).

    A name matches where it appears whole, case-insensitively, not inside a longer word: what
    `(?<!\w)name(?!\w)` with IGNORECASE matches. A name without any word character is never found.
    """

    def __init__(self, names=()):
        self._by_first: dict[str, dict[str, int]] = {}  # first word -> {name: offset of that word in the name}
        for name in names:
            self.add(name)

    def add(self, name: str) -> None:
        first = _WORD.search(name)
        if first is not None:
            self._by_first.setdefault(first.group().lower(), {})[name] = first.start()

    def candidates(self, text: str) -> list[tuple[str, int, int]]:
        """(name, position of its first word in the text, offset) for every name worth comparing."""
        out = []
        for word in _WORD.finditer(text):
            for name, offset in self._by_first.get(word.group().lower(), {}).items():
                out.append((name, word.start(), offset))
        return out

    def find(self, text: str) -> set[str]:
        found = set()
        lowered = text.lower()
        for name, at, offset in self.candidates(text):
            start, end = at - offset, at - offset + len(name)
            if start < 0 or lowered[start:end] != name.lower():
                continue
            if (start > 0 and _is_word_char(text[start - 1])) or (end < len(text) and _is_word_char(text[end])):
                continue
            found.add(name)
        return found


def _is_word_char(char: str) -> bool:
    return bool(_WORD.match(char))


class SpeakerCache:
    """Per user: the speakers their messages named (read once from the ledger, then kept current), and
    an index of those names and their first words (see NameIndex)."""

    def __init__(self, ledger: Ledger):
        self.ledger = ledger
        self._lock = threading.Lock()
        self._known: dict[str, set[str]] = {}
        self._indexes: dict[str, tuple[NameIndex, NameIndex]] = {}

    def get(self, user_id: str) -> set[str]:
        with self._lock:
            known = self._known.get(user_id)
        if known is None:
            known = self.ledger.speakers(user_id)
            with self._lock:
                known = self._known.setdefault(user_id, known)
        return known

    def indexes(self, user_id: str) -> tuple[NameIndex, NameIndex]:
        """(full names, first names of two or more characters) of the user's speakers."""
        known = self.get(user_id)
        with self._lock:
            pair = self._indexes.get(user_id)
            if pair is None:
                pair = (NameIndex(known), NameIndex(_first_names(known)))
                self._indexes[user_id] = pair
            return pair

    def add(self, user_id: str, speaker: str) -> None:
        with self._lock:
            if user_id in self._known:  # an unread user is read whole on first use
                self._known[user_id].add(speaker)
                pair = self._indexes.get(user_id)
                if pair is not None:
                    pair[0].add(speaker)
                    for first in _first_names([speaker]):
                        pair[1].add(first)

    def forget(self, user_id: str) -> None:
        with self._lock:
            self._known.pop(user_id, None)
            self._indexes.pop(user_id, None)


def _first_names(names) -> set[str]:
    return {name.split()[0] for name in names if name.split() and len(name.split()[0]) >= 2}


@lru_cache(maxsize=16384)
def _memory_terms(text: str, attribute: str) -> frozenset[str]:
    # Cached: every question tokenizes its few dozen candidates again, and a store's texts do not change.
    return frozenset(lexical_document(text, attribute))


class Recall:
    def __init__(self, *, ledger: Ledger, sync: IndexSync, embedder: Embedder, settings: Settings,
                 speakers: SpeakerCache, kinds: Kinds | None = None):
        self.ledger = ledger
        self.sync = sync
        self.embedder = embedder
        self.settings = settings
        self.speakers = speakers
        self.kinds = kinds

    def __call__(self, query: str, user_id: str, top_k: int | None, threshold: float | None, alpha: float | None,
                 include_history: bool | None, importance_weight: float | None) -> RecallResult:
        started = time.perf_counter()
        s = self.settings
        top_k = s.top_k if top_k is None else int(top_k)
        threshold = s.threshold if threshold is None else float(threshold)
        alpha = s.alpha if alpha is None else float(alpha)
        importance_weight = s.importance_weight if importance_weight is None else float(importance_weight)
        if not TOP_K_MIN <= top_k <= TOP_K_MAX:
            raise ValueError(f"top_k must be between {TOP_K_MIN} and {TOP_K_MAX}, got {top_k}")
        if not THRESHOLD_MIN <= threshold <= THRESHOLD_MAX:
            raise ValueError(f"threshold must be between {THRESHOLD_MIN:g} and {THRESHOLD_MAX:g}, got {threshold}")
        history_cue = questions.wants_history(query)
        history = history_cue if include_history is None else bool(include_history)
        timings: dict[str, float] = {}

        t = time.perf_counter()
        # The embedding sees the question about "the user"; BM25 keeps the names, which is how it tells
        # two people's memories apart when their content is alike.
        aliased_query = self._alias_names(user_id, query)
        query_text = textlib.spell_out(questions.without_present_fillers(
            questions.as_third_person_question(aliased_query)))
        lexical_text = questions.as_third_person_question(query)
        # The statement the question asks for is embedded in the same encode call as the question.
        # (Only the calibrated score uses it: the raw blend would pay for an encode it ignores.)
        # A question about how the assistant should behave ("what should you call me?") is always matched
        # against its instruction statement too: no question's words are in "User wants the assistant to ...".
        instruction = s.statement_query and questions.asks_for_instruction(query_text)
        statement_text = (questions.as_statement(query_text) if s.statement_query and (s.calibrated or instruction)
                          else None)
        if statement_text:
            qvec, svec = self.embedder.encode_queries([query_text, statement_text])
        else:
            qvec = svec = self.embedder.encode_query(query_text)
        timings["embed"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        n = max(s.candidate_k, top_k * 2)
        dense = self.sync.nearest(user_id, qvec, n)
        timings["dense"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        terms = textlib.tokenize(lexical_text)
        lexical = self.sync.lexical.search(user_id, terms, n)
        timings["lexical"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        ids = set(dense) | set(lexical)
        memories = self.ledger.get_many(sorted(ids))
        candidates: list[Hit] = []
        # The statement's cosine needs every candidate's vector; without a statement only the lexical-only
        # candidates need theirs.
        wanted = [i for i in ids if i in memories and (svec is not qvec or i not in dense)]
        vectors = self.ledger.embeddings(wanted) if wanted else {}
        for memory_id, memory in memories.items():
            if memory.status != "active" or memory.user_id != user_id:
                continue  # an index a moment behind the ledger must never leak a stale or foreign memory
            sem = dense.get(memory_id)
            if sem is None:
                sem = float(vectors[memory_id] @ qvec)
            stmt = float(vectors[memory_id] @ svec) if svec is not qvec else sem
            if instruction and not s.calibrated:
                sem = max(sem, stmt)  # the raw blend has no statement term of its own
            candidates.append(Hit(memory, 0.0, round(sem, 6), round(lexical.get(memory_id, 0.0), 6), memory.importance,
                                  statement=round(stmt, 6), coverage=self._coverage(terms, memory)))
        if s.replaced_answers is not None and not history_cue:
            candidates = self._answering_for_the_replaced(query, candidates, qvec, svec, s.replaced_answers)
        if history:
            candidates.extend(self._historical_candidates(user_id, qvec, svec, terms, n))
        if s.member_words:
            candidates = self._members_in_the_memorys_words(query_text, candidates)
        kind_words = questions.asked_kind_words(query) if self.kinds is not None else ()
        if kind_words:
            possessed = self._possessed_besides(query, kind_words)
            candidates = self._instances_of_the_asked_kind(user_id, terms, kind_words, possessed, candidates)
            # Only where the question says the statement it asks for ("User plays sport"): a question about a named
            # person ("What subject have Caroline and Melanie both painted?") has none, and said with an instance
            # in its own words it asks nothing ("What dance have ...").
            kind_statement = ((statement_text or questions.as_statement(query_text))
                              if s.statement_query and s.kind_statements else None)
            if kind_statement:
                candidates = self._statements_with_the_instance(query, kind_statement, kind_words, possessed,
                                                                candidates)
        unknown_names = sorted(name for name in questions.names_asked_about(query)
                               if not self._knows_name(user_id, name)) if s.unknown_name_filter else []
        if unknown_names:
            candidates = []  # every memory that scores is about someone else
        candidates = self._about_named_people(user_id, query, candidates)
        candidates = self._others_named_alone(user_id, aliased_query, candidates)
        candidates = self._near_misses_dropped(query, candidates)
        if kind_words:
            candidates = self._nothing_of_the_asked_kind(query, candidates)
        timings["score"] = (time.perf_counter() - t) * 1000
        calibration = s.calibration()
        hits, misses, ranked = scoring.rank(candidates, alpha=alpha, importance_weight=importance_weight,
                                            threshold=threshold, top_k=top_k, current_first=not history_cue,
                                            companion_margin=s.companion_margin, calibration=calibration,
                                            evidence_pooling=s.evidence_pooling, lexical_support=s.lexical_support)
        timings["total"] = (time.perf_counter() - started) * 1000
        return RecallResult(
            query=query, user_id=user_id, hits=hits, confidence=scoring.confidence(hits, threshold, s.certain_margin),
            threshold=threshold, alpha=alpha, importance_weight=importance_weight, top_k=top_k,
            include_history=history, history_cue=history_cue, companion_margin=s.companion_margin,
            below_threshold=misses, timings_ms={k: round(v, 3) for k, v in timings.items()},
            candidates=ranked, calibration=calibration, evidence_pooling=s.evidence_pooling,
            lexical_support=s.lexical_support,
            unknown_names=unknown_names,
        )

    @staticmethod
    def _coverage(terms: list[str], memory) -> float:
        return round(textlib.content_coverage(terms, _memory_terms(memory.text, memory.attribute)), 6)

    def _members_in_the_memorys_words(self, query_text: str, candidates: list[Hit]) -> list[Hit]:
        """A question naming a relative, pet or carer one way ("grandmother", "dog", "GP") is said again as each of
        the `member_words` candidates nearest it names the same one ("nan", "spaniel", "doctor";
        questions.in_the_memorys_words), and so is any thing the question names that the memory calls by another
        word for it ("pushchair" said as "stroller"; with kinds and `thing_words`, kinds.Kinds.same_thing), all in one
        encode call, and the candidate's semantic cosine is the better of the two. Only the same member: a memory
        about another relative is said with no other word, and is dropped as a near miss later."""
        said = []
        same_thing = self._thing_words() if self.kinds is not None else None
        for hit in sorted(candidates, key=lambda h: h.semantic, reverse=True)[:self.settings.member_words]:
            sentence = questions.in_the_memorys_words(query_text, hit.memory.text, same_thing=same_thing)
            if sentence:
                said.append((hit.memory.id, sentence))
        return self._lifted(candidates, "semantic", self._nearest_cosines(said))

    def _answering_for_the_replaced(self, query: str, candidates: list[Hit], qvec: np.ndarray, svec: np.ndarray,
                                    margin: float) -> list[Hit]:
        """A memory that replaced another answers what the other answered: "User moved everything to Starling" took
        the place of "User banks with Barclays", which is what "which bank do I use?" is worded like. Its semantic
        and statement cosines are at least those of the memories it replaced (up to three steps back) less
        `margin`; only of one that answers the question itself, not a near miss ("which school does my son go to?"
        is not answered by the daughter's school, nor by where she moved to). Called before the superseded
        candidates join, and not for a question about the past, where the replaced memory itself is the answer."""
        replacing = [hit.memory.id for hit in candidates if hit.memory.supersedes is not None]
        if not replacing:
            return candidates
        replaced = self.ledger.replaced_embeddings(replacing)
        lifted = []
        for hit in candidates:
            vectors = [vector for text, vector in replaced.get(hit.memory.id, ())
                       if not self._near_miss(query, text, dated=bool(hit.memory.source_timestamp))]
            if vectors:
                semantic = max(float(v @ qvec) for v in vectors) - margin
                statement = max(float(v @ svec) for v in vectors) - margin if svec is not qvec else semantic
                hit = replace(hit, semantic=round(max(hit.semantic, semantic), 6),
                              statement=round(max(hit.statement, statement), 6))
            lifted.append(hit)
        return lifted

    def _thing_words(self) -> Callable[[str, str], bool] | None:
        """Do two words name one thing one has or uses (kinds.Kinds.same_thing, things only: "pushchair" and
        "stroller", not "places" and "spot"), when `thing_words` is on."""
        if not self.settings.thing_words:
            return None
        kinds = self.kinds
        return lambda a, b: kinds.same_thing(a, b, things_only=True)

    def _nearest_cosines(self, said: list[tuple[int, str]],
                         said_as_noun: dict[tuple[int, str], str] | None = None) -> dict[int, float]:
        """Each memory's cosine to the nearest of the sentences said for it ((memory id, sentence) pairs), with
        every distinct sentence encoded once, all in one call. For the pairs of `said_as_noun` the memory is the
        text given there (said with its doing's noun, kinds.doings), encoded in the same call, not its stored
        vector."""
        said_as_noun = said_as_noun or {}
        if not said and not said_as_noun:
            return {}
        texts = list(dict.fromkeys([*(sentence for _, sentence in said), *(sentence for _, sentence in said_as_noun),
                                    *said_as_noun.values()]))
        encoded = dict(zip(texts, self.embedder.encode_queries(texts)))
        vectors = self.ledger.embeddings(sorted({memory_id for memory_id, _ in said})) if said else {}
        pairs = [(memory_id, vectors[memory_id], sentence) for memory_id, sentence in said if memory_id in vectors]
        pairs += [(memory_id, encoded[memory_said], sentence)
                  for (memory_id, sentence), memory_said in said_as_noun.items()]
        best: dict[int, float] = {}
        for memory_id, memory_vector, sentence in pairs:
            best[memory_id] = max(best.get(memory_id, -1.0), float(memory_vector @ encoded[sentence]))
        return best

    @staticmethod
    def _lifted(candidates: list[Hit], field: str, best: dict[int, float]) -> list[Hit]:
        """The candidates with `field` raised to their cosine in `best` where that is higher."""
        return [replace(hit, **{field: round(max(getattr(hit, field), best[hit.memory.id]), 6)})
                if hit.memory.id in best else hit for hit in candidates]

    @staticmethod
    def _possessed_besides(query: str, kind_words: tuple[str, ...]) -> list[str]:
        """The things the question says are someone's ("what colour is my car?" -> car), less the kind it asks by
        ("what's my usual drink?" asks for a drink, it does not name one). A memory that names neither such a thing
        nor one of its kind is of another of the user's things ("User's kitchen is painted sage green")."""
        kind_terms = {textlib.term(word) for word in kind_words}
        return [thing for thing in questions.possessed_things(query) if textlib.term(thing) not in kind_terms]

    def _instances_of_the_asked_kind(self, user_id: str, terms: list[str], kind_words: tuple[str, ...],
                                     possessed: list[str], candidates: list[Hit]) -> list[Hit]:
        """A question asking by kind ("what drink do I have in the morning?") finds in a memory naming an instance
        of it ("User has an espresso every morning") the word it asks with: the memory's BM25 document is scored
        with that kind added. Only the kind asked for, only for candidates already found, and only for those naming
        the things the question says are someone's (_possessed_besides)."""
        asked = {textlib.term(word) for word in kind_words} & set(terms)
        if not asked:
            return candidates
        documents = {}
        for hit in candidates:
            found = kinds_in(hit.memory.text, self.kinds, asked) | self._kinds_of_doings(hit.memory.text, asked)
            if found and self._names_all(hit.memory.text, possessed):
                document = lexical_document(hit.memory.text, hit.memory.attribute)
                documents[hit.memory.id] = document + sorted(found - set(document))
        if not documents:
            return candidates
        scores = self.sync.lexical.score_documents(user_id, terms, documents)
        return [replace(hit, lexical=round(max(hit.lexical, scores.get(hit.memory.id, 0.0)), 6),
                        coverage=round(textlib.content_coverage(terms, documents[hit.memory.id]), 6))
                if hit.memory.id in documents else hit for hit in candidates]

    def _kinds_of_doings(self, text: str, asked: set[str]) -> frozenset[str]:
        """The asked kinds of what a memory says someone does by its verb alone ("User boxes" names boxing, a sport)."""
        if not self.settings.doing_words:
            return frozenset()
        return frozenset(kind for doing, _ in doings(text, self.kinds) for kind in self.kinds.kinds_of(doing)
                         if kind in asked)

    def _statements_with_the_instance(self, query: str, statement_text: str, kind_words: tuple[str, ...],
                                      possessed: list[str], candidates: list[Hit]) -> list[Hit]:
        """The statement a question asking by kind asks for ("User plays sport" for "which sport do I play?") is said
        with the instance a candidate names in place of the kind ("User plays tennis"), and the candidate's statement
        cosine (the semantic one, for the raw blend) is the better of the two: MiniLM rates "User plays tennis every
        Tuesday" 0.70 against the one, 0.54 against the other. Only for the `kind_statements` current candidates
        nearest the question. Said with the instance, the statement and a memory differ in one word, and MiniLM
        rates such pairs above the threshold even where the memory does not answer; so a candidate is left as it
        is when it
        - leaves out the relative, pet or role the question names ("what sport does my brother play?" of "User plays
          tennis"; questions.names_members_missing);
        - keeps away from the thing ("User is allergic to penicillin" for "what medication do I take?";
          questions.keeps_away), unless the question asks about that too;
        - names neither the thing the question says is someone's nor one of its kind ("User's kitchen is painted
          sage green" for "what colour is my car?"; _possessed_besides);
        and an instance is not tried when the question names it already ("what language does Tim know besides
        German?") or it is a word of the kind's own sense ("start" for "first")."""
        asked = {textlib.term(word): word for word in kind_words}
        named = {textlib.term(word) for word in common_words(query)}
        kept_away = questions.keeps_away(query)
        wished = questions.only_wished(query)
        phrase = questions.asked_kind_phrase(query)
        said: dict[tuple[int, str], None] = {}  # (memory id, sentence), in order, once each
        said_as_noun: dict[tuple[int, str], str] = {}  # ... and the memory said with its doing's noun
        owners: set[int] = set()
        for hit in sorted(candidates, key=lambda h: max(h.semantic, h.statement), reverse=True):
            if len(owners) >= self.settings.kind_statements:
                break
            said_text = replies.said(hit.memory.text)
            if (hit.historical or questions.names_members_missing(query, hit.memory.text, besides=kind_words)
                    or questions.keeps_away(said_text) and not kept_away
                    or questions.only_wished(said_text) and not wished
                    or not self._names_all(said_text, possessed)):
                continue
            # said with the memory's word for the relative or pet it names too ("User plays chess with grandad")
            same_thing = self._thing_words()
            stated = (questions.in_the_memorys_words(statement_text, hit.memory.text, same_thing=same_thing)
                      if self.settings.member_words else None) or statement_text
            # Instances come from what was said, not from the question a reply answers (replies.said).
            # A doing said by its verb is compared as said by its noun ("User does boxing twice a week").
            doings_said = doings(said_text, self.kinds) if self.settings.doing_words else ()
            for word, memory_said in (*((w, None) for w in common_words(said_text)), *doings_said):
                if textlib.term(word) in named:
                    continue
                kinds = [asked[t] for t in self.kinds.kinds_of(word)
                         if t in asked and textlib.term(word) not in self.kinds.kinds_of(asked[t])]
                if kinds and phrase and not set(phrase.split()) <= set(kinds):
                    # said with a word before it, the kind is the whole phrase: surfing is a water sport
                    kinds = phrase.split() if self.kinds.is_a(word, phrase) else []
                sentence = questions.with_instance(stated, kinds, word) if kinds else None
                if sentence and memory_said:
                    said_as_noun[(hit.memory.id, sentence)] = memory_said
                    owners.add(hit.memory.id)
                elif sentence:
                    said[(hit.memory.id, sentence)] = None
                    owners.add(hit.memory.id)
        # The raw blend has no statement term of its own: there the better cosine is the semantic one.
        return self._lifted(candidates, "statement" if self.settings.calibrated else "semantic",
                            self._nearest_cosines(list(said), said_as_noun))

    def _names_all(self, text: str, things: list[str]) -> bool:
        return all(self._names_thing(text, thing) for thing in things)

    def _names_thing(self, text: str, thing: str) -> bool:
        """Does a text name the thing, or a thing of its kind ("User drives a hatchback" names a car)?"""
        wanted = textlib.term(thing)
        return any(textlib.term(word) == wanted or wanted in self.kinds.kinds_of(word) for word in common_words(text))

    def _knows_name(self, user_id: str, name: str) -> bool:
        """Has the store heard of this name: the user's id, a speaker's name, or a word of an active memory?"""
        words = name.casefold().split()
        if name.casefold() == user_id.strip().casefold():
            return True
        if any(set(words) <= set(speaker.casefold().split()) for speaker in self.speakers.get(user_id)):
            return True
        terms = textlib.tokenize(name)
        # A name that is also a common word ("Will", "May") tokenizes to nothing: it cannot be told apart.
        return not terms or all(self.sync.lexical.has_term(user_id, term) for term in terms)

    def _alias_names(self, user_id: str, query: str) -> str:
        """Memories are embedded with their person as "User" (see extract.embedding_text); a question
        that names that person ("What does Sam do?", "Where did Maya go?") is asked about "the user"
        too, so the name, which every memory of theirs shares, does not decide the match. Only the names
        the query contains are substituted (found through the speaker index, see NameIndex)."""
        full, first = self.speakers.indexes(user_id)
        own = self.ledger.active_names(user_id)  # at most three: compared directly
        aliases = full.find(query) | first.find(query) | NameIndex(own | _first_names(own)).find(query)
        for alias in sorted(aliases, key=len, reverse=True):
            if len(alias) >= 2:
                query = re.sub(rf"(?<!\w){re.escape(alias)}'s(?!\w)", "the user's", query, flags=re.IGNORECASE)
                query = re.sub(rf"(?<!\w){re.escape(alias)}(?!\w)", "the user", query, flags=re.IGNORECASE)
        return query

    def _about_named_people(self, user_id: str, query: str, candidates: list[Hit]) -> list[Hit]:
        """In a conversation between several people, a question that names some of them is answered
        only by what those people said or what mentions them: Marta's sister is not Kenji's."""
        speakers = self.speakers.get(user_id)
        if len(speakers) < 2:
            return candidates
        named = self.speakers.indexes(user_id)[0].find(query)
        if not named:
            return candidates
        mentioned = NameIndex(named)

        def about_them(hit: Hit) -> bool:
            speaker = hit.memory.speaker
            if speaker is None or speaker in named:
                return True
            return bool(mentioned.find(hit.memory.text))

        return [h for h in candidates if about_them(h)]

    def _near_miss(self, query: str, text: str, *, dated: bool, replacement: bool = False) -> bool:
        """Does a memory of this text answer a neighbouring question, not this one: another relative, pet or team
        role than the one asked about, or the user's own fact for a question about someone else
        (questions.contrast_mismatch), no value of the kind asked for (questions.lacks_asked_value), only a wish for
        a question about what is so now (questions.wished_not_done), or another thing of the kind the question
        names (questions.names_another_of_its_kind: the violin for "how long have I played the flute?"; not of a
        `replacement`, which may answer in the words of what it replaced: "do I still drink coffee?" of "User
        has switched to tea"). Its cosine is high because the sentences differ in one word."""
        s = self.settings
        return ((s.contrast_filter and questions.contrast_mismatch(query, text))
                or (s.answer_type_filter and questions.lacks_asked_value(query, text, dated=dated))
                or (s.wish_filter and questions.wished_not_done(query, text))
                or (s.sibling_filter and not replacement and self.kinds is not None
                    and questions.names_another_of_its_kind(query, text, self.kinds) is not None))

    def _near_misses_dropped(self, query: str, candidates: list[Hit]) -> list[Hit]:
        return [h for h in candidates
                if not self._near_miss(query, h.memory.text, dated=bool(h.memory.source_timestamp),
                                       replacement=h.memory.supersedes is not None)]

    def _nothing_of_the_asked_kind(self, query: str, candidates: list[Hit]) -> list[Hit]:
        """A question asking for a thing by its kind ("which accounting software do I use?") is not answered by a
        memory naming nothing of that kind ("User works as an accountant"; questions.names_nothing_of_the_asked_kind),
        which shares its topic and so its words. Of the `kind_statements` current candidates nearest the question, such
        a memory is dropped unless one of its things is at least `asked_kind_floor` near the kind's word in meaning
        (all of them in one encode call): that keeps the instances WordNet files elsewhere ("what pet do we have?" of
        "User adopted a retired greyhound")."""
        floor = self.settings.asked_kind_floor
        if floor is None:
            return candidates
        judged: dict[int, tuple[str, tuple[str, ...]]] = {}
        nearest = sorted((h for h in candidates if not h.historical), key=lambda h: max(h.semantic, h.statement),
                         reverse=True)[:self.settings.kind_statements]
        for hit in nearest:
            doing_nouns = ([noun for noun, _ in doings(hit.memory.text, self.kinds)]
                           if self.settings.doing_words else [])
            found = questions.names_nothing_of_the_asked_kind(query, hit.memory.text, self.kinds, doing_nouns)
            if found is not None:
                judged[hit.memory.id] = found
        if not judged:
            return candidates
        texts = list(dict.fromkeys(text for kind, things in judged.values() for text in (kind, *things)))
        vectors = dict(zip(texts, self.embedder.encode_queries(texts)))
        near = {memory_id: max(float(vectors[kind] @ vectors[thing]) for thing in things)
                for memory_id, (kind, things) in judged.items()}
        return [h for h in candidates if near.get(h.memory.id, 1.0) >= floor]

    def _others_named_alone(self, user_id: str, aliased_query: str, candidates: list[Hit]) -> list[Hit]:
        """A question about someone named, and about them alone ("what phone does Tom have?"), is not answered by a
        memory of the user's own life that does not name them ("User has an iPhone 13."). The user's own names are
        "the user" in `aliased_query` (see _alias_names); in a conversation between several people a name is asked
        of its speaker's memories, which _about_named_people sees to."""
        if not self.settings.contrast_filter or len(self.speakers.get(user_id)) >= 2:
            return candidates
        names = questions.names_asked_alone(aliased_query)
        if not names:
            return candidates
        mentioned = NameIndex(names)
        return [h for h in candidates
                if not (questions.of_the_user_alone(h.memory.text) and not mentioned.find(h.memory.text))]

    def _historical_candidates(self, user_id: str, qvec: np.ndarray, svec: np.ndarray, terms: list[str],
                               n: int) -> list[Hit]:
        rows = self.ledger.superseded_for_user(user_id, self.settings.history_pool)
        if not rows:
            return []
        sims = {mid: float(vector @ qvec) for mid, vector in rows}
        statement_sims = {mid: float(vector @ svec) for mid, vector in rows}
        best = sorted(sims, key=sims.get, reverse=True)[:n]
        memories = self.ledger.get_many(best)
        docs = {mid: lexical_document(m.text, m.attribute) for mid, m in memories.items()}
        lexical = self.sync.lexical.score_documents(user_id, terms, docs)
        replacements = self.ledger.get_many([m.replaced_by for m in memories.values() if m.replaced_by])
        out = []
        for mid in best:
            m = memories[mid]
            out.append(Hit(m, 0.0, round(sims[mid], 6), round(lexical.get(mid, 0.0), 6), m.importance,
                           historical=True, replaced_by_memory=replacements.get(m.replaced_by),
                           statement=round(statement_sims[mid], 6), coverage=self._coverage(terms, m)))
        return out
