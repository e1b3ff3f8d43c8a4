"""Benchmark: run the evaluation suite, inspect cases, compare saved runs, sweep the threshold."""
from functools import partial
from pathlib import Path

import pandas as pd
import streamlit as st

from cockpit import charts, jobs as jobkit, locomo_view, replay, runs, state, ui
from engine import EngineError
from evaluation.checks import EXPECTATION_KEYS
from evaluation.runner import RunCancelled, load_cases, run_cases
from evaluation.sweep import sweep

state.require_router("benchmark")

SPLITS = ["dev", "test", "all"]
BENCH, LOCOMO = "bench", "locomo"  # job kinds
INPUT_KEYS = ("messages", "query_user_id", "include_history")

cfg = state.settings()
store = state.data_dir()
cases_path = state.cases_path()
jobs = state.jobs()

ui.header("Benchmark", ":material/monitoring:",
          "The evaluation suite, each case on its own throwaway store with the shared model. "
          f"Runs are saved under `{runs.runs_dir(store)}`.")


def pct(x) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def ms(x) -> str:
    return "n/a" if x is None else f"{x:.1f} ms"


def expectation(value) -> str:
    if isinstance(value, list):
        return ", ".join(ui.quote(v) if isinstance(v, str) else ui.esc(v) for v in value) or "[]"
    return ui.quote(value) if isinstance(value, str) else ui.esc(value)


def with_inputs(report: dict, cases: list[dict]) -> dict:
    """Keep each case's messages and expectations next to its result, so a saved run explains itself."""
    by_id = {c["id"]: c for c in cases}
    for r in report.get("cases", []):
        case = by_id.get(r["id"], {})
        for k in INPUT_KEYS:
            r.setdefault(k, case.get(k))
        r.setdefault("expect", {k: case[k] for k in EXPECTATION_KEYS if k in case})
    return report


def _replay(case: dict) -> None:
    """Callback: ingest the case for a fresh replay user, then Recall runs its query as that user."""
    prefix = replay.replay_prefix(case["id"])
    try:
        user = replay.replay(state.engine(), case, prefix)
    except (ValueError, EngineError) as exc:
        st.session_state["bench_replay_error"] = f"Replay failed: {exc}"
        return
    state.set_user(user)
    st.session_state["recall_query"] = case["query"]
    st.session_state["recall_history"] = {None: "auto", False: "never", True: "always"}[case.get("include_history")]
    st.session_state["bench_replay_to"] = user


def load_saved(path: str) -> dict:
    """A saved run or sweep; an unreadable file is reported and shown as empty."""
    try:
        return runs.load(path)
    except ValueError as exc:
        st.error(f"Saved file unreadable: {exc}", icon=":material/error:")
        return {}


def load_for(split: str) -> list[dict] | None:
    try:
        cases = load_cases(cases_path, split=split)
    except (ValueError, OSError) as exc:
        st.error(f"Could not load the cases: {exc}", icon=":material/error:")
        return None
    if not cases:
        st.error(f"No cases in split `{split}`.", icon=":material/error:")
        return None
    return cases



# ---------------------------------------------------------------- background jobs
# The work below runs in a job thread: it must not touch st.* (no script run there); it reports through the job.
def bench_work(job: jobkit.Job, *, cases: list[dict], embedder, overrides: dict, split: str, store: str) -> str:
    job.update(0, len(cases), f"{len(cases)} cases")

    def tick(done: int, total: int, result: dict) -> None:
        job.update(done, total, f"{result['id']} {'ok' if result['passed'] else 'FAIL'}")

    try:
        report = run_cases(cases, embedder=embedder, settings_overrides=overrides, progress=tick,
                           should_stop=lambda: job.cancelled)
    except RunCancelled:
        raise jobkit.JobCancelled() from None
    return str(runs.save(with_inputs(report, cases), store, "run", f"{split}-{runs.settings_tag(overrides)}"))


def job_panel(kind: str, noun: str, view_key: str, follow_keys: tuple[str, ...] = ()) -> None:
    """The kind's running job (progress, ETA, cancel; polled every second), or how its last job ended.

    When a job has saved a result, ``view_key`` selects it and the widgets in ``follow_keys`` are reset
    to their defaults, so a comparison shows the new run beside the one before it, not a stale pair."""
    job = jobs.current(kind)
    if job is None:
        return
    if job.running:
        @st.fragment(run_every=1.0)
        def progress() -> None:
            live = jobs.current(kind)
            if live is None or not live.running:
                st.rerun(scope="app")  # the job ended: redraw the page with its result
            with st.container(border=True):
                p1, p2 = st.columns([5, 1], vertical_alignment="center")
                p1.progress(live.fraction, text=f"{noun} running in the background ({live.label}): "
                                                f"{live.done} / {live.total or '?'} · {live.text} · "
                                                + ("cancelling after the current step…" if live.cancelled
                                                   else jobkit.format_eta(live.eta())))
                p2.button("Cancel", key=f"{kind}_cancel", icon=":material/cancel:", on_click=jobs.cancel,
                          args=(kind,), disabled=live.cancelled, width="stretch",
                          help="Stop after the current step; nothing is saved")
                st.caption("It keeps running if you leave this page; come back to see it here.")

        progress()
        return
    if job.status == jobkit.FAILED:
        st.error(f"The last {noun.lower()} run ({job.label}) failed: {job.error}", icon=":material/error:")
    if job.seen:
        return
    job.seen = True  # toast and select the result once, not on every rerun
    if job.status == jobkit.DONE:
        st.session_state[view_key] = job.result
        for key in follow_keys:
            st.session_state.pop(key, None)
        st.toast(f"{noun} done in {job.elapsed():.0f} s: {Path(job.result).name}", icon=":material/save:")
    elif job.status == jobkit.CANCELLED:
        st.toast(f"{noun} run cancelled after {job.done} of {job.total}; nothing saved.", icon=":material/cancel:")


# A replay callback ran: open Recall (switching pages is not allowed inside a callback).
if st.session_state.pop("bench_replay_to", None):
    st.switch_page("pages/recall.py")
if st.session_state.get("bench_replay_error"):
    st.error(st.session_state.pop("bench_replay_error"), icon=":material/error:")

# ---------------------------------------------------------------- run
# (session key, Settings field, label, min, max, step): the knobs a run can override, no restart needed
# Short labels so five fit in a row at 1024 px; the Settings field name is the input's help.
RUN_KNOBS = (
    ("bench_set_threshold", "threshold", "Threshold", 0.0, 1.0, 0.01),
    ("bench_set_alpha", "alpha", "Alpha", 0.0, 1.0, 0.01),
    ("bench_set_importance", "importance_weight", "Importance", 0.0, 1.0, 0.01),
    ("bench_set_margin", "companion_margin", "Margin", 0.0, 0.5, 0.01),
    ("bench_set_top_k", "top_k", "Top-k", 1, 100, 1),
)
carried = st.session_state.pop("bench_overrides", None)  # set by the Recall page's "Benchmark these settings"
for key, field_name, *_ in RUN_KNOBS:
    default = getattr(cfg, field_name)
    if carried and carried.get(field_name) is not None:
        st.session_state[key] = type(default)(carried[field_name])
    else:
        st.session_state.setdefault(key, default)
if carried:
    st.session_state["bench_carried"] = True
    st.toast("Settings carried over from Recall", icon=":material/science:")


def _engine_defaults() -> None:
    for key, field_name, *_ in RUN_KNOBS:
        st.session_state[key] = getattr(cfg, field_name)
    st.session_state["bench_carried"] = False


with st.container(border=True):
    c1, c2 = st.columns([1, 1.6], vertical_alignment="bottom")
    split = c1.segmented_control("Split", SPLITS, key="bench_split", default="dev", persist_state="session") or "dev"
    c2.caption(f"Cases: `{cases_path or 'evaluation/cases/'}`"
               + (" · settings carried over from **Recall**" if st.session_state.get("bench_carried") else ""))
    cols = st.columns(len(RUN_KNOBS), vertical_alignment="bottom")
    overrides = {}
    for col, (key, field_name, label, lo, hi, step) in zip(cols, RUN_KNOBS):
        overrides[field_name] = col.number_input(label, min_value=lo, max_value=hi, step=step, key=key,
                                                 format="%d" if isinstance(step, int) else "%.2f",
                                                 help=f"Settings.{field_name} (MEMENGINE_{field_name.upper()})")
    actions = st.container(horizontal=True)
    go = actions.button("Run benchmark", key="bench_run", type="primary", icon=":material/play_arrow:",
                        width="content")
    actions.button("Engine defaults", key="bench_defaults", icon=":material/restart_alt:", on_click=_engine_defaults,
                   width="content", help="Back to the engine's settings (MEMENGINE_* or built-in defaults)")

if go:
    cases = load_for(split)
    if cases:
        try:
            jobs.start(BENCH, f"{split}, {len(cases)} cases",
                       partial(bench_work, cases=cases, embedder=state.embedder(), overrides=dict(overrides),
                               split=split, store=store))
        except ValueError as exc:  # one run of a kind at a time
            st.warning(f"Not started: {exc}.", icon=":material/hourglass_top:")

job_panel(BENCH, "Benchmark", "bench_view", follow_keys=("cmp_a", "cmp_b"))

saved_runs = [str(p) for p in runs.list_runs(store, "run")]
if not saved_runs:
    st.info("No saved runs yet: pick a split and press **Run benchmark**.", icon=":material/play_circle:")
else:
    if st.session_state.get("bench_view") not in saved_runs:
        st.session_state["bench_view"] = saved_runs[0]
    view = st.selectbox("Run", saved_runs, key="bench_view", format_func=runs.label)
    report = load_saved(view)
    meta, m = report.get("meta", {}), report.get("metrics", {})
    s = meta.get("settings", {})
    st.caption(
        f"{meta.get('n_cases', len(report.get('cases', [])))} cases · split {meta.get('split', '?')} · "
        + " · ".join(f"{k} {v}" for k, v in runs.run_settings(report).items())
        + f" · {meta.get('duration_s', '?')} s"
    )

    # ------------------------------------------------------------ KPI cards
    kpis = [
        ("Accuracy", pct(runs.metric(m, "accuracy")), "cases meeting every expectation"),
        ("Recall@5", pct(runs.metric(m, "recall_at_5")), "expected facts in the top 5"),
        ("Top-1", pct(runs.metric(m, "top1")), "expected memory ranked first"),
        ("Unknown rejection", pct(runs.metric(m, "unknown_rejection")), "unanswerable queries returning []"),
        ("Cases passed", f"{m.get('passed', '?')} / {m.get('total', '?')}", "in this run"),
        ("Supersede integrity", pct(runs.metric(m, "supersede_integrity")), "no outdated value returned"),
        ("Mean recall latency", ms(runs.metric(m, "mean_latency_ms")), "per recall call"),
        ("p95 recall latency", ms(runs.metric(m, "p95_latency_ms")), "95th percentile"),
    ]
    for row in (kpis[:4], kpis[4:]):
        for col, (label, value, help_) in zip(st.columns(4), row):
            col.metric(label, value, help=help_, border=True)

    # ------------------------------------------------------------ per category
    st.subheader(":material/category: Per category", anchor=False)
    cats = pd.DataFrame(report.get("categories", []))
    if not cats.empty:
        cats = cats.assign(category=cats.get("label", cats["category"]))
        t_col, c_col = st.columns([1.6, 1])
        t_col.dataframe(
            cats[["category", "passed", "total", "accuracy", "recall_at_5", "top1"]],
            hide_index=True,
            column_config={
                "category": st.column_config.TextColumn("category", width=190),
                "passed": st.column_config.NumberColumn("passed", width=60),
                "total": st.column_config.NumberColumn("total", width=50),
                "accuracy": st.column_config.ProgressColumn("accuracy", min_value=0, max_value=1, format="percent",
                                                            width=110),
                "recall_at_5": st.column_config.NumberColumn("recall@5", format="percent", width=75),
                "top1": st.column_config.NumberColumn("top-1", format="percent", width=65),
            },
        )
        c_col.altair_chart(charts.category_accuracy(cats[["category", "accuracy", "passed", "total"]]),
                           width="stretch")

    # ------------------------------------------------------------ case inspector
    st.subheader(":material/search_insights: Case inspector", anchor=False)
    results = report.get("cases", [])
    i1, i2 = st.columns([3, 1], vertical_alignment="bottom")
    only_failed = i2.toggle("Failures only", key="bench_only_failed")
    pool = [r for r in results if not r["passed"]] if only_failed else results
    if not pool:
        if results:
            st.success("No failed cases in this run.", icon=":material/verified:")
        else:
            st.caption("No case results in this run.")
    else:
        by_id = {r["id"]: r for r in pool}
        cid = i1.selectbox(
            "Case",
            list(by_id),
            key="bench_case",
            format_func=lambda i: f"{'PASS' if by_id[i]['passed'] else 'FAIL'} · {i} · {by_id[i]['category']} · "
                                  f"{by_id[i]['query']}",
        )
        case = by_id[cid]
        with st.container(border=True):
            st.markdown(f"{ui.pass_badge(case['passed'])} **{cid}** :gray-badge[{case['category']}] "
                        f":gray-badge[{case.get('split', '?')}]")
            left, right = st.columns(2)
            with left:
                st.markdown("**Messages**")
                msgs = case.get("messages") or []
                statuses = case.get("statuses") or []
                lines = []
                for n, msg in enumerate(msgs):
                    text = msg if isinstance(msg, str) else msg.get("text", "")
                    who = "" if isinstance(msg, str) or not msg.get("user_id") else f" `{msg['user_id']}`"
                    got = ui.outcome_badge(statuses[n]) if n < len(statuses) else ""
                    lines.append(f"{n + 1}. {ui.quote(text)}{who} {got}")
                st.markdown("\n".join(lines) if lines else "_not stored in this run_")
                st.markdown(f"**Query** {ui.quote(case['query'])}"
                            + (f" as `{case['query_user_id']}`" if case.get("query_user_id") else "")
                            + (" (with history)" if case.get("include_history") else ""))
            with right:
                st.markdown("**Expected**")
                expect = case.get("expect") or {}
                if case.get("expected_statuses") and "expected_statuses" not in expect:
                    expect["expected_statuses"] = case["expected_statuses"]
                st.markdown("\n".join(f"- `{k}`: {expectation(v)}" for k, v in expect.items()) or "_not stored_")
                st.markdown("**Why**")
                if case["failures"]:
                    for f in case["failures"]:
                        st.error(f, icon=":material/close:")
                else:
                    st.success("Every expectation met.", icon=":material/check:")
            st.markdown("**Got**" + ("" if case["hits"] else " `[]` (nothing cleared the threshold)"))
            if case["hits"]:
                st.dataframe(
                    pd.DataFrame(case["hits"])[
                        [c for c in ("text", "score", "semantic", "lexical", "importance", "historical", "status")
                         if c in case["hits"][0]]
                    ],
                    hide_index=True,
                )
            below = case.get("below_threshold") or []
            if below:
                st.markdown(f"**Candidates below the cut-off** ({len(below)}): the score parts of what was not served")
                st.dataframe(pd.DataFrame(below).rename(columns={"text": "candidate"})[
                    [c for c in ("candidate", "score", "semantic", "lexical", "importance", "historical", "status")
                     if c == "candidate" or c in below[0]]], hide_index=True)
            elif "below_threshold" not in case:
                st.caption("This run did not record the candidates below the cut-off (saved by an older version).")
            st.caption(f"recall latency {ms(case.get('latency_ms'))}")
            if case.get("messages"):
                r1, r2 = st.columns([1, 3], vertical_alignment="center")
                r1.button("Replay in Recall", key="bench_replay", icon=":material/replay:", on_click=_replay,
                          args=(case,), width="stretch")
                r2.caption(f"Adds this case's {len(case['messages'])} message(s) to this store under a new user "
                           "`replay-…` and opens Recall with its query; no existing user is touched.")

    # ------------------------------------------------------------ compare runs
    st.subheader(":material/compare_arrows: Compare runs", anchor=False)
    if len(saved_runs) < 2:
        st.caption("Save at least two runs to compare them.")
    else:
        a_col, b_col = st.columns(2)
        a = a_col.selectbox("Run A (before)", saved_runs, index=1, key="cmp_a", format_func=runs.label)
        b = b_col.selectbox("Run B (after)", saved_runs, index=0, key="cmp_b", format_func=runs.label)
        if a == b:
            st.caption("Pick two different runs.")
        else:
            diff = runs.compare(load_saved(a), load_saved(b))

            def fmt(key, v):
                if v is None:
                    return "n/a"
                return f"{100 * v:.1f}%" if key in runs.RATE_METRICS else f"{v:.2f}"

            set_col, met_col = st.columns([1, 1.4])
            set_col.markdown("**Settings**")
            # st.table (plain HTML, no scrolling grid): eight short rows, all readable at once
            set_col.table(pd.DataFrame(
                [{**r, "changed": "≠ changed" if r["changed"] else ""} for r in runs.settings_diff(load_saved(a),
                                                                                              load_saved(b))]
            ).set_index("setting"))
            met_col.markdown("**Metrics**")
            met_col.dataframe(
                pd.DataFrame(
                    [
                        {
                            "metric": d["metric"],
                            "A": fmt(d["key"], d["a"]),
                            "B": fmt(d["key"], d["b"]),
                            "delta": "" if d["delta"] is None else (
                                f"{100 * d['delta']:+.1f} pt" if d["key"] in runs.RATE_METRICS
                                else f"{d['delta']:+.2f}"),
                            "verdict": {True: "better", False: "worse", None: "same"}[d["better"]],
                        }
                        for d in diff["deltas"]
                    ]
                ),
                hide_index=True,
            )
            if diff["flipped"]:
                st.markdown(f"**{len(diff['flipped'])} cases changed outcome** "
                            f"({diff['common']} cases in both runs)")
                st.dataframe(pd.DataFrame(diff["flipped"]), hide_index=True)
            else:
                st.markdown(f"No case changed outcome ({diff['common']} cases in both runs).")

# ---------------------------------------------------------------- threshold sweep
st.subheader(":material/tune: Threshold sweep", anchor=False)
w1, w2 = st.columns([3, 1], vertical_alignment="bottom")
w1.caption(f"Accuracy and unknown rejection against the threshold on split `{split}`, at alpha {cfg.alpha:.2f} and "
           f"importance weight {cfg.importance_weight:.2f}. Each case is embedded once and re-scored per threshold.")
if w2.button("Run sweep", key="sweep_run", icon=":material/tune:", width="stretch"):
    cases = load_for(split)
    if cases:
        bar = st.progress(0.0, text=f"Sweeping {len(cases)} cases…")
        try:
            result = sweep(
                cases, state.embedder(), alphas=[round(cfg.alpha, 2)], weights=[round(cfg.importance_weight, 2)],
                progress=lambda d, t, cid: bar.progress(d / t, text=f"{d} / {t} · {cid}"),
            )
            saved = runs.save(result, store, "sweep", split)
            st.session_state["sweep_view"] = str(saved)
        except (ValueError, EngineError, OSError) as exc:
            st.error(f"The sweep failed: {exc}", icon=":material/error:")
        bar.empty()

saved_sweeps = [str(p) for p in runs.list_runs(store, "sweep")]
if saved_sweeps:
    if st.session_state.get("sweep_view") not in saved_sweeps:
        st.session_state["sweep_view"] = saved_sweeps[0]
    sv = st.selectbox("Sweep", saved_sweeps, key="sweep_view", format_func=runs.label)
    result = load_saved(sv)
    curve = result.get("default_curve") or result.get("curve") or []
    if curve:
        long = pd.DataFrame(
            [
                {"threshold": r["threshold"], "metric": name, "value": r[key]}
                for r in curve
                for key, name in (("accuracy", "accuracy"), ("unknown_rejection", "unknown rejection"),
                                  ("answer_accuracy", "answerable accuracy"))
                if r.get(key) is not None
            ]
        )
        s_col, b_col = st.columns([3, 1])
        best = result.get("best") or {}
        plateau = best.get("plateau")
        s_col.altair_chart(charts.sweep(long, float(cfg.threshold),
                                        chosen=best.get("threshold"), plateau=tuple(plateau) if plateau else None),
                           width="stretch")
        with b_col.container(border=True):
            chosen = best.get("threshold")
            st.metric("Best threshold", "n/a" if chosen is None else f"{chosen:.2f}",
                      help="Highest accuracy with 100% unknown rejection, deepest inside the plateau")
            span = f"{plateau[0]:.2f}–{plateau[1]:.2f}" if plateau else "n/a"
            st.caption(f"accuracy {pct(best.get('accuracy'))} · unknown rejection "
                       f"{pct(best.get('unknown_rejection'))} · plateau {span}")
            default = result.get("default")
            if default:
                st.caption(f"Current default {cfg.threshold:.2f}: accuracy {pct(default.get('accuracy'))}, "
                           f"unknown rejection {pct(default.get('unknown_rejection'))}")
        st.caption(f"Saved as `{Path(sv).name}` · {result.get('meta', {}).get('n_cases', '?')} cases")
else:
    st.caption("No sweep saved yet.")

# ---------------------------------------------------------------- real dataset: LoCoMo
st.subheader(":material/forum: Real conversations: LoCoMo", anchor=False)


def locomo_work(job: jobkit.Job, *, samples: list[dict], embedder, overrides: dict, label: str, store: str) -> str:
    from evaluation.locomo import evaluate

    steps = 2 * len(samples)  # evaluate reports twice per conversation: ingesting it, then asking its questions
    seen = 0

    def progress(message: str) -> None:
        nonlocal seen
        job.check()  # between conversations: cancel ends the run here
        job.update(seen, steps, message)
        seen += 1

    result = evaluate(samples, embedder=embedder, settings_overrides=overrides, progress=progress)
    job.check()
    job.update(steps, steps, "saving")
    return str(runs.save(result, store, "locomo", label))


with st.container(border=True):
    st.session_state.setdefault("locomo_path", str(locomo_view.default_path()))
    locomo_path = st.text_input("LoCoMo-format file", key="locomo_path",
                                help="A path on the machine running the cockpit, e.g. ../shared/data/locomo10.json; "
                                     "relative paths start where the cockpit was launched.")
    l_row = st.container(horizontal=True, vertical_alignment="bottom")
    locomo_limit = l_row.number_input("Limit conversations", min_value=1, max_value=1000, value=2, step=1,
                                      key="locomo_limit", width=180,
                                      help="Only the first N conversations of the file (LoCoMo-10 has 10)")
    locomo_go = l_row.button("Run LoCoMo", key="locomo_run", icon=":material/play_arrow:", width="content")
    st.caption("Every turn is ingested as its conversation's user; each question is recalled once and scored two "
               "ways: ranking (is the evidence turn in the top k at all) and served (what the engine hands a "
               f"chatbot at its threshold). Uses the run settings above ({runs.settings_tag(overrides)}).")

if locomo_go:
    try:
        samples = locomo_view.load_samples(locomo_path, int(locomo_limit))
        jobs.start(LOCOMO, f"{Path(locomo_path).name}, {len(samples)} conversations",
                   partial(locomo_work, samples=samples, embedder=state.embedder(), overrides=dict(overrides),
                           label=f"{Path(locomo_path).stem}-{len(samples)}conv-{runs.settings_tag(overrides)}",
                           store=store))
    except ValueError as exc:
        st.error(f"LoCoMo not started: {exc}", icon=":material/error:")

job_panel(LOCOMO, "LoCoMo", "locomo_view")

saved_locomo = [str(p) for p in runs.list_runs(store, "locomo")]
if not saved_locomo:
    st.caption("No LoCoMo run saved yet.")
else:
    if st.session_state.get("locomo_view") not in saved_locomo:
        st.session_state["locomo_view"] = saved_locomo[0]
    lv = st.selectbox("LoCoMo run", saved_locomo, key="locomo_view", format_func=runs.label)
    lres = load_saved(lv)
    lmeta, lsum = lres.get("meta", {}), lres.get("summary") or {}
    k = locomo_view.headline_k(lres)
    st.caption(f"{lmeta.get('samples', '?')} conversations · {lmeta.get('questions', '?')} questions · "
               f"{lres.get('ingest', {}).get('turns', '?')} turns · "
               f"{lres.get('ingest', {}).get('superseded', 'n/a')} memories superseded while reading them · "
               f"served threshold {lmeta.get('threshold', '?')} · "
               f"{lmeta.get('duration_s', '?')} s · commit {lmeta.get('git_commit') or 'n/a'}")
    lk = [
        (f"Ranking R@{k}", pct(lsum.get(f"ranking_recall@{k}")),
         f"categories 1-4: share of evidence turns in the top {k}, no threshold"),
        (f"Served R@{k}", pct(lsum.get(f"served_recall@{k}")),
         "the same, counting only what the engine serves at its threshold"),
        ("Answerable refused", pct(lsum.get("answerable_refused")), "categories 1-4 served nothing (lower is better)"),
        ("Abstention (cat. 5)", pct(lsum.get("adversarial_abstention")),
         "adversarial questions served nothing (higher is better)"),
        ("Cross-conversation refusal", pct(lsum.get("cross_refusal")),
         "answerable questions asked of another conversation's user and served nothing (higher is better)"),
    ]
    for col, (label_, value, help_) in zip(st.columns(len(lk)), lk):
        col.metric(label_, value, help=help_, border=True)
    ev = lres.get("evidence") or {}
    if ev.get("dropped"):
        st.caption(f"Evidence ids: {ev['ids']} given, {ev['dropped']} name no turn and were dropped.")
    if lres.get("ingest", {}).get("errors"):
        st.warning(f"{len(lres['ingest']['errors'])} turns failed to ingest; first: {lres['ingest']['errors'][0]}",
                   icon=":material/warning:")
    rows = locomo_view.category_rows(lres)
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True, key="locomo_categories",
                     column_config={c: st.column_config.NumberColumn(c, format="percent")
                                    for c in rows[0] if c not in ("category", "questions")})

    st.markdown("**Question inspector**: the evidence turns beside what recall brought back")
    questions = lres.get("questions") or []
    q1, q2 = st.columns([1, 1])
    cats_present = sorted({q["category"] for q in questions})
    cat = q1.selectbox("Category", [None, *cats_present], key="locomo_cat",
                       format_func=lambda c: "all" if c is None else f"{c} {locomo_view.CATEGORY_NAMES.get(c, c)}")
    which = q2.segmented_control("Show", [locomo_view.MISSED, locomo_view.FOUND, locomo_view.ALL],
                                 key="locomo_which", default=locomo_view.ALL) or locomo_view.ALL
    pool = locomo_view.pick_questions(lres, cat, which, k)
    if not pool:
        st.caption("No question matches.")
    else:
        qi = st.selectbox(f"Question ({len(pool)})", pool, key="locomo_question",
                          format_func=lambda i: locomo_view.question_label(questions[i], k))
        q = questions[qi]
        with st.container(border=True):
            st.markdown(f"**{ui.esc(q['question'])}** · expected answer {ui.quote(str(q.get('answer')))}")
            e_col, r_col = st.columns(2)
            with e_col:
                st.markdown("**Evidence turns**")
                if q.get("evidence_texts"):
                    for e in q["evidence_texts"]:
                        st.markdown(f"`{e['source_id']}` {ui.quote(e['text'])}")
                else:
                    st.caption("No evidence turn (an adversarial question, or evidence ids that name no turn).")
                st.caption(f"{q.get('evidence_stored', 0)} of {len(q.get('evidence') or [])} evidence turns became "
                           f"memories · R@{k} {q.get(f'recall@{k}', 0):.2f} · served R@{k} "
                           f"{q.get(f'served_recall@{k}', 0):.2f}"
                           + (" · served nothing" if q.get("served_empty") else ""))
            with r_col:
                st.markdown("**Recalled** (ranked without threshold; ✓ served = handed to a chatbot)")
                recalled = locomo_view.recalled_rows(q)
                if recalled:
                    st.dataframe(pd.DataFrame(recalled), hide_index=True, key="locomo_recalled",
                                 column_config={"memory": st.column_config.TextColumn("memory", width="large"),
                                                "rank": st.column_config.NumberColumn("#", width=35),
                                                "score": st.column_config.NumberColumn("score", format="%.3f")})
                else:
                    st.caption("Recall returned nothing.")
