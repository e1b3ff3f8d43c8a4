"""MemEngine cockpit: the router. Run with `streamlit run app.py`.

Each page lives in pages/ and is a thin view over the engine's public API; the shared sidebar
(store, counts, user) is drawn here so every page gets it.
"""
from pathlib import Path

import streamlit as st

from cockpit import sidebar, state

# A local file: a ":material/…" page icon makes the browser fetch the favicon from a font CDN on every
# page load, which fails (console errors) on an offline machine and leaks a request off the loopback.
FAVICON = str(Path(__file__).parent / ".streamlit" / "favicon.png")
st.set_page_config(page_title="MemEngine cockpit", page_icon=FAVICON, layout="wide")

# Emoji page icons for the same reason. pages/chat.py (the Chat page) slots in after Recall.
PAGES = [
    st.Page("pages/recall.py", title="Recall", icon="🔎", url_path="recall", default=True),
    st.Page("pages/chat.py", title="Chat", icon="💬", url_path="chat"),
    st.Page("pages/ingest.py", title="Ingest", icon="📥", url_path="ingest"),
    st.Page("pages/ledger.py", title="Ledger & lineage", icon="🌳", url_path="ledger"),
    st.Page("pages/canonical.py", title="Canonical test", icon="✅", url_path="canonical"),
    st.Page("pages/benchmark.py", title="Benchmark", icon="📊", url_path="benchmark"),
]

page = st.navigation(PAGES)
target = state.pending_deep_link()  # a deep link that arrived before the router ever ran
if target:
    st.switch_page(next((p for p in PAGES if p.url_path == target), PAGES[0]))  # default page: url_path ""
boxes = sidebar.begin()
with state.routed():
    page.run()
sidebar.finish(boxes)
