"""Memory vectors: a memory's embedding leans toward its slot's description, and a clause no rule
understood is filed under the nearest slot. One definition that ingest, re-embedding and import share."""
from __future__ import annotations

import numpy as np

from . import extraction as extractlib
from .embed import Embedder
from .extraction.compete import named_kinds, slot_fits


class MemoryVectors:
    def __init__(self, embedder: Embedder, *, doc_expansion: float, slot_guess_floor: float):
        self.embedder = embedder
        self.doc_expansion = doc_expansion
        self.slot_guess_floor = slot_guess_floor
        self._slot_names = [n for n in extractlib.SLOTS if n != "note"]
        self._slot_matrix: np.ndarray | None = None

    def slot_vectors(self) -> np.ndarray:
        """Embeddings of the canonical slots' descriptions (rows in the order of _slot_names)."""
        if self._slot_matrix is None:
            self._slot_matrix = self.embedder.encode([extractlib.SLOTS[n].description for n in self._slot_names])
        return self._slot_matrix

    def expand(self, plain: np.ndarray, slots: list[tuple[str, str]]) -> np.ndarray:
        """Memory vectors: each plain embedding plus doc_expansion of its slot's description, unit length."""
        if not len(plain):
            return np.zeros((0, self.embedder.dim), np.float32)
        matrix, index = self.slot_vectors(), {n: i for i, n in enumerate(self._slot_names)}
        out = np.array(plain, dtype=np.float32, copy=True)
        for row, (attribute, mem_type) in enumerate(slots):
            slot = extractlib.slot_of(attribute, mem_type)
            if slot is not None and slot.name == "note":
                # A note leans toward the slot nearest its meaning (when near enough), whatever its
                # label: a function of the text alone, so ingest, re-embedding and import agree.
                sims = matrix @ plain[row]
                best = int(np.argmax(sims))
                if sims[best] >= self.slot_guess_floor:
                    slot = extractlib.SLOTS[self._slot_names[best]]
            if slot is not None and slot.name in index:
                out[row] += self.doc_expansion * matrix[index[slot.name]]
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    def embed_memories(self, rows: list[tuple[str, str | None, str, str]]) -> np.ndarray:
        """(text, speaker, attribute, type) -> stored vectors."""
        plain = self.embedder.encode([extractlib.embedding_text(text, speaker) for text, speaker, _, _ in rows])
        return self.expand(plain, [(attribute, mem_type) for _, _, attribute, mem_type in rows])

    def assign_fallback_attributes(self, cands: list[extractlib.Candidate],
                                   plain: np.ndarray) -> list[extractlib.Candidate]:
        """A clause no rule understood goes under the nearest canonical attribute when that one is near
        enough AND fits it (shares a word with the slot, compete.slot_fits); else it stays a note."""
        if all(c.understood for c in cands):
            return cands
        matrix = self.slot_vectors()
        out = []
        for cand, vector in zip(cands, plain):
            if not cand.understood:
                sims = matrix @ vector
                best = int(np.argmax(sims))
                # A clause naming a well-known value of one kind ("gave neovim a proper go") is that kind's, when
                # near enough to it, whichever slot is nearest.
                kinds = [k for k in named_kinds(cand.clause) if k in self._slot_names]
                if len(kinds) == 1 and sims[self._slot_names.index(kinds[0])] >= self.slot_guess_floor:
                    best = self._slot_names.index(kinds[0])
                slot = extractlib.SLOTS[self._slot_names[best]]
                if sims[best] >= self.slot_guess_floor and (kinds == [slot.name] or slot_fits(
                        cand.clause, slot.name, slot.description, cand.text)):
                    cand = extractlib.replace(cand, attribute=slot.name, type=slot.type, multi=True)
            out.append(cand)
        return out
