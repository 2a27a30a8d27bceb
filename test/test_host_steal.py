"""HostSteal: missed cycles put down to the host only when a vCPU was halted just before them, and
the canaries watching this machine's vCPUs see a halt."""

import os
import sys
import time

import pytest

from nao_motion.host_steal import HostSteal, steal_seconds


def test_a_missed_cycle_is_put_down_to_the_host_only_after_a_halt_within_lookback():
    host = HostSteal()
    back = HostSteal.LOOKBACK_S
    host.halts = [(10.0, 10.004), (10.5, 10.503)]
    assert host.halted_near(10.002)  # during the halt
    assert host.halted_near(10.004 + 0.9 * back)  # its answer was held
    assert not host.halted_near(10.004 + 1.1 * back)
    assert not host.halted_near(9.999)  # before the halt: a halt after the miss did not cause it
    assert not host.halted_near(10.25)
    assert host.halted_near(10.51)
    assert not HostSteal().halted_near(10.0)  # nothing halted: nothing is the host's


def test_halts_of_two_vcpus_out_of_order_are_all_seen():
    host = HostSteal()
    # A long halt of one vCPU around a short one of the other: sorted by end, the long one last.
    host.halts = sorted([(10.0, 10.2), (10.05, 10.052)], key=lambda h: h[1])
    assert host.halted_near(10.1)  # only the long one covers it
    assert not host.halted_near(10.2 + 1.1 * HostSteal.LOOKBACK_S)


def test_the_share_of_time_after_halts_is_the_chance_of_a_cycle_being_put_down_to_the_host():
    host = HostSteal()
    host.halts = [(10.5, 10.51)]
    # From the halt's start to LOOKBACK_S after its end.
    assert host.share_halted_near(10.0, 11.0) == pytest.approx(0.01 + HostSteal.LOOKBACK_S, abs=0.002)
    assert host.share_halted_near(12.0, 13.0) == 0.0
    assert host.share_halted_near(12.0, 12.0) == 0.0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the canaries are pinned with Linux's affinity")
def test_the_canaries_see_a_stopped_vcpu_on_this_machine():
    start_s = time.monotonic()
    with HostSteal() as host:
        time.sleep(0.6)  # past STARTUP_S
        # A canary stopped as a halted vCPU would stop it: its wake-ups stop for 50 ms.
        canaries = list(host._canaries)
        canary = canaries[0]
        os.kill(canary.pid, 19)  # SIGSTOP
        time.sleep(0.05)
        os.kill(canary.pid, 18)  # SIGCONT
        stopped_s = time.monotonic()
        time.sleep(0.2)
    if not host.watching:
        pytest.skip("no real-time priority here (not root, no CAP_SYS_NICE): the canaries cannot watch")
    assert steal_seconds() >= 0.0
    assert host.longest_s >= 0.045
    assert all(start_s <= start < end <= time.monotonic() for start, end in host.halts)
    assert host.halted_near(stopped_s)
    assert len(canaries) == len(os.sched_getaffinity(0))  # one a vCPU
    assert all(c.poll() is not None for c in canaries)  # ended with the block
