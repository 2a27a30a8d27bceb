"""The CPU budget of benchmarks and the demo (``nao_motion.cpu_quota``): cgroup discovery, the
kernel's cap on a busy process, and the clear refusal where no cgroup can be written."""

import subprocess
import sys
import time

import pytest

from nao_motion.cpu_quota import CpuQuota, CpuQuotaUnavailable, cgroup_mounts

HYBRID_MOUNTS = """tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0
cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0
cgroup /sys/fs/cgroup/cpuacct cgroup rw,relatime,cpuacct 0 0
cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0
cgroup2 /nonexistent/unified cgroup2 rw,relatime 0 0
"""


def test_the_v1_cpu_controller_is_found_among_the_mounts():
    v2, v1 = cgroup_mounts(HYBRID_MOUNTS)
    assert v1 is not None and str(v1) == "/sys/fs/cgroup/cpu"
    assert v2 is None  # a cgroup2 mount without the cpu controller does not count


def test_no_cgroup_is_refused_with_the_reason():
    with pytest.raises(CpuQuotaUnavailable, match="no mount with the cpu controller"):
        CpuQuota(20.0, 0.012, mounts_text="proc /proc proc rw 0 0\n")


@pytest.mark.parametrize("percent", [0.0, -5.0, 1e6])
def test_a_share_outside_the_machine_is_refused(percent):
    with pytest.raises(ValueError, match="CPU quota"):
        CpuQuota(percent, 0.012)


def writable_quota(percent: float, period_s: float) -> CpuQuota:
    try:
        return CpuQuota(percent, period_s, name=f"nao_motion_test_quota_{time.monotonic_ns()}")
    except CpuQuotaUnavailable as err:
        pytest.skip(f"no writable cgroup here: {err}")


def test_the_cap_stops_a_busy_process_every_period_and_lets_it_go_at_close():
    quota = writable_quota(10.0, 0.012)
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        assert (quota.quota_us, quota.period_us) == (1200, 12000)
        limits = ((quota.path / "cpu.max").read_text().split() if quota.version == 2 else
                  [(quota.path / f).read_text().strip() for f in ("cpu.cfs_quota_us", "cpu.cfs_period_us")])
        assert limits == ["1200", "12000"]
        quota.add(busy.pid)
        assert quota.pids() == [busy.pid]
        time.sleep(0.5)
        used = quota.usage()
        # a process that never sleeps exhausts its 1.2 ms in every period it runs in
        assert used.periods > 10 and used.throttled_periods >= used.periods - 2 and used.throttled_s > 0.1
    finally:
        quota.close()
        busy.kill()
        busy.wait()
    assert not quota.path.exists()
