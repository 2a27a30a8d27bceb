"""Which ROS 2 distribution this process runs on, for reports (the demo's summary.json, the
benchmarks): a sourced distribution names itself in ``ROS_DISTRO``; the PyPI wheels set nothing,
and are told apart by rclpy's major version, which each distribution keeps to itself."""

from __future__ import annotations

import os
import re
from functools import lru_cache
from importlib import metadata
from pathlib import Path

# rclpy's major version per distribution (rclpy's package.xml on each branch).
DISTRIBUTION_OF_RCLPY_MAJOR = {3: "humble", 7: "jazzy", 9: "kilted"}


def rclpy_version() -> str:
    """rclpy's version: the wheel's (``ros-rclpy``), else the distribution's package.xml."""
    try:
        return metadata.version("ros-rclpy")
    except metadata.PackageNotFoundError:
        pass
    for prefix in filter(None, os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep)):
        package_xml = Path(prefix, "share", "rclpy", "package.xml")
        if package_xml.is_file() and (m := re.search(r"<version>([^<]+)</version>", package_xml.read_text())):
            return m.group(1).strip()
    return "unknown"


@lru_cache(maxsize=1)
def ros_distribution() -> dict[str, str]:
    """``{"ros_distro": ..., "rclpy_version": ...}``."""
    version = rclpy_version()
    major = int(version.split(".")[0]) if version[:1].isdigit() else -1
    distro = os.environ.get("ROS_DISTRO") or DISTRIBUTION_OF_RCLPY_MAJOR.get(major, "unknown")
    return {"ros_distro": distro, "rclpy_version": version}
