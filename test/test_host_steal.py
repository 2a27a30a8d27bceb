"""HostSteal: missed cycles put down to the host only when it stole near them, and the sampler
reads this machine's /proc/stat."""

import sys
import time

import pytest

from nao_motion.host_steal import HostSteal, steal_seconds


def test_a_missed_cycle_is_put_down_to_the_host_only_within_near_s_of_steal():
    host = HostSteal()
    host.stolen_at_s = [10.0, 10.5]
    near = HostSteal.NEAR_S
    assert host.near_steal(10.0) and host.near_steal(10.0 - 0.9 * near) and host.near_steal(10.5 + 0.9 * near)
    assert not host.near_steal(10.0 - 1.1 * near)
    assert not host.near_steal(10.25)  # between the two, farther than NEAR_S from either
    assert not host.near_steal(10.5 + 1.1 * near)
    assert not HostSteal().near_steal(10.0)  # nothing stolen: nothing is the host's


def test_the_share_of_time_near_steal_is_the_chance_of_a_cycle_being_put_down_to_it():
    host = HostSteal()
    host.stolen_at_s = [10.5]
    # Within +-NEAR_S of one sample: 2 * NEAR_S of the second.
    assert host.share_near_steal(10.0, 11.0) == pytest.approx(2 * HostSteal.NEAR_S, abs=2 * HostSteal.PERIOD_S)
    assert host.share_near_steal(12.0, 13.0) == 0.0
    assert host.share_near_steal(12.0, 12.0) == 0.0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="steal is read from Linux's /proc/stat")
def test_the_sampler_runs_and_stops_on_this_machine():
    start_s = time.monotonic()
    with HostSteal() as host:
        time.sleep(0.1)
    assert steal_seconds() >= 0.0
    assert host.longest_s >= 0.0
    assert all(start_s <= t <= time.monotonic() for t in host.stolen_at_s)
    assert not host._thread.is_alive()
