"""Where the package's data (config/, urdf/, launch/) lives: the ROS share directory when the
package is installed (colcon or pip), else the source checkout (editable installs)."""

from __future__ import annotations

import sys
from pathlib import Path

PACKAGE = "nao_motion"


def share_directory() -> Path:
    try:
        from ament_index_python.packages import PackageNotFoundError, get_package_share_directory

        try:
            return Path(get_package_share_directory(PACKAGE))
        except (PackageNotFoundError, OSError):  # OSError: no AMENT_PREFIX_PATH (no distribution)
            pass
    except ImportError:
        pass
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "package.xml").exists() and (checkout / "config").is_dir():
        return checkout
    installed = Path(sys.prefix) / "share" / PACKAGE
    if installed.is_dir():
        return installed
    raise FileNotFoundError(f"cannot find the {PACKAGE} share directory (config/, urdf/)")


def config_file(name: str) -> Path:
    return share_directory() / "config" / name
