"""Evaluation of the memory engine: hand-written cases, runner, threshold sweep, profiler, LoCoMo retrieval.

Everything here talks to the engine through its public API (`import engine`) only, so the numbers measure
what adapters and users actually get.
"""
