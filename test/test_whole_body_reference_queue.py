"""The whole body's walk references: paired by stamp, the one for each cycle picked, never a skipped cycle."""

import numpy as np

from nao_motion.wholebody.reference_queue import WalkReferenceQueue

DT = 0.01
FEET = (np.eye(4), np.eye(4))


def add(queue, stamp_s, x):
    queue.add_com(stamp_s, np.array([x, 0.0, 0.26]))
    queue.add_feet(stamp_s, *FEET)


def test_a_cycle_takes_the_reference_stamped_for_it_even_when_the_next_one_is_in():
    queue = WalkReferenceQueue()
    add(queue, 1.00, 0.0)
    add(queue, 1.01, 0.1)  # the walk is one cycle ahead: the next cycle's references are here already
    assert queue.select(1.00, 0.1).com_world_m[0] == 0.0
    assert queue.select(1.01, 0.1).com_world_m[0] == 0.1
    assert queue.late == 0


def test_a_late_reference_is_replaced_by_the_newest_older_one_and_counted():
    queue = WalkReferenceQueue()
    add(queue, 1.00, 0.0)
    assert queue.select(1.01, 0.1).com_world_m[0] == 0.0  # 1.01's has not come
    assert queue.late == 1


def test_com_and_feet_pair_by_stamp_and_take_the_support_sent_before_them():
    queue = WalkReferenceQueue()
    queue.set_support("LLeg")
    queue.add_com(1.00, np.zeros(3))
    queue.set_support("RLeg")  # the next cycle's, sent before its COM
    queue.add_com(1.01, np.ones(3))
    assert queue.select(1.00, 0.1) is None  # no feet yet: not a reference
    queue.add_feet(1.00, *FEET)
    assert queue.select(1.00, 0.1).support == "LLeg"
    queue.add_feet(1.01, *FEET)
    reference = queue.select(1.01, 0.1)
    assert reference.support == "RLeg" and reference.com_world_m[0] == 1.0


def test_old_references_end_the_walk_and_out_of_order_ones_are_dropped():
    queue = WalkReferenceQueue()
    add(queue, 1.00, 0.0)
    assert queue.select(1.00 + 0.1 + DT, 0.1) is None  # older than the timeout: the walk has ended
    add(queue, 2.00, 2.0)
    add(queue, 1.50, 1.5)  # older than what is kept: ignored
    assert queue.select(2.00, 0.1).com_world_m[0] == 2.0
    assert queue.select(1.99, 0.1) is None  # nothing kept at or before 1.99 within the timeout


def test_the_torso_tilt_joins_its_stamp_whether_it_comes_before_or_after_the_com_and_feet():
    queue = WalkReferenceQueue()
    queue.add_torso_tilt(1.00, (0.05, -0.1))  # before
    add(queue, 1.00, 0.0)
    add(queue, 1.01, 0.1)
    queue.add_torso_tilt(1.01, (0.02, 0.03))  # after
    add(queue, 1.02, 0.2)  # none: upright
    assert queue.select(1.00, 0.1).torso_tilt_rad == (0.05, -0.1)
    reference = queue.select(1.01, 0.1)
    assert reference.torso_tilt_rad == (0.02, 0.03) and reference.com_world_m[0] == 0.1
    assert queue.select(1.02, 0.1).torso_tilt_rad == (0.0, 0.0)
