"""Helpers shared by the Streamlit cockpit pages (app.py and pages/*.py).

The cockpit is an adapter: it talks to the engine only through the public API in
``engine/__init__.py`` (see docs/api-contract.md). Modules here either touch Streamlit
(state, sidebar, ui, charts) or are plain functions the pages and tests can call
(lineage, canonical, runs, batch).
"""
