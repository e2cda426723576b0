"""Playing against the agents (``kabu-play``, terminal and web), game records and replays (``kabu-replay``).

``session.Match`` runs one game of any registered game with a person on one seat; ``records`` reads,
writes and replays game records; ``terminal`` and ``web`` are the two front ends; ``replay`` the
command line of ``kabu-replay``. What a seat is shown comes from the game's ``Viewer``
(``kabu_envs.core.views``; ``VIEWER`` in the game package's ``view.py``).
"""
