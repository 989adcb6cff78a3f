"""Shared test settings: hypothesis tuned for 2 shared CPU cores, and the process defaults
every entry point applies (the test run is one: faiss loads later, during collection)."""

import os

from hypothesis import HealthCheck, settings

from rag.process_defaults import apply_process_defaults

apply_process_defaults()

# Shared, noisy machines: no per-example deadline, a bounded number of examples.
settings.register_profile(
    "ci", deadline=None, max_examples=50, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("thorough", deadline=None, max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
