"""Kakeya's agents: the scripted player and the search expert with its parts (the observation decoded
to what the seat knows, the consistent-deal sampler, the play-outs). The registry record names them;
``random`` and trained models are generic."""
