"""Export and import over records, the extractor parameter, and list order (engine with the real model)."""
from __future__ import annotations

import pytest

from engine import MemoryEngine, Settings
from engine.extraction import RuleExtractor

pytestmark = pytest.mark.integration


def test_export_records_round_trip_without_files(engine, tmp_path, embedder):
    engine.ingest("I live in Austin", user_id="a")
    engine.ingest("I moved to Denver", user_id="a")
    engine.ingest("I play guitar", user_id="b")
    records = list(engine.export_records())
    assert [r["kind"] for r in records] == ["header"] + ["message"] * 3 + ["memory"] * 3
    assert [r["kind"] for r in engine.export_records(user_id="b")] == ["header", "message", "memory"]
    with MemoryEngine(Settings(data_dir=tmp_path / "copy"), embedder=embedder) as copy:
        assert copy.import_records(records) == 3
        assert [(m.text, m.status) for m in copy.list_memories(status="all")] == \
            [(m.text, m.status) for m in engine.list_memories(status="all")]
        assert copy.verify_index()["ok"]


def test_reimporting_an_export_says_so_and_changes_nothing(engine):
    engine.ingest("I live in Austin")
    records = list(engine.export_records())
    with pytest.raises(ValueError, match="already imported"):
        engine.import_records(records)
    assert engine.count_memories(status="all") == 1 and len(engine.messages()) == 1


@pytest.mark.parametrize("kind, field, bad", [
    ("message", "source_id", {"a": 1}),
    ("message", "timestamp", [1]),
    ("message", "speaker", 5),
    ("message", "created_at", {"x": "y"}),
    ("message", "id", True),
    ("memory", "created_at", ["2024"]),
    ("memory", "replaced_by", "7"),
    ("memory", "message_id", 1.5),
    ("memory", "multi_valued", "yes"),
    ("memory", "type", ["fact"]),
])
def test_import_rejects_wrong_field_types(engine, tmp_path, embedder, kind, field, bad):
    engine.ingest("I live in Austin")
    records = list(engine.export_records())
    record = next(r for r in records if r["kind"] == kind)
    record[field] = bad
    with MemoryEngine(Settings(data_dir=tmp_path / "copy"), embedder=embedder) as copy:
        with pytest.raises(ValueError, match=field.replace("_", ".") if kind == "message" or field != "type"
                           else "type"):
            copy.import_records(records)
        assert copy.count_memories(status="all") == 0 and copy.messages() == []


def test_import_cannot_make_an_accumulating_slot_single_valued(engine, tmp_path, embedder):
    engine.ingest("I play guitar")
    records = list(engine.export_records())
    memory = next(r for r in records if r["kind"] == "memory")
    assert memory["attribute"] == "instruments" and memory["multi_valued"] is True
    memory["multi_valued"] = False
    with MemoryEngine(Settings(data_dir=tmp_path / "copy"), embedder=embedder) as copy:
        copy.import_records(records)
        copy.ingest("I also play piano")
        assert {m.value for m in copy.list_memories()} == {"guitar", "piano"}


def test_lists_are_newest_first(engine):
    engine.ingest("I live in Austin")
    engine.ingest("I play guitar")
    assert [m.value for m in engine.list_memories()] == ["guitar", "Austin"]
    assert [m["text"] for m in engine.messages()] == ["I play guitar", "I live in Austin"]


def test_the_extractor_is_a_parameter(tmp_path, embedder):
    class Counting(RuleExtractor):
        calls: list[str] = []

        def extract(self, message, *, speaker=None):
            self.calls.append(message)
            return super().extract(message, speaker=speaker)

    counting = Counting()
    with MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder, extractor=counting) as eng:
        eng.ingest("I live in Oslo")
        assert counting.calls == ["I live in Oslo"] and eng.list_memories()[0].value == "Oslo"
    with pytest.raises(ValueError, match="extractor"):
        MemoryEngine(Settings(data_dir=tmp_path / "x"), embedder=embedder, extractor=object())
