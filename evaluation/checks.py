"""The one place that decides whether a case passed: the case schema and the expectation checks.

The runner and the sweep both call `check_case`, so a threshold chosen by the sweep is judged by exactly the
rules the runner reports with. Pure functions over plain dicts: no engine import, cheap to unit-test.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

# Category id -> label used in the report table (order = table order).
CATEGORIES: dict[str, str] = {
    "direct_facts": "Direct Facts",
    "preferences": "User Preferences",
    "project_details": "Project Details",
    "updated_information": "Updated Information",
    "contradictions_corrections": "Contradictions & Corrections",
    "multiple_relevant": "Multiple Relevant Memories",
    "unknown_answers": "Unknown Answers (Negative)",
    "small_talk": "Small Talk",
    "historical_queries": "Historical Queries",
    "multi_user_isolation": "Multi-User Isolation",
    "no_false_supersede": "No False Supersede",
    "multi_fact_messages": "Multi-Fact Messages",
    "paraphrased_questions": "Paraphrased Questions",
    "repeated_statements": "Repeated Statements",
    "facts_in_requests": "Facts Inside Requests",
    "assistant_instructions": "Assistant Instructions",
    "verb_updates": "Verb-Phrased Updates",
    "quantity_updates": "Quantity Updates",
    "relative_dates": "Relative Dates",
    "multi_relevant_questions": "Multi-Relevant Questions",
    "third_party_facts": "Third-Party Facts",
    "unknown_near_misses": "Unknown: Near Misses",
    "reworded_updates": "Updates, New Wordings",
    "conversation_replies": "Replies in Conversation",
    "updates_in_passing": "Updates in Passing",
    "same_kind_updates": "Updates With No Shared Word",
    "amount_deltas": "Amounts Changed By How Much",
    "short_habits": "Habits Said Short",
    "slot_lookalikes": "Facts Near Another Slot",
    "slot_word_modifiers": "A Slot Word Naming Another Thing",
    "asked_kind_answers": "Answers of the Asked Kind, Said Plainly",
    "topic_in_another_clause": "Updates With the Thing in Another Clause",
    "kept_frame_updates": "Updates in the Old Fact's Frame",
    "subjectless_facts": "Facts Said Without \"I\"",
    "elliptical_updates": "Updates Pointing Back",
    "reframed_updates": "Updates Said in a New Frame",
    "questions_other_words": "Questions Asked in Other Words",
    "kind_questions": "Questions Asked by Kind, Answered by the Instance",
    "kind_updates": "Updates to Another Thing of the Same Kind",
    "ended_by_kind": "Habits Ended by Naming Their Kind",
    "kind_in_chat": "Questions by Kind, Answered in Chatty Words",
    "kin_other_words": "Relatives and Pets Called by Another Word",
    "thing_other_word_updates": "Updates Calling the Thing by Another Word",
    "doer_doing_updates": "Updates Naming the Doer or the Doing",
    "identity_frames": "Facts Said as the Frame of a Question",
    "second_language_updates": "Updates in Second-Language English",
    "role_handovers": "Roles Handed to Someone Else",
    "activities_by_verb": "Doings Said by Their Verb, Asked by Kind",
    "yes_no_kind_questions": "Yes/No Questions Asked by Kind",
    "replaced_fact_questions": "Questions in a Replaced Fact's Words",
    "ends_in_other_words": "Ends of a Kind Said in Other Words",
    "wishes_not_facts": "Wishes Are No Facts",
    "sibling_questions": "Questions About Another Thing of the Same Kind",
    "other_person_questions": "Questions About Someone Else, Answered Only for the User",
    "pointing_back_facts": "Facts That Point Back to the Thing Said Before",
    "things_of_the_asked_kind": "Questions Asking by a Kind of Thing",
}
# Categories written for issue 10. Their splits follow `hash_splits` (the older ones keep the group rule
# described in evaluation/README.md); both were applied once, before any result was seen.
HASH_SPLIT_CATEGORIES = ("facts_in_requests", "assistant_instructions", "verb_updates", "quantity_updates",
                         "relative_dates", "multi_relevant_questions", "third_party_facts", "unknown_near_misses",
                         "reworded_updates", "conversation_replies", "updates_in_passing",
                         "same_kind_updates", "amount_deltas", "short_habits",
                         "slot_lookalikes", "slot_word_modifiers", "asked_kind_answers",
                         "topic_in_another_clause", "kept_frame_updates", "subjectless_facts",
                         "elliptical_updates", "reframed_updates", "questions_other_words", "kind_questions",
                         "kind_updates", "ended_by_kind", "kind_in_chat", "kin_other_words",
                         "thing_other_word_updates", "doer_doing_updates", "identity_frames",
                         "second_language_updates", "role_handovers",
                         "activities_by_verb", "yes_no_kind_questions", "replaced_fact_questions",
                         "ends_in_other_words", "wishes_not_facts", "sibling_questions",
                         "other_person_questions", "pointing_back_facts", "things_of_the_asked_kind")
# Categories whose every case expects nothing served.
UNKNOWN_CATEGORIES = ("unknown_answers", "unknown_near_misses")
SPLITS = ("dev", "test")
STATUSES = ("created", "superseded", "confirmed", "ignored")
EXPECTATION_KEYS = ("top1_contains", "top1_contains_any", "within_top_k", "forbidden", "expect_empty", "expected_statuses", "active_count")
CASE_KEYS = {"id", "category", "split", "messages", "query", "query_user_id", "include_history", *EXPECTATION_KEYS}
# Categories whose facts are meant to coexist: any supersede there is a false one.
MULTI_VALUE_CATEGORIES = ("no_false_supersede", "multiple_relevant", "multi_fact_messages", "slot_lookalikes",
                          "slot_word_modifiers")
# Categories whose point is that an outdated value disappears from recall.
SUPERSEDE_CATEGORIES = ("updated_information", "contradictions_corrections", "verb_updates", "quantity_updates",
                        "reworded_updates")
DEFAULT_USER = "default"
TOP_K = 5


MESSAGE_KEYS = {"text", "user_id", "speaker", "timestamp"}


def hash_splits(case_ids: list[str]) -> dict[str, str]:
    """Split of each case of ONE category: order the ids by sha256(id); rank 0, 2, 4, ... -> test, odd -> dev.

    Stratified (each category is split on its own), about half in test (test gets the odd one out), and it depends
    on nothing but the ids, so anyone can recompute it and a test checks the stored splits against it.
    """
    if len(set(case_ids)) != len(case_ids):
        raise ValueError("case ids must be unique")
    ranked = sorted(case_ids, key=lambda cid: hashlib.sha256(cid.encode("utf-8")).hexdigest())
    return {cid: ("test" if rank % 2 == 0 else "dev") for rank, cid in enumerate(ranked)}


def message_parts(message: str | dict[str, Any]) -> tuple[str, str]:
    """(text, user_id) of a case message, which is a plain string or {"text", "user_id", "speaker", "timestamp"}."""
    if isinstance(message, str):
        return message, DEFAULT_USER
    return message["text"], message.get("user_id") or DEFAULT_USER


def message_fields(message: str | dict[str, Any]) -> dict[str, Any]:
    """Everything ingest is given for a case message: text, user_id, speaker and timestamp (None when absent)."""
    text, user = message_parts(message)
    extra = message if isinstance(message, dict) else {}
    return {"text": text, "user_id": user, "speaker": extra.get("speaker"), "timestamp": extra.get("timestamp")}


def _valid_timestamp(value: Any) -> bool:
    """An ISO 8601 date-time such as '2026-03-09T10:15:00' (a relative date is resolved against it)."""
    if not isinstance(value, str):
        return False
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return "T" in value


def query_user(case: dict[str, Any]) -> str:
    return case.get("query_user_id") or DEFAULT_USER


def validate_case(case: Any) -> list[str]:
    """Schema problems of one case (empty list = valid). Catches typos in hand-written JSON early."""
    if not isinstance(case, dict):
        return ["case is not an object"]
    cid = case.get("id", "?")
    errs: list[str] = []
    unknown = set(case) - CASE_KEYS
    if unknown:
        errs.append(f"{cid}: unknown keys {sorted(unknown)}")
    if not isinstance(case.get("id"), str) or not case.get("id"):
        errs.append(f"{cid}: id must be a non-empty string")
    if case.get("category") not in CATEGORIES:
        errs.append(f"{cid}: unknown category {case.get('category')!r}")
    if case.get("split") not in SPLITS:
        errs.append(f"{cid}: split must be one of {SPLITS}")
    if not isinstance(case.get("query"), str) or not case["query"].strip():
        errs.append(f"{cid}: query must be a non-empty string")
    msgs = case.get("messages")
    if not isinstance(msgs, list) or not msgs:
        errs.append(f"{cid}: messages must be a non-empty list")
        msgs = []
    for i, m in enumerate(msgs):
        ok = (isinstance(m, str) and m.strip()) or (
            isinstance(m, dict) and isinstance(m.get("text"), str) and m["text"].strip()
            and set(m) <= MESSAGE_KEYS and isinstance(m.get("user_id", ""), str)
            and (m.get("speaker") is None or (isinstance(m["speaker"], str) and m["speaker"].strip())))
        if not ok:
            errs.append(f"{cid}: message {i + 1} must be a string or {{text, user_id, speaker, timestamp}}")
        elif isinstance(m, dict) and "timestamp" in m and not _valid_timestamp(m["timestamp"]):
            errs.append(f"{cid}: message {i + 1} timestamp must be an ISO date-time like 2026-03-09T10:15:00")
    if not any(k in case for k in EXPECTATION_KEYS):
        errs.append(f"{cid}: no expectation given")
    if "top1_contains" in case and not (isinstance(case["top1_contains"], str) and case["top1_contains"]):
        errs.append(f"{cid}: top1_contains must be a non-empty string")
    for key in ("within_top_k", "forbidden", "top1_contains_any"):
        if key in case and not (isinstance(case[key], list) and case[key]
                                and all(isinstance(s, str) and s for s in case[key])):
            errs.append(f"{cid}: {key} must be a non-empty list of strings")
    if "expect_empty" in case:
        if case["expect_empty"] is not True:
            errs.append(f"{cid}: expect_empty must be true when present")
        if "top1_contains" in case or "top1_contains_any" in case or "within_top_k" in case:
            errs.append(f"{cid}: expect_empty contradicts top1_contains/top1_contains_any/within_top_k")
    if "top1_contains" in case and "top1_contains_any" in case:
        errs.append(f"{cid}: give top1_contains or top1_contains_any, not both")
    if "expected_statuses" in case:
        st = case["expected_statuses"]
        if not (isinstance(st, list) and len(st) == len(msgs) and all(s in STATUSES for s in st)):
            errs.append(f"{cid}: expected_statuses must list one of {STATUSES} per message")
    if "active_count" in case and not (isinstance(case["active_count"], int) and case["active_count"] >= 0):
        errs.append(f"{cid}: active_count must be an integer >= 0")
    if "include_history" in case and not isinstance(case["include_history"], bool):
        errs.append(f"{cid}: include_history must be a boolean")
    return errs


@dataclass
class CheckResult:
    """Verdict on one case plus the pieces the aggregate metrics are built from.

    Fields that do not apply to a case are None, so aggregates only count the cases they are about.
    """

    failures: list[str] = field(default_factory=list)
    expected_found: int = 0          # expected strings (top1_contains + within_top_k) seen in the top 5
    expected_total: int = 0
    top1_ok: bool | None = None      # case has top1_contains
    rejected: bool | None = None     # case has expect_empty: returned nothing
    integrity_ok: bool | None = None  # supersede case: no outdated (forbidden) value returned
    false_supersede: bool | None = None  # multi-value case: something was superseded that should not be

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def recall_at_5(self) -> float | None:
        return self.expected_found / self.expected_total if self.expected_total else None


def _short(text: str, n: int = 70) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _contains(text: str, needle: str) -> bool:
    return needle.casefold() in text.casefold()


def _contains_form(text: str, form: str) -> bool:
    """`form` occurs in `text` not glued to a longer word or number: "March 1" must not match "March 13",
    "5 Sep" not "15 Sep"; a following letter is fine ("March 13th")."""
    return re.search(r"(?<![0-9a-z])" + re.escape(form.casefold()) + r"(?![0-9])", text.casefold()) is not None


def check_case(case: dict[str, Any], hits: list[dict[str, Any]], statuses: list[str] | None = None,
               active_count: int | None = None, top_k: int = TOP_K) -> CheckResult:
    """Judge one case.

    hits: ranked recall hits as dicts with at least "text" (optionally "score").
    statuses: the ingest status per message, or None when not measured (then status checks are skipped).
    active_count: active memories of the query user after ingest, or None when not measured.
    Returns every reason the case failed, in plain words, so a report reader needs no debugger.
    """
    res = CheckResult()
    texts = [str(h.get("text", "")) for h in hits]

    def describe(i: int) -> str:
        score = hits[i].get("score")
        s = f" (score {score:.3f})" if isinstance(score, (int, float)) else ""
        return f"#{i + 1} {_short(texts[i])!r}{s}"

    want = case.get("top1_contains")
    if want is not None:
        res.top1_ok = bool(texts) and _contains(texts[0], want)
        if not texts:
            res.failures.append(f"no hits returned; expected top-1 to contain {want!r}")
        elif not res.top1_ok:
            res.failures.append(f"top-1 hit {describe(0)} does not contain {want!r}")

    # Several written forms of one answer (e.g. a date: "March 13", "13 March", "2026-03-13"): any one will do.
    forms = case.get("top1_contains_any")
    if forms is not None:
        res.top1_ok = bool(texts) and any(_contains_form(texts[0], f) for f in forms)
        if not texts:
            res.failures.append(f"no hits returned; expected top-1 to contain one of {forms!r}")
        elif not res.top1_ok:
            res.failures.append(f"top-1 hit {describe(0)} contains none of {forms!r}")
        res.expected_total += 1
        res.expected_found += any(_contains_form(t, f) for t in texts[:top_k] for f in forms)

    expected = ([want] if want is not None else []) + list(case.get("within_top_k", []))
    top = texts[:top_k]
    for needle in expected:
        found = any(_contains(t, needle) for t in top)
        res.expected_total += 1
        res.expected_found += found
        if not found and needle in case.get("within_top_k", []):
            res.failures.append(f"{needle!r} not in any of the top {top_k} hits ({len(top)} returned)")

    bad_forbidden = False
    for needle in case.get("forbidden", []):
        for i, t in enumerate(texts):
            if _contains(t, needle):
                bad_forbidden = True
                res.failures.append(f"forbidden {needle!r} returned in hit {describe(i)}")
                break

    if case.get("expect_empty"):
        res.rejected = not hits
        if hits:
            res.failures.append(f"expected no hits (unanswerable), got {len(hits)}, best {describe(0)}")

    want_st = case.get("expected_statuses")
    if want_st is not None and statuses is not None:
        if len(statuses) != len(want_st):
            res.failures.append(f"got {len(statuses)} ingest statuses for {len(want_st)} messages")
        for i, (w, g) in enumerate(zip(want_st, statuses)):
            if w != g:
                res.failures.append(f"message {i + 1} ingest status {g!r}, expected {w!r}")

    want_n = case.get("active_count")
    if want_n is not None and active_count is not None and active_count != want_n:
        res.failures.append(f"{active_count} active memories for user {query_user(case)!r}, expected {want_n}")

    if case.get("forbidden") and not case.get("include_history") and (
            case.get("category") in SUPERSEDE_CATEGORIES or "superseded" in (want_st or [])):
        res.integrity_ok = not bad_forbidden

    if case.get("category") in MULTI_VALUE_CATEGORIES and statuses is not None:
        allowed = want_st or [""] * len(statuses)
        wrong = any(g == "superseded" and w != "superseded" for g, w in zip(statuses, allowed))
        if want_n is not None and active_count is not None and active_count < want_n:
            wrong = True
        res.false_supersede = wrong
    return res
