"""The MLflow metric names: one builder per quantity, the same name in every stage."""

from __future__ import annotations

from pipelines import metrics as names


def test_names_follow_one_scheme() -> None:
    assert names.seconds("self-play") == "selfplay_seconds" and names.seconds("reward") == "reward_seconds"
    assert [names.loss(p) for p in names.LOSS_PARTS] == ["loss_policy", "loss_value", "loss_total"]
    assert (
        names.inner_loss("dark", "total") == "inner.dark.loss_total"
        and names.pooled_loss("value") == "pooled.loss_value"
    )
    assert names.per(names.SELFPLAY_DRAW_RATE, "gardner") == "selfplay_draw_rate.gardner"
    assert names.arena("ci_low") == "arena_ci_low" and names.per(names.REWARD, "rifle") == "reward.rifle"
    assert names.per(names.ELO, "fairy:nodes=1") == "elo.fairy_nodes_1"
    assert names.per(names.ELO_HIGH, "joat-b2-r0") == "elo_high.joat-b2-r0"
    assert names.target("mallet", names.per(names.ELO_MEAN, "joat-b100")) == "mallet.elo_mean.joat-b100"
    assert names.comparison("joat-b2", "scratch-b2") == "difference.joat-b2.scratch-b2"


def test_from_json_keeps_the_numbers_by_their_path() -> None:
    data = {"joat": {"b0": {"games": 0, "mask": "1101", "loss_total": 1.5}}, "seconds": 2.0, "none": None}
    assert names.from_json(data) == {"joat.b0.games": 0, "joat.b0.loss_total": 1.5, "seconds": 2.0}
