"""Calibrated relevance: a logistic model over a few score features, fitted on dev data (pure numpy).

One cosine cut cannot tell "a weak match to a question nobody answered" from "the answer, worded unlike the
question". The features below each carry part of that judgement; the model weighs them into a probability
that the memory answers the question, and the recall threshold is a cut on that probability.

features of a candidate (all 0..1-ish):
  relevance: the better of cosine(question, memory) and cosine(statement the question asks for, memory),
             blended with BM25 as before: max(r, alpha * r + (1 - alpha) * lexical)
  coverage:  share of the question's content words the memory carries (text.content_coverage)
  lexical:   normalized BM25
The shipped numbers live in Settings (calibration_*); `python -m evaluation.calibrate --split dev` refits them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

FEATURES = ("relevance", "coverage", "lexical")


@dataclass(frozen=True)
class Calibration:
    bias: float
    relevance: float
    coverage: float
    lexical: float

    def probability(self, relevance: float, coverage: float, lexical: float) -> float:
        z = self.bias + self.relevance * relevance + self.coverage * coverage + self.lexical * lexical
        if z < -60:  # exp overflow guard; the probability is 0 to float precision anyway
            return 0.0
        return 1.0 / (1.0 + math.exp(-z))

    @property
    def weights(self) -> tuple[float, ...]:
        return (self.relevance, self.coverage, self.lexical)


def relevance_feature(semantic: float, statement: float, lexical: float, alpha: float) -> float:
    """The dense evidence: the better of the two cosines, lifted (never lowered) by BM25 as before."""
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    dense = max(semantic, statement)
    return max(dense, alpha * dense + (1.0 - alpha) * lexical)


def fit(features: Sequence[Sequence[float]], labels: Sequence[int], *, l2: float = 0.001,
        iterations: int = 50) -> Calibration:
    """Logistic regression by Newton's method (IRLS) with a small L2 penalty on the weights (not the bias),
    which keeps the fit finite when the classes separate. Deterministic: same data, same numbers."""
    x = np.asarray(features, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != len(FEATURES):
        raise ValueError(f"features must be rows of {len(FEATURES)} values {FEATURES}")
    if len(y) != len(x) or len(y) == 0:
        raise ValueError("features and labels must be non-empty and of the same length")
    if not set(np.unique(y)) <= {0.0, 1.0} or len(np.unique(y)) < 2:
        raise ValueError("labels must be 0/1 and contain both classes")
    design = np.hstack([np.ones((len(x), 1)), x])
    penalty = np.diag([0.0] + [l2 * len(x)] * x.shape[1])
    w = np.zeros(design.shape[1])
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(design @ w, -60, 60)))
        gradient = design.T @ (p - y) + penalty @ w
        hessian = design.T @ (design * (p * (1 - p))[:, None]) + penalty + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return Calibration(*(round(float(v), 4) for v in w))
