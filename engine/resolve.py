"""Conflict resolution: does a new fact confirm, replace, or sit beside what the user said before?

Rules, in order:
1. Same slot (user, subject, attribute) and same value: confirmed, nothing new is stored.
2. The message names the value it replaces ("from Python to Rust", "no longer use Vim"): that value
   is superseded.
3. A single-valued canonical slot holds one value: a different value replaces it (a person lives in
   one city). For attributes no rule knows (generic "my X is Y" slots), the two facts must also be
   at least `conflict_threshold` similar, so a loose slot name cannot pair unrelated facts.
4. Accumulating slots (hobbies, pets, languages...) only change on an explicit switch ("switched
   to", "instead", "no longer"): "I also play piano" leaves "I play guitar" alone.
5. A clause no rule understood, said with an update cue ("I've cut down to one coffee a day"),
   replaces the most similar memory in its (best-guess) slot when at least `conflict_threshold` similar.
6. An update cue with no slot to match ("actually, it's at 10 now") searches the user's active
   memories by meaning and replaces the nearest one when it is at least `conflict_threshold +
   CUE_MARGIN` similar. Memories in accumulating slots (hobbies, pets) are never replaced this way.
Facts from the same message never replace each other, and a fact about one named person never
replaces a fact about another ("Dara Haddad switched jobs" leaves Dara Silva's job alone).
A new single-valued fact that does not replace the slot's holder is kept beside it, accumulating.
"""
from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .extraction import SLOTS, Candidate, value_key
from .ledger import blob_to_vector

if TYPE_CHECKING:
    from .core import MemoryEngine

CUE_MARGIN = 0.15
STRONG_CUES = re.compile(
    r"\b(?:switched|switching|switch|changed|changing|instead|no longer|any\s?more|replaced|migrated|migrating|"
    r"moved|moving|quit|stopped|gave up|ditched|dropped|correction|i meant|wrong|not .+ but)\b",
    re.IGNORECASE,
)


_NOT_NAMES = {"the", "a", "an", "this", "that", "these", "those", "my", "our", "it", "its", "there", "project",
              "actually", "now", "also", "today", "tomorrow", "yesterday"}


def named_subject(text: str) -> str:
    """Whom a memory's sentence is about when it is not the user: the leading proper name
    ("User's colleague Sven Silva moved to Bergen." -> "sven silva"); "" for the user or nothing."""
    rest = re.sub(r"^User(?:'s)?\s+(?:(?:colleague|friend|neighbour|neighbor|boss|manager|coworker|co-worker|"
                  r"cousin|teammate|client|partner|sister|brother|mother|father|mom|dad|son|daughter|wife|husband)\s+)?",
                  "", text.strip())
    if rest == text.strip() and text.startswith("User"):
        return ""
    words = []
    for word in rest.split():
        bare = word.strip(",.;:!?'\"()")
        if bare.endswith("'s"):
            bare = bare[:-2]
        if not bare or not bare[0].isupper() or bare.casefold() in _NOT_NAMES:
            break
        words.append(bare.casefold())
        if word != bare and not word.endswith("'s"):
            break
    return " ".join(words)


@dataclass
class Plan:
    action: str  # created | superseded | confirmed
    supersede_ids: list[int] = field(default_factory=list)
    multi: bool = False
    confirmed_id: int | None = None


_SLOT = "user_id = ? AND subject = ? AND attribute = ? AND status = 'active'"


def plan_candidate(conn: sqlite3.Connection, engine: "MemoryEngine", user_id: str, cand: Candidate,
                   vector: np.ndarray, message_id: int) -> Plan:
    """Decide what one new fact does. Every lookup is an index range or a vector query, never a scan
    of a slot: accumulating slots (notes, hobbies) can hold thousands of memories."""
    threshold = engine.settings.conflict_threshold
    slot = (user_id, cand.subject, cand.attribute)
    key = value_key(cand.value)
    same = conn.execute(f"SELECT id FROM memories WHERE {_SLOT} AND value_key = ?", (*slot, key)).fetchone()
    if same:
        return Plan("confirmed", confirmed_id=same[0])
    holders = conn.execute(f"SELECT id, embedding, message_id FROM memories WHERE {_SLOT} AND multi_valued = 0",
                           slot).fetchall()
    # Facts from the same message never replace each other: in "I sold the car and bought a bike"
    # the second clause is not a correction of the first. They still occupy the slot (see `multi`).
    taken = [mid for mid, _, _ in holders]
    holders = [(mid, blob) for mid, blob, msg in holders if msg != message_id]
    # 0, 1 or "more": all the rules need, without counting a slot of thousands
    others = len(conn.execute(f"SELECT 1 FROM memories WHERE {_SLOT} AND message_id IS NOT ? LIMIT 2",
                              (*slot, message_id)).fetchall())

    targets: list[int] = []
    if cand.replaced_value and value_key(cand.replaced_value):
        replaced = value_key(cand.replaced_value)
        targets = [r[0] for r in conn.execute(
            f"SELECT id FROM memories WHERE {_SLOT} AND message_id IS NOT ? AND value_key != '' "
            "AND (instr(value_key, ?) > 0 OR instr(?, value_key) > 0)", (*slot, message_id, replaced, replaced))]
    canonical = cand.attribute in SLOTS and not SLOTS[cand.attribute].multi
    if not targets and others:
        if not cand.multi and cand.understood:
            targets = [mid for mid, blob in holders if canonical or float(blob_to_vector(blob) @ vector) >= threshold]
        elif (not cand.understood and cand.update_cue) or (cand.multi and STRONG_CUES.search(cand.clause)):
            best = _nearest_in_slot(conn, engine, slot, vector, message_id, named_subject(cand.text))
            if best and best[0] >= threshold:
                targets = [best[1]]
            elif cand.understood and others == 1:
                # an explicit switch in a slot holding one value needs no similarity to know its target
                targets = [r[0] for r in conn.execute(
                    f"SELECT id FROM memories WHERE {_SLOT} AND message_id IS NOT ?", (*slot, message_id))]
    if not targets and not others and cand.update_cue:
        targets = _replaced_elsewhere(conn, engine, user_id, cand, vector, threshold + CUE_MARGIN, message_id)

    # A single-valued fact that replaces nothing while the slot is taken sits beside it instead.
    multi = cand.multi or any(mid not in targets for mid in taken)
    return Plan("superseded" if targets else "created", supersede_ids=targets, multi=multi)


def _nearest_in_slot(conn: sqlite3.Connection, engine: "MemoryEngine", slot: tuple[str, str, str],
                     vector: np.ndarray, message_id: int, about: str) -> tuple[float, int] | None:
    """(similarity, id) of the slot's memory nearest to the vector, from the user's vector index,
    among those about the same person: "Dara Haddad switched jobs" never replaces a fact about Dara Silva."""
    nearest = engine._nearest(slot[0], vector, 50)
    if not nearest:
        return None
    marks = ",".join("?" * len(nearest))
    in_slot = conn.execute(
        f"SELECT id, text FROM memories WHERE {_SLOT} AND message_id IS NOT ? AND id IN ({marks})",
        (*slot, message_id, *nearest)).fetchall()
    ranked = sorted(((nearest[mid], mid) for mid, text in in_slot if named_subject(text) == about), reverse=True)
    return ranked[0] if ranked else None


def _replaced_elsewhere(conn: sqlite3.Connection, engine: "MemoryEngine", user_id: str, cand: Candidate,
                        vector: np.ndarray, min_similarity: float, message_id: int) -> list[int]:
    nearest = engine._nearest(user_id, vector, 5)
    for memory_id, sim in sorted(nearest.items(), key=lambda kv: kv[1], reverse=True):
        if sim < min_similarity:
            break
        row = conn.execute(
            "SELECT multi_valued, subject, attribute, text FROM memories "
            "WHERE id = ? AND user_id = ? AND status = 'active' AND message_id IS NOT ?",
            (memory_id, user_id, message_id),
        ).fetchone()
        if row is None:
            continue
        multi_valued, subject, attribute, text = row
        accumulating_slot = attribute in SLOTS and SLOTS[attribute].multi
        if multi_valued and accumulating_slot and not cand.replaced_value:
            continue
        if cand.understood and subject != cand.subject and not subject.startswith("event:"):
            continue
        if named_subject(text) != named_subject(cand.text):
            continue  # a fact about someone else
        return [memory_id]
    return []
