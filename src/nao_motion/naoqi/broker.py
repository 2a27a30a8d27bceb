"""The connection a script's proxies and sessions share, as NAOqi's broker: one ALMotion client
per process, made when the first proxy or session needs it and closed when the interpreter exits
(a NAOqi script never closes its proxies)."""

from __future__ import annotations

import atexit
import threading
from contextlib import contextmanager

from ..almotion import ALMotion
from ..almotion.posture import ALRobotPosture

SERVICES = ("ALMotion", "ALRobotPosture")

_lock = threading.Lock()
_motion: ALMotion | None = None


def check_address(ip: object, port: object) -> None:
    """NAOqi's checks of a robot address: RuntimeError for an IP that is not a non-empty string
    or a port outside 1..65535."""
    if not isinstance(ip, str) or not ip.strip():
        raise RuntimeError(f"invalid robot address {ip!r}: an IP address or host name is a non-empty string")
    if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
        raise RuntimeError(f"invalid port {port!r}: an integer in 1..65535 (NAOqi's is 9559)")


def motion_client() -> ALMotion:
    """The process's ALMotion client, made on first use (RuntimeError: no suite in the ROS graph)."""
    global _motion
    with _lock:
        if _motion is None:
            _motion = ALMotion()
            atexit.register(_close)
        return _motion


@contextmanager
def serving(client: ALMotion):
    """The process's proxies and sessions give ``client`` (an ALMotion the caller made and
    closes) until the block ends: a NAOqi script run inside a program that has its client."""
    global _motion
    with _lock:
        if _motion is not None:
            raise RuntimeError("the process's proxies already have their client")
        _motion = client
    try:
        yield client
    finally:
        with _lock:
            _motion = None


def service(name: str):
    """The object a NAOqi proxy or session gives for the module ``name``."""
    if name not in SERVICES:
        raise RuntimeError(f"Can't find service: {name!r} (nao_motion provides {' and '.join(SERVICES)})")
    motion = motion_client()
    return motion if name == "ALMotion" else ALRobotPosture(motion)


def _close() -> None:
    global _motion
    with _lock:
        if _motion is not None:
            _motion.close()
            _motion = None
