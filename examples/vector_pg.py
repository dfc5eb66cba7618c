"""A small actor-critic agent that learns k in a row through the vector environment, then plays a board it never saw.

It trains one fully convolutional network on a task distribution of the k-in-a-row family (``TRAIN``: tic-tac-toe,
5x5 and 6x6 boards with four in a row), all stepped at once by ``mmc.env.vector_env`` against the random player, the
agent's side drawn at each game's start. The network reads the padded observation (the family's planes and the plane
that marks the game's board) and writes one logit per cell, so it plays any board of the family up to the largest
size. Then it plays the held-out ``mnk_5x4_k4`` (``HELD_OUT``) against the random player, 50 games as each side.

The learning rule is advantage actor-critic (A2C): rollouts of ``steps`` moves of every game, returns without
discount (the reward is the game's result, +1 / 0 / -1), a value baseline, and an entropy bonus. The step after a
game's end starts the next game (Gymnasium's next-step autoreset): that step's observation is the finished game's,
with an empty action mask, and takes no part in the loss.

Run it (about a minute on one core)::

    python examples/vector_pg.py --updates 120 --seed 0

``tests/test_example_vector_pg.py`` runs it and checks that the agent scores at least 0.8 against random on the
held-out board in 100 games.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from torch import nn

from mmc.env import vector_env

TRAIN = ("mnk_3x3_k3", "mnk_5x5_k4", "mnk_6x6_k4")
"""The task distribution the agent trains on (each game draws one)."""
HELD_OUT = "mnk_5x4_k4"
"""The variant it is evaluated on: a board size it never played (5 files, 4 ranks, four in a row)."""


class Agent(nn.Module):
    """Convolutions over the padded board: a logit per cell (the family's action of that cell) and a value."""

    def __init__(self, planes: int, width: int = 32) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(planes, width, 3, padding=1), nn.ReLU(),
            nn.Conv2d(width, width, 3, padding=1), nn.ReLU(),
        )  # fmt: skip
        self.policy = nn.Conv2d(width, 1, 1)
        self.value = nn.Linear(width, 1)

    def forward(self, planes: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(logits [N, H*W] with illegal cells at -1e9, value [N] in [-1, 1])``; the last plane marks the board."""
        h = self.body(planes)
        logits = self.policy(h).flatten(1).masked_fill(mask == 0, -1e9)
        board = planes[:, -1:]
        pooled = (h * board).sum((2, 3)) / board.sum((2, 3)).clamp(min=1.0)
        return logits, torch.tanh(self.value(pooled)).squeeze(1)


def train(updates: int = 120, num_envs: int = 64, steps: int = 16, seed: int = 0, lr: float = 3e-3,
          log_every: int = 0) -> Agent:  # fmt: skip
    """An :class:`Agent` trained for ``updates`` A2C updates on :data:`TRAIN` against the random player."""
    torch.manual_seed(seed)
    envs = vector_env(variants=TRAIN, num_envs=num_envs, opponent="random", color="random")
    obs, _ = envs.reset(seed=seed)
    agent = Agent(envs.single_observation_space["observation"].shape[0])
    optimiser = torch.optim.Adam(agent.parameters(), lr=lr)
    generator = torch.Generator().manual_seed(seed)
    results: list[float] = []
    for update in range(updates):
        planes, masks, actions, rewards, ends = [], [], [], [], []
        for _ in range(steps):
            x, m = torch.from_numpy(obs["observation"]), torch.from_numpy(obs["action_mask"])
            with torch.no_grad():
                logits, _ = agent(x, m)
            action = torch.multinomial(torch.softmax(logits, 1), 1, generator=generator).squeeze(1)
            obs, reward, terminated, _, _ = envs.step(action.numpy())
            planes.append(x)
            masks.append(m)
            actions.append(action)
            rewards.append(torch.from_numpy(reward))
            ends.append(torch.from_numpy(terminated))
            results.extend(reward[terminated].tolist())
        with torch.no_grad():
            _, last = agent(torch.from_numpy(obs["observation"]), torch.from_numpy(obs["action_mask"]))
        valid = torch.stack([m.any(1) for m in masks])  # [T, N]: False on the step that starts the next game
        returns = torch.zeros(steps, num_envs)
        following = last
        for t in reversed(range(steps)):
            following = torch.where(ends[t], rewards[t], following)
            returns[t] = following
            following = torch.where(valid[t], following, torch.zeros_like(following))
        logits, values = agent(torch.cat(planes), torch.cat(masks))
        logp = torch.log_softmax(logits, 1)
        chosen = logp.gather(1, torch.cat(actions)[:, None]).squeeze(1)
        keep = valid.flatten().float()
        advantage = returns.flatten() - values
        entropy = -(logp.exp() * logp.clamp(min=-30)).sum(1)
        loss = ((-chosen * advantage.detach() + 0.5 * advantage**2 - 0.01 * entropy) * keep).sum() / keep.sum()
        optimiser.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(agent.parameters(), 1.0)
        optimiser.step()
        if log_every and (update + 1) % log_every == 0:
            recent = results[-500:]
            print(f"update {update + 1}: mean result of the last {len(recent)} games {np.mean(recent):+.2f}")
    return agent


def score_against_random(agent: Agent, variant: str = HELD_OUT, games: int = 100, seed: int = 1) -> float:
    """The agent's score (a win 1, a draw 1/2) in ``games`` games of ``variant`` against the random player, half of
    them as the first player; the agent plays its most likely move."""
    total = 0.0
    for color, count in (("first", games // 2), ("second", games - games // 2)):
        envs = vector_env(variants=[variant], num_envs=count, opponent="random", color=color)
        obs, _ = envs.reset(seed=seed)
        result = np.full(count, np.nan)
        while np.isnan(result).any():
            with torch.no_grad():
                logits, _ = agent(torch.from_numpy(obs["observation"]), torch.from_numpy(obs["action_mask"]))
            obs, reward, terminated, _, _ = envs.step(logits.argmax(1).numpy())
            first = terminated & np.isnan(result)
            result[first] = reward[first]
        total += float(((result + 1) / 2).sum())
    return total / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--updates", type=int, default=120)
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    start = time.perf_counter()
    agent = train(args.updates, args.envs, seed=args.seed, log_every=20)
    print(f"trained in {time.perf_counter() - start:.0f} s")
    print(f"score against random on the held-out {HELD_OUT}: {score_against_random(agent):.2f}")


if __name__ == "__main__":
    main()
