"""Privacy accountants and budget planners (GDP, composition, amplification, wireless bounds)."""
