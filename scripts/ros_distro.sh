# Sourced by ./run and scripts/setup_env.sh (needs ROOT): which ROS 2 the project runs on,
# and the venv that holds it.
#
# With a sourced distribution (ROS_DISTRO set: Humble, Jazzy, Kilted) that one is used and
# NAO_MOTION_ROS_DISTRO is ignored. Without one, ROS 2 comes from PyPI wheels of the
# distribution NAO_MOTION_ROS_DISTRO names: jazzy (the default, the LTS that NAO packages
# target) or kilted. Each wheel distribution has a venv of its own (.venv for jazzy,
# .venv-kilted for kilted), so a switch never mixes two distributions in one environment and
# switching back costs nothing. NAO_MOTION_VENV overrides the path.
WHEELS_DISTRO="${NAO_MOTION_ROS_DISTRO:-jazzy}"
case "$WHEELS_DISTRO" in
  jazzy|kilted) ;;
  *) printf '[nao_motion] ERROR: NAO_MOTION_ROS_DISTRO=%s: the wheel distributions are jazzy (default) and kilted\n' \
       "$WHEELS_DISTRO" >&2
     exit 2 ;;
esac
if [[ -n "${ROS_DISTRO:-}" && -n "${NAO_MOTION_ROS_DISTRO:-}" && "$NAO_MOTION_ROS_DISTRO" != "$ROS_DISTRO" ]]; then
  printf '[nao_motion] WARNING: ROS 2 %s is sourced: NAO_MOTION_ROS_DISTRO=%s is ignored\n' \
    "$ROS_DISTRO" "$NAO_MOTION_ROS_DISTRO" >&2
fi
# exported: the set-up and the tests it runs see the same choice
[[ -z "${ROS_DISTRO:-}" ]] && export NAO_MOTION_ROS_DISTRO="$WHEELS_DISTRO"
if [[ -n "${ROS_DISTRO:-}" || "$WHEELS_DISTRO" == jazzy ]]; then
  VENV="${NAO_MOTION_VENV:-$ROOT/.venv}"
else
  VENV="${NAO_MOTION_VENV:-$ROOT/.venv-$WHEELS_DISTRO}"
fi
