"""The whole body's answer latency (nao_motion.ros.answer_latency): from the driver's publication
of a joint_states to the command, and which part made an answer late."""

import math
import time

import pytest

from nao_motion.ros.answer_latency import LATE_FRACTION, AnswerLatency

CYCLE_S = 0.01
MS = 1_000_000  # ns


def _info(published_ms_ago: float, received_ms_ago: float) -> dict:
    now = time.time_ns()
    return {"source_timestamp": now - int(published_ms_ago * MS), "received_timestamp": now - int(received_ms_ago * MS)}


def test_an_answer_within_half_a_cycle_is_not_late():
    latency = AnswerLatency(CYCLE_S)
    latency.received(_info(1.0, 0.5))
    latency.answered()
    assert latency.count == 1 and sum(latency.late.values()) == 0
    delivery_s, waiting_s, compute_s = latency.last_parts_s
    assert delivery_s == pytest.approx(0.0005, abs=2e-4) and waiting_s == pytest.approx(0.0005, abs=5e-4)
    assert latency.totals_s[0] == pytest.approx(delivery_s + waiting_s + compute_s, abs=1e-6)
    assert latency.totals_s[0] < LATE_FRACTION * CYCLE_S


@pytest.mark.parametrize("published_ms_ago, received_ms_ago, compute_ms, part", [
    (8.0, 1.0, 0.0, "delivery"),  # 7 ms from the driver to this process
    (7.0, 6.5, 0.0, "waiting"),  # received at once, its cycle started 6.5 ms later
    (0.5, 0.2, 6.0, "compute"),  # the cycle itself took 6 ms
])
def test_a_late_answer_is_put_down_to_its_largest_part(published_ms_ago, received_ms_ago, compute_ms, part):
    latency = AnswerLatency(CYCLE_S)
    latency.received(_info(published_ms_ago, received_ms_ago))
    time.sleep(compute_ms * 1e-3)
    latency.answered()
    assert latency.late == {**dict.fromkeys(latency.late, 0), part: 1}
    values = latency.values()
    assert values["late_answers"] == "1" and values[f"late_answers_{part}"] == "1"
    assert values["answer_latency_ms"].startswith("median ")


def test_without_the_rmw_timestamps_the_answer_counts_from_the_cycles_start():
    latency = AnswerLatency(CYCLE_S)
    latency.received({"source_timestamp": 0, "received_timestamp": 0})
    latency.answered()
    assert math.isnan(latency.last_parts_s[0]) and latency.last_parts_s[1] == 0.0
    assert latency.totals_s[0] == pytest.approx(latency.last_parts_s[2])


def test_an_answer_without_a_cycle_or_twice_is_not_counted():
    latency = AnswerLatency(CYCLE_S)
    latency.answered()  # no joint_states yet
    latency.received(_info(1.0, 0.5))
    latency.answered()
    latency.answered()  # the same cycle's second publication
    assert latency.count == 1 and latency.values()["late_answers"] == "0"
    assert AnswerLatency(CYCLE_S).values() == {}
