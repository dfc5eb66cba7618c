"""Evaluation and rating: how strong a model is, on one Elo scale.

- ``mmc.evaluation.evaluate``: evaluation matches against opponents, and the rating of a target's models
  (``evaluate_and_rate``, the evaluate stage's and ``mmc rate``'s);
- ``mmc.evaluation.rating``: the Elo fit with bootstrap intervals;
- ``mmc.evaluation.comparison``: means over training replicates, paired comparisons and their verdicts;
- ``mmc.evaluation.leaderboard``: leaderboards of rated players per variant;
- ``mmc.evaluation.mistakes``: solver-labelled position suites and the mistake rate of any player, an exact
  yardstick beside Elo (``mmc.evaluation.suite_make``: how the shipped suites are made);
- ``mmc.evaluation.starts``: the starts of adaptation and their rules;
- ``mmc.evaluation.analysis``: the tables and verdict summaries the report shows (the verdict table:
  ``mmc.evaluation.verdict_table``).
"""
