"""NAOqi's entry points, so that a NAOqi script runs on the suite with only its imports changed.

    from nao_motion.naoqi import ALProxy          # was: from naoqi import ALProxy
    from nao_motion.naoqi import qi               # was: import qi
    from nao_motion.naoqi import motion, almath   # was: import motion, almath

    motionProxy = ALProxy("ALMotion", robotIP, 9559)     # NAOqi 1.x / 2.x proxies
    session = qi.Session()                               # NAOqi 2.x sessions
    session.connect("tcp://" + robotIP + ":9559")
    posture = session.service("ALRobotPosture")

Both give the same objects: the ``nao_motion.almotion`` client (``ALMotion``) and its
``ALRobotPosture``, one client per process (``broker``). The robot is the suite the ROS graph
reaches (``ROS_DOMAIN_ID``, the discovery range), not an address: the IP and port a script passes
are checked as NAOqi would take them and otherwise not used. Where NAOqi fails to connect (no
robot), these raise ``RuntimeError`` too (``ALMotionError`` is one): no suite in the graph.
"""

from __future__ import annotations

from . import broker


def ALProxy(name: str, ip: str | None = None, port: int | None = None):  # noqa: N802 (NAOqi's name)
    """NAOqi's proxy to module ``name`` ("ALMotion" or "ALRobotPosture") of the robot at
    ``ip``:``port`` (optional, as on the robot itself; see the module docstring)."""
    if ip is not None or port is not None:
        broker.check_address("127.0.0.1" if ip is None else ip, 9559 if port is None else port)
    return broker.service(name)


__all__ = ["ALProxy"]
