"""The auditor's default sizes, in one place (read by the stages and by the memory estimate)."""

#: Monte Carlo draws per input when a claim does not say
DEFAULT_SAMPLES = 1_000_000
#: share of the draws per input spent choosing events (the rest estimates them, on fresh draws)
SELECTION_SHARE = 0.2
#: candidate (pair, event) tests that reach the estimation stage (the Bonferroni divisor)
MAX_EVENTS = 3
#: relative tolerance of an exact-ε comparison with the claim
EXACT_REL_TOL = 1e-12
#: pilot draws per input that fix the output coding (part of the selection share)
PILOT = 1 << 16
#: cap on pilot values kept in memory over all inputs (rows × columns)
PILOT_VALUES = 1 << 24
