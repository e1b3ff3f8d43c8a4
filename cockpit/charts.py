"""Altair charts used by the pages (they receive the DataFrames the pages build)."""
from __future__ import annotations

from typing import Any

import altair as alt
import pandas as pd

class FastLayerChart(alt.LayerChart):
    """A layer chart whose ``to_dict()`` skips Altair's jsonschema validation by default.

    Streamlit calls ``to_dict()`` on every rerun, and validating the spec costs ~50-100 ms. The charts
    here are fixed constructions; tests/test_cockpit.py validates each of them with
    ``to_dict(validate=True)``. (The Recall page's score chart is a plain spec: see ``score_parts``.)
    """

    def to_dict(self, *args: Any, validate: bool = False, **kwargs: Any) -> dict[str, Any]:
        return super().to_dict(*args, validate=validate, **kwargs)


def layer(*charts: alt.Chart) -> FastLayerChart:
    return FastLayerChart(layer=list(charts))


PART_COLORS = {"semantic": "#4f46e5", "lexical": "#0ea5e9", "importance": "#f59e0b"}
THRESHOLD_COLOR = "#dc2626"
SWEEP_COLORS = {"accuracy": "#4f46e5", "answerable accuracy": "#0ea5e9", "unknown rejection": "#f59e0b"}


CUTOFF_COLOR = "#9333ea"


def score_parts(parts: list[dict], scores: list[dict], threshold: float, cutoff: float | None = None) -> dict:
    """Stacked score parts per candidate, its final score (black tick), the threshold (red rule) and the
    effective cut-off (purple rule: threshold − companion margin, drawn only when it differs).

    The x axis is fixed to 0–1 so the rules do not jump around as knobs move (marks are clipped).

    parts: rows (label, part, value, part_order); scores: rows (label, score, cleared); row order = rank.
    A plain Vega-Lite spec for ``st.vega_lite_chart`` whose layers never change: everything that moves
    with a knob (rows, ranks, the rules and their labels) is in its named datasets. Streamlit then
    updates the chart's data in place instead of building a new view, and no Altair is involved (that
    path cost ~100 ms of a slider step on the server, the new view ~60 ms in the browser).
    tests/test_cockpit.py validates the spec against the Vega-Lite schema.
    """
    rank = {row["label"]: i for i, row in enumerate(scores)}
    rules = [{"x": threshold, "text": f"threshold {threshold:.2f}", "kind": "threshold"}]
    if cutoff is not None and abs(cutoff - threshold) > 1e-9:
        rules.append({"x": cutoff, "text": f"cut-off {cutoff:.2f}", "kind": "cutoff"})
    datasets = {
        "parts": pd.DataFrame([{**row, "rank": rank.get(row["label"], len(rank))} for row in parts],
                              columns=["label", "part", "value", "part_order", "rank"]),
        "scores": pd.DataFrame([{**row, "rank": i} for i, row in enumerate(scores)],
                               columns=["label", "score", "cleared", "rank"]),
        "rules": pd.DataFrame(rules, columns=["x", "text", "kind"]),
    }
    return {**_score_parts_layers(), "datasets": datasets}


def _score_parts_layers() -> dict:
    x_scale = {"domain": [0.0, 1.0]}
    y = {"field": "label", "type": "nominal", "sort": {"field": "rank", "op": "min", "order": "ascending"},
         "title": None, "axis": {"labelLimit": 420, "labelFontSize": 12}}

    def rule(kind: str, color: str, dash: list[int], align: str, dx: int) -> list[dict]:
        x = {"field": "x", "type": "quantitative", "scale": x_scale, "title": "score"}
        only = [{"filter": {"field": "kind", "equal": kind}}]
        return [
            {"data": {"name": "rules"}, "transform": only,
             "mark": {"type": "rule", "color": color, "strokeDash": dash, "size": 2}, "encoding": {"x": x}},
            {"data": {"name": "rules"}, "transform": only,
             "mark": {"type": "text", "color": color, "align": align, "dx": dx, "dy": -6, "fontSize": 11},
             "encoding": {"x": x, "y": {"value": 0}, "text": {"field": "text", "type": "nominal"}}},
        ]

    layers = [
        {
            "data": {"name": "parts"},
            "mark": {"type": "bar", "clip": True},
            "encoding": {
                "x": {"field": "value", "type": "quantitative", "aggregate": "sum", "title": "score",
                      "scale": x_scale},
                "y": y,
                "color": {"field": "part", "type": "nominal", "title": "part", "legend": {"orient": "top"},
                          "scale": {"domain": list(PART_COLORS), "range": list(PART_COLORS.values())}},
                "order": {"field": "part_order", "type": "quantitative"},
                "tooltip": [{"field": "label", "type": "nominal"}, {"field": "part", "type": "nominal"},
                            {"field": "value", "type": "quantitative", "format": ".3f"}],
            },
        },
        {
            "data": {"name": "scores"},
            "mark": {"type": "tick", "color": "#111827", "thickness": 3, "clip": True},
            "encoding": {
                "x": {"field": "score", "type": "quantitative", "title": "score", "scale": x_scale},
                "y": y,
                "tooltip": [{"field": "label", "type": "nominal"},
                            {"field": "score", "type": "quantitative", "format": ".3f"},
                            {"field": "cleared", "type": "nominal"}],
            },
        },
        *rule("threshold", THRESHOLD_COLOR, [6, 4], "left", 4),
        # Right-aligned so it never overlaps the threshold label, which is left-aligned just above it.
        *rule("cutoff", CUTOFF_COLOR, [2, 3], "right", -4),
    ]
    # A step height (px per row) instead of a fixed one: Streamlit fits fixed heights to the container,
    # which squashes the rows together.
    return {"layer": layers, "height": {"step": 34}}


def category_accuracy(df: Any) -> FastLayerChart:
    """Accuracy per category, worst first (df: category, accuracy, passed, total)."""
    order = list(df.sort_values(["accuracy", "category"])["category"])
    base = alt.Chart(df).encode(
        y=alt.Y("category", type="nominal", sort=order, title=None, axis=alt.Axis(labelLimit=300)),
        x=alt.X("accuracy", type="quantitative", title="accuracy", scale=alt.Scale(domain=[0, 1]),
                axis=alt.Axis(format="%")),
    )
    bars = base.mark_bar(color="#4f46e5").encode(
        tooltip=[alt.Tooltip("category", type="nominal"),
                 alt.Tooltip("accuracy", type="quantitative", format=".1%"),
                 alt.Tooltip("passed", type="quantitative"), alt.Tooltip("total", type="quantitative")]
    )
    text = base.mark_text(align="right", dx=-6, fontSize=11, color="white").encode(
        text=alt.Text("accuracy", type="quantitative", format=".0%")
    )
    return layer(bars, text).properties(height=alt.Step(30))


PLATEAU_COLOR = "#16a34a"


def sweep(df: Any, current: float, chosen: float | None = None,
          plateau: tuple[float, float] | None = None) -> FastLayerChart:
    """Metric curves against the threshold (df: threshold, metric, value) with the current default marked,
    and, when given, the plateau (green band: thresholds as good as the best) and the chosen point (green rule)."""
    lines = (
        alt.Chart(df)
        .mark_line(point=True)
        .encode(
            x=alt.X("threshold", type="quantitative", title="threshold"),
            y=alt.Y("value", type="quantitative", title=None, scale=alt.Scale(domain=[0, 1]),
                    axis=alt.Axis(format="%")),
            color=alt.Color("metric", type="nominal", title=None, legend=alt.Legend(orient="top"),
                            scale=alt.Scale(domain=list(SWEEP_COLORS), range=list(SWEEP_COLORS.values()))),
            tooltip=[alt.Tooltip("threshold", type="quantitative", format=".2f"),
                     alt.Tooltip("metric", type="nominal"),
                     alt.Tooltip("value", type="quantitative", format=".1%")],
        )
    )
    mark = df.head(1).assign(current=current)[["current"]]
    x_mark = alt.X("current", type="quantitative", title="threshold")
    rule = alt.Chart(mark).mark_rule(color=THRESHOLD_COLOR, strokeDash=[6, 4], size=2).encode(x=x_mark)
    text = (
        alt.Chart(mark)
        .mark_text(color=THRESHOLD_COLOR, align="left", dx=4, dy=8, fontSize=11)
        .encode(x=x_mark, y=alt.YValue(0), text=alt.TextValue(f"current default {current:.2f}"))
    )
    layers = []
    if plateau is not None:
        band = df.head(1).assign(lo=float(plateau[0]), hi=float(plateau[1]))[["lo", "hi"]]
        layers.append(alt.Chart(band).mark_rect(color=PLATEAU_COLOR, opacity=0.12).encode(
            x=alt.X("lo", type="quantitative", title="threshold"), x2=alt.X2("hi"),
            tooltip=[alt.Tooltip("lo", type="quantitative", format=".2f", title="plateau from"),
                     alt.Tooltip("hi", type="quantitative", format=".2f", title="plateau to")]))
    layers += [lines, rule, text]
    if chosen is not None:
        pick = df.head(1).assign(chosen=float(chosen))[["chosen"]]
        x_pick = alt.X("chosen", type="quantitative", title="threshold")
        layers.append(alt.Chart(pick).mark_rule(color=PLATEAU_COLOR, size=2).encode(x=x_pick))
        layers.append(alt.Chart(pick).mark_text(color=PLATEAU_COLOR, align="left", dx=4, dy=22, fontSize=11)
                      .encode(x=x_pick, y=alt.YValue(0), text=alt.TextValue(f"chosen {chosen:.2f}")))
    return layer(*layers).properties(height=320)


def decompose(score: float, semantic: float, lexical: float, importance: float, alpha: float,
              weight: float) -> dict[str, float]:
    """Split a hit's score into what each part contributed, so the parts add up to the score.

    score = max(S_sem, alpha*S_sem + (1-alpha)*S_lex) + weight*(importance - 0.5): when the blend wins,
    semantic gives alpha*S_sem and lexical (1-alpha)*S_lex; otherwise semantic alone carries the base.
    Any rounding difference from the engine's own score is folded into the semantic part.
    """
    imp = weight * (importance - 0.5)
    base = score - imp
    blend = alpha * semantic + (1 - alpha) * lexical
    if lexical > 0 and blend >= semantic:
        lex = (1 - alpha) * lexical
        sem = base - lex
    else:
        lex = 0.0
        sem = base
    return {"semantic": sem, "lexical": lex, "importance": imp}
