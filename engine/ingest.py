"""The ingest pipeline: message -> clauses -> candidates (the extractor) -> vectors (one batch) ->
a plan per candidate (resolve.py) -> stored in one transaction -> indexes brought along (sync.py)."""
from __future__ import annotations

import dataclasses
import threading
from typing import Any

import numpy as np

from . import extraction as extractlib
from .extraction import frames
from .extraction.compete import swap_thing
from .kinds import Kinds
from .model import CandidateTrace, ComparedMemory, FactOutcome, IngestResult, Memory, MessageIn
from .recall import SpeakerCache
from .resolve import (FOR_A_WHILE, Neighbour, Plan, SlotState, frame_kept, plan_candidate, pointed_back,
                      takes_the_place, thing_said_before)
from .settings import Settings
from .storage import Connection, Ledger, now_iso
from .sync import IndexSync
from .vectors import MemoryVectors


class Ingest:
    def __init__(self, *, ledger: Ledger, sync: IndexSync, vectors: MemoryVectors,
                 extractor: extractlib.Extractor, settings: Settings, write_lock: threading.RLock,
                 speakers: SpeakerCache, kinds: Kinds | None = None):
        self.ledger = ledger
        self.sync = sync
        self.vectors = vectors
        self.extractor = extractor
        # The memories written by the transaction under way, {id: (user, vector)}: the vector index is given
        # them after the commit, and the next messages of the same batch must find them by meaning as the
        # next call to ingest would. Only the writer holding write_lock touches it.
        self._written: dict[int, tuple[str, np.ndarray]] = {}
        self.settings = settings
        self.write_lock = write_lock
        self.speakers = speakers
        self.kinds = kinds  # rules 14 and 15 (resolve._kind_update, resolve._ended_kind) off when None

    def messages(self, items: list[MessageIn]) -> list[IngestResult]:
        """Validated messages -> their results, with one embedding batch and one transaction."""
        extracted = self._resolve_elliptical(items, [self.extractor.extract(dated(m), speaker=own_voice(m))
                                                     for m in items])
        if self.settings.reply_context:
            extracted = self._with_questions_answered(items, extracted)
        speakers = [own_voice(m) for m, cands in zip(items, extracted) for _ in cands]
        flat = [c for cands in extracted for c in cands]
        plain = self.vectors.embedder.encode([extractlib.embedding_text(extractlib.stored_text(c), sp)
                                              for c, sp in zip(flat, speakers)])
        flat = self.vectors.assign_fallback_attributes(flat, plain)
        vectors = self.vectors.expand(plain, [(c.attribute, c.type) for c in flat])
        for m in items:
            if m.speaker:
                self.speakers.add(m.user_id, m.speaker)
        batch, position = [], 0
        for item, cands in zip(items, extracted):
            n = len(cands)
            batch.append((item, flat[position:position + n], vectors[position:position + n]))
            position += n
        return self.store(batch)

    def _resolve_elliptical(self, items: list[MessageIn], extracted: list[list[extractlib.Candidate]]
                            ) -> list[list[extractlib.Candidate]]:
        """A bare correction ("oops, I meant Tuesday") replaces the value of what the user said last:
        the last fact of an earlier message in this batch, else their newest active memory."""
        last: dict[str, Any] = {}
        out = []
        for item, cands in zip(items, extracted):
            if any(not c.elliptical for c in cands):  # the message restates its fact in full
                cands = [c for c in cands if not c.elliptical]
            kept = []
            for cand in cands:
                if cand.elliptical:
                    previous = last.get(item.user_id)
                    if previous is None and (latest := self.ledger.latest_active(item.user_id)) is not None:
                        previous = as_said(latest)
                    cand = extractlib.correct(previous, cand) if previous is not None else None
                if cand is not None:
                    kept.append(cand)
            if kept:
                last[item.user_id] = kept[-1]
            out.append(kept)
        return out

    def _with_questions_answered(self, items: list[MessageIn], extracted: list[list[extractlib.Candidate]]
                                 ) -> list[list[extractlib.Candidate]]:
        """A clause no rule understood, said in reply to another speaker's question, keeps the question
        (extraction/replies.py): the one the caller gave (`in_reply_to`), else the one the message before
        asked, that being the one before it in this batch, else the user's newest logged message."""
        previous: dict[str, MessageIn | None] = {}
        out = []
        for item, cands in zip(items, extracted):
            asked = None
            if item.in_reply_to is not None:  # the caller says what it answers
                asked = extractlib.question_in(item.in_reply_to)
            elif not all(c.understood for c in cands):  # the log is read only when there is a clause to keep
                before = previous[item.user_id] if item.user_id in previous else self.ledger.last_message(item.user_id)
                if before is not None:
                    asked = extractlib.question_answered(before.text, before.speaker, before.timestamp, item.speaker,
                                                         item.timestamp, window_s=self.settings.reply_window_s)
            previous[item.user_id] = item
            if asked is not None:
                cands = extractlib.in_reply(cands, extractlib.person_names(own_voice(item))[1], asked)
            out.append(cands)
        return out

    def store(self, batch: list[tuple[MessageIn, list[extractlib.Candidate], np.ndarray]]) -> list[IngestResult]:
        """Log the messages and apply their facts in ONE transaction, then bring the indexes along."""
        now = now_iso()

        def change(conn: Connection) -> list[tuple[int, str, list[tuple[Plan, int]], list[extractlib.Candidate]]]:
            self._written = {}  # a retried transaction starts again from nothing written
            logged = []
            for message, cands, vectors in batch:
                message_id = self.ledger.insert_message(conn, message, now)
                plans, ended, before = [], None, None
                for cand, vector in zip(cands, vectors):
                    plans.append(self._apply_candidate(conn, message.user_id, cand, vector, message_id, now,
                                                       after=ended, before=before, message_text=message.text))
                    ended, before = (plans[-1][0], plans[-1][1]), (cand, vector)
                status = overall_status(plans)
                self.ledger.set_message_outcome(conn, message_id, status)
                logged.append((message_id, status, plans, cands))
            return logged

        with self.write_lock:
            try:
                logged = self.sync.write(change, defer=True, users={message.user_id for message, _, _ in batch})
            finally:
                self._written = {}
        wanted = [i for _, _, plans, _ in logged for p, mid in plans
                  for i in (mid, *p.supersede_ids, *(cid for cid, _ in p.compared))]
        memories = self.ledger.get_many(wanted)
        # The trace shows how similar a replaced or confirmed memory is even when a rule chose it
        # without comparing vectors (a named value, the same value).
        unmeasured = {i for _, _, plans, _ in logged for p, _ in plans
                      for i in (*p.supersede_ids, p.confirmed_id) if i is not None} - \
            {cid for _, _, plans, _ in logged for p, _ in plans for cid, _ in p.compared}
        stored = self.ledger.embeddings(sorted(unmeasured)) if unmeasured else {}
        results = []
        for (message_id, status, plans, cands), (_, _, vectors) in zip(logged, batch):
            outcomes = [FactOutcome(p.action, memories[mid], [memories[i] for i in p.supersede_ids]) for p, mid in plans]
            results.append(IngestResult(
                status=status, memories=[o.memory for o in outcomes],
                superseded_ids=[m.id for o in outcomes for m in o.superseded],
                message=describe(status, outcomes), message_id=message_id, outcomes=outcomes,
                trace=[trace_candidate(c, p, mid, memories,
                                       {i: float(stored[i] @ v) for i in (*p.supersede_ids, p.confirmed_id)
                                        if i in stored})
                       for c, (p, mid), v in zip(cands, plans, vectors)],
            ))
        return results

    def plan(self, conn: Connection, user_id: str, cand: extractlib.Candidate, vector: np.ndarray,
             message_id: int) -> Plan:
        """Fetch what the rules need from the ledger (index lookups, never a scan of a slot: accumulating
        slots can hold thousands of memories) and let resolve.py decide."""
        slot = (user_id, cand.subject, cand.attribute)
        same = self.ledger.slot_same_value(conn, slot, extractlib.value_key(cand.value))
        if same is not None:
            state = SlotState(same_value=as_said(same))
        else:
            replaced = extractlib.value_key(cand.replaced_value) if cand.replaced_value else ""
            state = SlotState(
                single_holders=[Neighbour(as_said(m), float(v @ vector))
                                for m, v in self.ledger.slot_single_holders(conn, slot)],
                others=[as_said(m) for m in self.ledger.slot_others(conn, slot, message_id)],
                named_value=[as_said(m) for m in self.ledger.slot_value_overlaps(conn, slot, message_id, replaced)]
                if replaced else [],
            )

        s = self.settings
        return plan_candidate(cand, state, self._nearest(conn, user_id, vector), user_id=user_id, message_id=message_id,
                              conflict_threshold=s.conflict_threshold, cue_margin=s.cue_margin,
                              slot_neighbours=s.slot_neighbours, cue_neighbours=s.cue_neighbours,
                              open_world_floor=s.open_world_floor, value_update_floor=s.value_update_floor,
                              value_update_margin=s.value_update_margin, role_update_floor=s.role_update_floor,
                              cued_update_floor=s.cued_update_floor, cued_update_margin=s.cued_update_margin,
                              delta_floor=s.delta_floor if s.restate_updates else None,
                              for_a_while_beside=s.for_a_while_beside,
                              kinds=self.kinds, kind_update_floor=s.kind_update_floor,
                              ended_kind_floor=s.ended_kind_floor, synonym_update_floor=s.synonym_update_floor)

    def _nearest(self, conn: Connection, user_id: str, vector: np.ndarray):
        def nearest(n: int) -> list[Neighbour]:
            found = self.sync.nearest(user_id, vector, n)
            for memory_id, (owner, written) in self._written.items():
                if owner == user_id:
                    found.setdefault(memory_id, float(written @ vector))
            memories = self.ledger.get_many_in(conn, list(found))
            return [Neighbour(as_said(memories[i]), sim) for i, sim in found.items() if i in memories]
        return nearest

    def _apply_candidate(self, conn: Connection, user_id: str, cand: extractlib.Candidate,
                         vector: np.ndarray, message_id: int, now: str,
                         after: tuple[Plan, int] | None = None,
                         before: tuple[extractlib.Candidate, np.ndarray] | None = None,
                         message_text: str = "") -> tuple[Plan, int]:
        """after: the plan of the message's previous fact and the memory it made; before: that fact and its vector;
        message_text: the message as the extractor read it."""
        plan = self.plan(conn, user_id, cand, vector, message_id)
        # Rule 0: a value said for a while is kept beside the standing fact, whatever the rules below pair it with.
        for_a_while = plan.reason == FOR_A_WHILE
        replaces_an_ending = False
        if (not for_a_while and plan.action == "created" and after is not None
                and takes_the_place(cand, after[0], before[0] if before is not None else None)):
            # what holds instead of what the previous clause ended replaces the ending, which keeps the chain
            plan = dataclasses.replace(plan, action="superseded", supersede_ids=[after[1]],
                           reason="what holds instead of what the message's previous fact ended")
            replaces_an_ending = True
        elif (not for_a_while and plan.action == "created" and before is not None
              and self.settings.clause_before_floor is not None):
            found, why = thing_said_before(cand, before[0], self._nearest(conn, user_id, before[1]), user_id=user_id,
                                           message_id=message_id, floor=self.settings.clause_before_floor)
            if found:
                plan = dataclasses.replace(plan, action="superseded", supersede_ids=found, reason=why)
        if plan.action == "created" and not for_a_while and self.settings.frame_updates:
            found, why = frame_kept(cand, rest_of_message(message_text, cand.clause), self._nearest(conn, user_id, vector),
                                    user_id=user_id, message_id=message_id)
            if found:
                plan = dataclasses.replace(plan, action="superseded", supersede_ids=found, reason=why)
        if plan.action == "created" and not for_a_while and self.settings.pointing_back_messages:
            def recent() -> list[Memory]:  # read only for a clause that points back with a change
                return [as_said(m) for m in self.ledger.recent_memories(conn, user_id, message_id,
                                                                        self.settings.pointing_back_messages)]
            found, why = pointed_back(cand, message_text, recent, user_id=user_id, message_id=message_id)
            if found:
                plan = dataclasses.replace(plan, action="superseded", supersede_ids=found, reason=why)
        if plan.action == "confirmed":
            return plan, plan.confirmed_id
        if self.settings.restate_updates and len(plan.supersede_ids) == 1 and not replaces_an_ending:
            # An ending ("User cancelled Prime.") is no frame for what holds instead: said in it, the new value
            # would be what ended ("User cancelled Mubi.").
            cand, vector = self._restated(conn, cand, vector, plan)
        new_id = self.ledger.next_memory_id(conn)
        # The old memory points at the new one before the new row exists; checked at commit.
        self.ledger.defer_foreign_keys(conn)
        for old_id in plan.supersede_ids:
            self.ledger.mark_superseded(conn, old_id, new_id, now)
            self.ledger.outbox(conn, "remove", user_id, old_id)
        self.ledger.insert_memory(
            conn, memory_id=new_id, user_id=user_id, text=extractlib.stored_text(cand), type=cand.type, subject=cand.subject,
            attribute=cand.attribute, value=cand.value, value_key=extractlib.value_key(cand.value),
            multi_valued=plan.multi, importance=cand.importance, message_id=message_id, embedding=vector,
            created_at=now, supersedes=plan.supersede_ids[0] if plan.supersede_ids else None,
        )
        self.ledger.outbox(conn, "add", user_id, new_id)
        self._written[new_id] = (user_id, vector)
        return plan, new_id


    def _labelled(self, cand: extractlib.Candidate, vector: np.ndarray, plan: Plan,
                  old: Memory) -> tuple[extractlib.Candidate, np.ndarray]:
        """A clause no rule understood that replaces a memory of a named slot, which gives no one new value to
        restate it with ("cancelled puregym, joined the climbing wall near work instead" against "User's gym is
        PureGym on Oxford Road."), kept in its own words under the name of what it replaced: "User's gym:
        Cancelled puregym, ...". It answers the question the old memory answered; without the name, a question
        asked as that one was ("which gym do I go to?") would meet a story about cancelling."""
        label = slot_label(old)
        if cand.understood or label is None or cand.attribute not in (extractlib.CATCH_ALL, old.attribute):
            return cand, vector
        text = f"{label}: {cand.text}"
        plan.reason += f"; said in place of #{old.id}, kept as {text!r}"
        cand = extractlib.replace(cand, text=text, subject=old.subject, attribute=old.attribute, type=old.type,
                                  rule=f"{cand.rule} (labelled)")
        plain = self.vectors.embedder.encode([extractlib.embedding_text(extractlib.stored_text(cand), None)])
        return cand, self.vectors.expand(plain, [(cand.attribute, cand.type)])[0]

    def _restated(self, conn: Connection, cand: extractlib.Candidate, vector: np.ndarray,
                  plan: Plan) -> tuple[extractlib.Candidate, np.ndarray]:
        """A change replacing a memory filed elsewhere, or understood by no rule, restated as that memory
        with the new value and filed where it was ("replaced it with GitHub Actions" against "User uses
        Jenkins for CI." is "User uses GitHub Actions for CI.")."""
        old = self.ledger.get_many_in(conn, plan.supersede_ids).get(plan.supersede_ids[0])
        if old is None:
            return cand, vector
        if plan.swapped is not None:
            # another of its kind: the old sentence with the one thing swapped, or the clause as said
            swapped = swap_thing(extractlib.said(old.text), *plan.swapped)
            if swapped is None:
                return self._labelled(cand, vector, plan, old)
            restated = (swapped, swap_thing(old.value, *plan.swapped) or plan.swapped[1], False)
        else:
            # "we meet at Jen's house now" after "User's book club meets at the library.": the old sentence with
            # the new value in its frame, when the change keeps the frame; else what the change says of the old value
            in_frame = frames.restate(extractlib.said(old.text), cand.text)
            restated = ((in_frame, in_frame.rstrip("."), False) if in_frame
                        else extractlib.restate(extractlib.said(old.text), cand.clause))
        if restated is None:
            return self._labelled(cand, vector, plan, old)
        text, value, inferred = restated
        if inferred and cand.understood and (old.subject, old.attribute) == (cand.subject, cand.attribute):
            # Understood in the old memory's own slot, the fact is already said as the fact ("User lives in
            # Bergen now."); a change said as a change ("Migrated to Render yesterday.") is restated.
            return cand, vector
        if inferred:
            # Read from the kind of value, not named by the change: the user's own sentence stays in the memory
            # beside the fact it was read as, and a question worded like either finds it.
            text = f"{text} {cand.text}"
        if old.attribute == "note":
            # A note's value is its whole clause: the bare new value ("Porto") is not the fact, and two
            # colleagues who both moved to Porto are two notes.
            value = text.rstrip(".")
        if self.ledger.slot_same_value(conn, (old.user_id, old.subject, old.attribute),
                                       extractlib.value_key(value)) is not None:
            return cand, vector  # the slot already holds the restated value: keep the change as said
        plan.reason += f"; restated from #{old.id} as {text!r}"
        cand = extractlib.replace(cand, text=text, value=value, subject=old.subject, attribute=old.attribute,
                                  type=old.type, understood=True, rule=f"{cand.rule} (restated)".strip())
        plain = self.vectors.embedder.encode([extractlib.embedding_text(extractlib.stored_text(cand), None)])
        return cand, self.vectors.expand(plain, [(cand.attribute, cand.type)])[0]


def slot_label(memory: Memory) -> str | None:
    """What a memory is the value of, as a sentence would name it ("User's editor", "The project's hosting",
    "Mia's school"); None for a note or an event, which hold sentences about anything."""
    if memory.attribute == extractlib.CATCH_ALL or memory.subject.startswith("event:"):
        return None
    owner = {"user": "User's", "project": "The project's"}.get(memory.subject)
    if owner is None:
        owner = f"{memory.subject.title()}'s" if memory.subject.replace(" ", "").isalpha() else None
    return f"{owner} {memory.attribute.replace('_', ' ')}" if owner else None


def trace_candidate(cand: extractlib.Candidate, plan: Plan, memory_id: int, memories: dict[int, Any],
                    targets: dict[int, float]) -> CandidateTrace:
    """What one candidate was, what it was weighed against and why it did what it did. `targets`:
    similarities of the memories it replaced or confirmed that the plan did not measure."""
    compared: dict[int, float] = dict(targets)
    for mid, similarity in plan.compared:  # a memory looked at by two rules keeps its best similarity
        compared[mid] = max(similarity, compared.get(mid, similarity))
    return CandidateTrace(
        clause=cand.clause, rule=cand.rule, text=cand.text, subject=cand.subject, attribute=cand.attribute,
        value=cand.value, type=cand.type, importance=cand.importance, action=plan.action, reason=plan.reason,
        memory_id=memory_id, superseded_ids=list(plan.supersede_ids),
        compared=sorted((ComparedMemory(mid, memories[mid].text, memories[mid].status, float(sim))
                         for mid, sim in compared.items() if mid in memories),
                        key=lambda c: c.similarity, reverse=True),
    )


def rest_of_message(message: str, clause: str) -> str:
    """The message without one clause of it: what else it names."""
    at = message.find(clause)
    return message if at < 0 else f"{message[:at]} {message[at + len(clause):]}"


def as_said(memory: Memory) -> Memory:
    """A stored memory as conflict resolution reads it: without the question it answers, if any."""
    text = extractlib.said(memory.text)
    return memory if text == memory.text else dataclasses.replace(memory, text=text)


def dated(message: MessageIn) -> str:
    """The message as the extractor reads it: relative dates ("tomorrow", "next month") written as
    dates when the message carries a timestamp. The ledger keeps the message as said."""
    return extractlib.resolve_relative_dates(message.text, extractlib.parse_timestamp(message.timestamp))


def own_voice(message: MessageIn) -> str | None:
    """The speaker a message's facts are about: none (the user) when the user speaks as themself,
    so "I now work at Spotify" from speaker "alice" for user "alice" updates "User works at Zalando"."""
    if message.speaker and message.speaker.strip().casefold() == message.user_id.strip().casefold():
        return None
    return message.speaker


def overall_status(plans: list[tuple[Plan, int]]) -> str:
    """One word for a message with several facts: the most consequential thing that happened."""
    actions = {p.action for p, _ in plans}
    for status in ("superseded", "created", "confirmed"):
        if status in actions:
            return status
    return "ignored"


def describe(status: str, outcomes: list[FactOutcome]) -> str:
    if status == "ignored":
        return "Nothing to remember: the message was logged but holds no durable fact (small talk, a question or a request)."
    parts = []
    for o in outcomes:
        if o.action == "superseded":
            old = ", ".join(f"#{s.id}" for s in o.superseded)
            parts.append(f"Memory #{o.memory.id} created, superseding {old}.")
        elif o.action == "created":
            parts.append(f"Memory #{o.memory.id} created.")
        else:
            parts.append(f"Memory #{o.memory.id} confirmed (already known).")
    return " ".join(parts)
