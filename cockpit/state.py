"""Process-wide resources (embedder, engines) and per-session choices (user).

* The embedding model is loaded once per process (``st.cache_resource``) and shared by the
  store's engine and every temporary engine (canonical test, benchmark).
* One ``MemoryEngine`` per store, cached by its resolved data directory: reruns and every
  browser session reuse it, and two stores (e.g. two tests) never share one.
* The chosen user lives in ``st.session_state["user"]``; every page reads it from here.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, Callable, TypeVar

import streamlit as st

from cockpit.jobs import JobRegistry
from engine import EngineError, MemoryEngine, ModelMismatchError, Settings, StoreInUseError, load_embedder

T = TypeVar("T")

DEFAULT_USER = "default"
USER_KEY = "user"
CASES_ENV = "MEMENGINE_CASES"
CASES_KEY = "cases_path"


# --------------------------------------------------------------------------- settings
def settings() -> Settings:
    """Settings from the environment (MEMENGINE_*); a bad value stops the page with a clear error."""
    try:
        return Settings()
    except Exception as exc:  # pydantic ValidationError: show it, never a traceback
        st.error(f"Invalid MEMENGINE_* setting: {exc}", icon=":material/error:")
        st.stop()
        raise  # unreachable; keeps type checkers happy


def data_dir() -> str:
    """The store's directory, resolved, so that one store maps to one cache entry."""
    return str(Path(settings().data_dir).expanduser().resolve())


# --------------------------------------------------------------------------- resources
@st.cache_resource(show_spinner="Loading the embedding model…")
def _embedder(model_name: str) -> Any:
    return load_embedder(Settings(model_name=model_name))


def embedder() -> Any:
    """The sentence-transformers model, loaded once per process and shared."""
    return _embedder(settings().model_name)


def _close_engine(eng: MemoryEngine) -> None:
    try:
        eng.close()
    except Exception:  # closing must never break a cache clear
        pass


@st.cache_resource(show_spinner="Opening the memory store…", on_release=_close_engine)
def _engine(data_dir: str, model_name: str) -> MemoryEngine:
    return MemoryEngine(Settings(data_dir=Path(data_dir), model_name=model_name), embedder=_embedder(model_name))


def engine() -> MemoryEngine:
    """The engine of the store at MEMENGINE_DATA_DIR (one per store and process)."""
    cfg = settings()
    where = data_dir()
    try:
        return _engine(where, cfg.model_name)
    except StoreInUseError as exc:
        st.error(
            f"The store at `{where}` is open in another process ({exc}). Stop that process "
            "(CLI, REST server, another cockpit) or point MEMENGINE_DATA_DIR at another directory.",
            icon=":material/lock:",
        )
    except ModelMismatchError as exc:
        st.error(f"The store at `{where}` was built with another embedding model: {exc}", icon=":material/error:")
    except (EngineError, OSError, ValueError) as exc:
        st.error(f"Could not open the store at `{where}`: {exc}", icon=":material/error:")
    st.stop()
    raise RuntimeError("unreachable")


@st.cache_resource(show_spinner=False)
def _jobs(data_dir: str) -> JobRegistry:
    return JobRegistry()


def jobs() -> JobRegistry:
    """The background jobs of this store (benchmark and LoCoMo runs): shared by every session and rerun, so a
    run keeps going, and is shown again, after its page is left."""
    return _jobs(data_dir())


def release_engines() -> None:
    """Close every cached engine (tests; the cache clear calls ``close()`` on each)."""
    _engine.clear()


# --------------------------------------------------------------------------- routing
_run = threading.local()  # one script run = one thread; app.py marks the runs it routes
DEEP_LINK_KEY = "_deep_link"


class routed:
    """Context manager app.py wraps ``page.run()`` in, so pages know the router ran around them."""

    def __enter__(self) -> None:
        _run.routed = True

    def __exit__(self, *exc: object) -> None:
        _run.routed = False


def require_router(url_path: str) -> None:
    """Send a page that runs without app.py back through the router.

    Streamlit runs a ``pages/`` file on its own (legacy multipage mode, no sidebar) when a deep link
    such as /ingest is the first request a fresh server sees, before any run of app.py has called
    st.navigation. Remember where the visitor wanted to go and restart from app.py, which forwards.
    """
    if getattr(_run, "routed", False):
        return
    st.session_state[DEEP_LINK_KEY] = url_path
    st.switch_page("app.py")


def pending_deep_link() -> str | None:
    return st.session_state.pop(DEEP_LINK_KEY, None)


# --------------------------------------------------------------------------- session choices
def current_user() -> str:
    """The user every page works on (chosen in the sidebar)."""
    return st.session_state.setdefault(USER_KEY, DEFAULT_USER)


def set_user(user_id: str) -> None:
    st.session_state[USER_KEY] = user_id


def cases_path() -> str | None:
    """Benchmark cases file: session override, then $MEMENGINE_CASES, else the suite's default."""
    return st.session_state.get(CASES_KEY) or os.environ.get(CASES_ENV) or None


# --------------------------------------------------------------------------- engine calls
def call(fn: Callable[..., T], *args: Any, what: str, **kwargs: Any) -> T | None:
    """Run one engine call; bad input or an engine refusal becomes an ``st.error``, not a traceback."""
    try:
        return fn(*args, **kwargs)
    except (ValueError, EngineError) as exc:
        st.error(f"{what} failed: {exc}", icon=":material/error:")
        return None
