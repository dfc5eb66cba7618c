"""Every playable variant of every game family as standard environments: PettingZoo AEC (the family's two players
as agents) and Gymnasium (one agent against a player).

Needs the ``env`` extra (``pip install -e '.[env]'``: PettingZoo and Gymnasium).

>>> from mmc.env import env
>>> game = env(variant="gardner")
>>> game.reset(seed=0)
>>> game.agents
['white', 'black']

Importing this package registers the Gymnasium ids ``mmc/Gardner-v0``, ``mmc/LosAlamos-v0``, ... (one per playable
variant of the families registered then, :data:`GYM_IDS`): ``gymnasium.make("mmc/Gardner-v0", opponent="greedy",
color="white")``. A family registered later (``mmc.games.register_game``) gets its ids from :func:`register_envs`.
"""

from mmc.env.aec import GameAEC, agents, env, observation_space, raw_env
from mmc.env.gym import GYM_IDS, GameGym, gym_id, register_envs
from mmc.env.vector import VectorGame, random_actions, vector_env
from mmc.env.views import (
    PLAYABLE,
    agent_planes,
    check_playable,
    observation,
    playable_variants,
    player_name,
    rgb_image,
)

__all__ = [
    "GYM_IDS",
    "PLAYABLE",
    "GameAEC",
    "GameGym",
    "VectorGame",
    "agent_planes",
    "agents",
    "check_playable",
    "env",
    "gym_id",
    "observation",
    "observation_space",
    "playable_variants",
    "player_name",
    "random_actions",
    "raw_env",
    "register_envs",
    "rgb_image",
    "vector_env",
]
