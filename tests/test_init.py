"""The public surface is pinned: outside tools import exactly these names."""
import subprocess
import sys

import pytest

import engine

pytestmark = pytest.mark.unit

PUBLIC = {
    "CONFIDENCE_LEVELS", "INGEST_STATUSES", "MEMORY_TYPES", "STATUSES", "Citation", "Embedder", "EngineError",
    "FactOutcome", "Hit", "IngestResult", "Memory", "MemoryEngine", "ModelMismatchError", "NotFoundError",
    "RecallResult", "Settings", "StoreInUseError", "__version__", "load_embedder",
    "ChatClient", "Context", "ContextItem", "LLMError", "LLMResponseError", "LLMTimeoutError", "LLMUnreachableError",
    "Profile", "ProfileItem", "SessionSummary",
}
ENGINE_METHODS = {
    "ingest", "ingest_many", "recall", "rescore", "remember", "get", "list_memories", "count_memories", "messages",
    "history", "delete", "forget_user", "users", "export_jsonl", "import_jsonl", "rebuild_index", "verify_index",
    "reembed", "stats", "close", "context", "profile", "summarize_session",
}


def test_public_names():
    assert set(engine.__all__) == PUBLIC
    assert all(hasattr(engine, name) for name in PUBLIC)


def test_engine_methods():
    assert ENGINE_METHODS <= {n for n in dir(engine.MemoryEngine) if not n.startswith("_")}


def test_errors_share_one_base():
    for error in (engine.StoreInUseError, engine.ModelMismatchError, engine.NotFoundError, engine.LLMError,
                  engine.LLMUnreachableError, engine.LLMTimeoutError, engine.LLMResponseError):
        assert issubclass(error, engine.EngineError)


def test_the_library_imports_no_ui_or_web_framework_and_has_no_import_side_effects(tmp_path):
    code = (
        "import sys, os; import engine; "
        "bad = [m for m in ('streamlit', 'fastapi', 'mcp', 'uvicorn', 'torch', 'chromadb') if m in sys.modules]; "
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                         env={"PYTHONPATH": str(__import__("pathlib").Path(engine.__file__).parent.parent)})
    assert out.stdout.strip() == "[]", out.stderr
    assert list(tmp_path.iterdir()) == []  # importing created no data directory


def test_settings_read_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("MEMENGINE_THRESHOLD", "0.61")
    monkeypatch.setenv("MEMENGINE_DATA_DIR", str(tmp_path))
    s = engine.Settings()
    assert s.threshold == 0.61 and s.data_dir == tmp_path
    assert engine.Settings(threshold=0.3).threshold == 0.3


def test_none_in_the_environment_turns_an_optional_knob_off(monkeypatch):
    monkeypatch.setenv("MEMENGINE_CUED_UPDATE_FLOOR", "none")
    monkeypatch.setenv("MEMENGINE_LEXICAL_SUPPORT", "none")
    s = engine.Settings()
    assert s.cued_update_floor is None and s.lexical_support is None


def test_settings_validate():
    import pydantic
    import pytest

    with pytest.raises(pydantic.ValidationError):
        engine.Settings(alpha=1.5)
    with pytest.raises(pydantic.ValidationError):
        engine.Settings(no_such_setting=1)
