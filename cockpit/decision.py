"""What recall decided, spelled out: the effective cut-off, companions and what top-k dropped.

The engine ranks every candidate, keeps those at or above a floor and serves the first top-k of them.
The floor is the threshold, lowered by the companion margin once any candidate clears the threshold
(the question is then known to be answerable). Served hits below the threshold are "companions";
candidates above the floor that top-k left out are "cut by top-k". Pure functions over a RecallResult.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

HIT, COMPANION, CUT, BELOW = "hit", "companion", "cut by top-k", "below cut-off"


@dataclass
class Decision:
    threshold: float
    cutoff: float              # the floor actually applied
    served: list[tuple[Any, str]] = field(default_factory=list)   # (hit, HIT | COMPANION), in rank order
    cut_by_top_k: list[Any] = field(default_factory=list)
    below: list[Any] = field(default_factory=list)

    @property
    def companions(self) -> int:
        return sum(1 for _h, kind in self.served if kind == COMPANION)


def cutoff(result: Any) -> float:
    """threshold − companion margin when a candidate cleared the threshold, else the threshold."""
    cleared = any(h.score >= result.threshold for h in result.candidates or result.hits)
    return result.threshold - result.companion_margin if cleared else result.threshold


def decide(result: Any) -> Decision:
    floor = cutoff(result)
    served_ids = {h.memory.id for h in result.hits}
    served = [(h, HIT if h.score >= result.threshold else COMPANION) for h in result.hits]
    # candidates are ranked in the engine's order, so the passing ones after the served are what top-k cut
    cut = [h for h in result.candidates if h.score >= floor and h.memory.id not in served_ids]
    return Decision(result.threshold, floor, served, cut, list(result.below_threshold))
