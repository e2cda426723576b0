"""Toy Card: a one-card betting game, the smallest complete game of the suite.

It exists to test the game-generic machinery (registry, views, training, duplicate evaluation) in
milliseconds, and as the template for adding a game (docs/adding_a_game.md): rules engine
(``game.py``), options (``config.py``), observation (``observation.py``), PettingZoo env
(``env.py``), a scripted agent (``agents.py``) and the registry record (``registration.py``).
"""

from kabu_envs.toy_card.config import Config, make_config
from kabu_envs.toy_card.game import DECK_SIZE, Action, Game, Phase
from kabu_envs.toy_card.observation import Encoder, obs_spec

__all__ = ["Action", "Config", "DECK_SIZE", "Encoder", "Game", "Phase", "make_config", "obs_spec"]
