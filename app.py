"""MemEngine cockpit: the router. Run with `streamlit run app.py`.

Each page lives in pages/ and is a thin view over the engine's public API; the shared sidebar
(store, counts, user) is drawn here so every page gets it.
"""
import streamlit as st

from cockpit import sidebar, state

st.set_page_config(page_title="MemEngine cockpit", page_icon=":material/memory:", layout="wide")

PAGES = [
    st.Page("pages/recall.py", title="Recall", icon=":material/search:", url_path="recall", default=True),
    st.Page("pages/chat.py", title="Chat", icon=":material/forum:", url_path="chat"),
    st.Page("pages/ingest.py", title="Ingest", icon=":material/input:", url_path="ingest"),
    st.Page("pages/ledger.py", title="Ledger & lineage", icon=":material/account_tree:", url_path="ledger"),
    st.Page("pages/canonical.py", title="Canonical test", icon=":material/fact_check:", url_path="canonical"),
    st.Page("pages/benchmark.py", title="Benchmark", icon=":material/monitoring:", url_path="benchmark"),
]

page = st.navigation(PAGES)
target = state.pending_deep_link()  # a deep link that arrived before the router ever ran
if target:
    st.switch_page(next((p for p in PAGES if p.url_path == target), PAGES[0]))  # default page: url_path ""
boxes = sidebar.begin()
with state.routed():
    page.run()
sidebar.finish(boxes)
