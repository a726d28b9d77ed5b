"""The papers' mechanisms (client-side randomisers) and server-side estimators.

Build one by CLI name with :func:`estimators.registry.mechanism` (also
exported as :func:`privcheck.mechanism`).
"""
