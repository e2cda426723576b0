"""Oicho-Kabu's agents: the scripted and expert players, their shared reading of the observation, and
the exact best response (the registry record names them; ``random`` and trained models are generic)."""
