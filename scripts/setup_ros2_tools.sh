#!/usr/bin/env bash
# Install the real ROS 2 tools the tests use (launch, launch_ros, launch_testing, ros2cli, colcon)
# into the wheel venv of scripts/setup_env.sh. `./run test` (and `./run ros2`) call it; the demo
# never needs it. Idempotent and stamped: a rerun with nothing changed is a check of about a second.
#
#   scripts/setup_ros2_tools.sh           install / bring up to date
#   scripts/setup_ros2_tools.sh --force   redo it
#
# Not on PyPI: launch, launch_xml, launch_yaml, launch_testing, launch_ros, launch_testing_ros,
# ros2launch, ros2cli (and its ros2run, ros2pkg, ros2topic, ros2node, ros2param, ros2service,
# ros2interface) and rosidl_runtime_py. They come from the upstream source archives in
# NAO_MOTION_ROS2_UPSTREAM (default <repo>/../shared/ros2-upstream: the jazzy branch, used for the
# Kilted wheels too, as no kilted branch archive exists), each package directory installed with
# `pip install --no-deps`. composition_interfaces (launch_ros.actions imports it) is generated from
# the rcl_interfaces archive with the system cmake and the wheels' rosidl toolchain, as
# scripts/setup_env.sh does tf2_msgs. Their PyPI dependencies and colcon come from
# requirements-ros2-tools.txt, lifecycle_msgs from the distribution's wheel.
#
# Skipped, with one line saying so, when the archives are absent (the tests needing the tools then
# skip with their reason) or when a sourced ROS 2 distribution (ROS_DISTRO) provides the tools.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/ros_distro.sh
source "$ROOT/scripts/ros_distro.sh"   # WHEELS_DISTRO, VENV
UPSTREAM="${NAO_MOTION_ROS2_UPSTREAM:-$ROOT/../shared/ros2-upstream}"
BRANCH=jazzy
ARCHIVES=(launch launch_ros ros2cli rosidl_runtime_py rcl_interfaces)
# package directories inside the unpacked archives, in dependency order
PACKAGES=(launch/launch launch/launch_xml launch/launch_yaml launch/launch_testing
          launch_ros/launch_ros launch_ros/launch_testing_ros
          rosidl_runtime_py ros2cli/ros2cli ros2cli/ros2pkg ros2cli/ros2run ros2cli/ros2topic
          ros2cli/ros2node ros2cli/ros2param ros2cli/ros2service ros2cli/ros2interface
          launch_ros/ros2launch)
TOOLS_IMPORT="import launch_testing.pytest.hooks, launch_testing_ros, launch_ros.actions, ros2cli, ros2launch, composition_interfaces.srv"
REQ_TOOLS="$ROOT/requirements-ros2-tools.txt"
REQ_ROS="$ROOT/requirements-ros-$WHEELS_DISTRO.txt"
STATE="$VENV/.nao_motion_setup"

say()  { printf '[setup_ros2_tools] %s\n' "$*"; }
die()  { printf '[setup_ros2_tools] ERROR: %s\n' "$*" >&2; exit 1; }

FORCE=0
for arg in "$@"; do
  case "$arg" in
    --force) FORCE=1 ;;
    -h|--help) sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$arg' (see --help)" ;;
  esac
done

# The imports run with no inherited ROS environment: the wheels' bootstrapper sets LD_LIBRARY_PATH.
venv_python() { (cd / && env -u LD_LIBRARY_PATH -u _ROS_WHEELS_BOOTSTRAP_COMPLETE "$VENV/bin/python" "$@"); }

if [[ -n "${ROS_DISTRO:-}" ]]; then
  if venv_python -c "$TOOLS_IMPORT" >/dev/null 2>&1; then
    say "skipped: ROS 2 $ROS_DISTRO provides launch, launch_testing and ros2cli"
  else
    say "skipped: ROS 2 $ROS_DISTRO lacks launch_testing_ros / ros2launch (apt-get install ros-$ROS_DISTRO-launch-testing-ros ros-$ROS_DISTRO-ros2launch); the tests needing them skip"
  fi
  exit 0
fi
[[ -x "$VENV/bin/python" ]] || die "$VENV is not set up: run ./run setup first"
missing=()
for a in "${ARCHIVES[@]}"; do [[ -f "$UPSTREAM/$a-$BRANCH.tar.gz" ]] || missing+=("$a-$BRANCH.tar.gz"); done
if (( ${#missing[@]} )); then
  say "skipped: no upstream ROS 2 sources (${missing[*]}) in $UPSTREAM (NAO_MOTION_ROS2_UPSTREAM): the launch_testing, ros2 launch and colcon tests skip"
  exit 0
fi

key="$WHEELS_DISTRO|$(for a in "${ARCHIVES[@]}"; do sha256sum < "$UPSTREAM/$a-$BRANCH.tar.gz"; done
  sha256sum < "$REQ_TOOLS"; sha256sum < "$ROOT/scripts/cmake/wheel_imported_targets.cmake"
  sha256sum < "${BASH_SOURCE[0]}")"
key="$(printf '%s' "$key" | sha256sum | cut -c1-32)"
if [[ $FORCE == 0 && -f "$STATE/ros2_tools" && "$(cat "$STATE/ros2_tools")" == "$key" ]] &&
    venv_python -c "$TOOLS_IMPORT" >/dev/null 2>&1; then
  exit 0
fi

# one installer at a time per venv (two ./run test started together)
if command -v flock >/dev/null 2>&1; then
  exec 9>"${TMPDIR:-/tmp}/nao_motion_ros2_tools_$(printf '%s' "$VENV" | sha256sum | cut -c1-12).lock"
  flock -w 900 9 || die "another setup_ros2_tools.sh holds the lock for more than 15 min"
fi
T0=$SECONDS
say "installing launch, launch_testing, launch_ros, ros2cli ($BRANCH branch sources from $UPSTREAM) into $VENV"
src="$VENV/.build/ros2-upstream"
rm -rf "$src"; mkdir -p "$src"
for a in "${ARCHIVES[@]}"; do tar -xzf "$UPSTREAM/$a-$BRANCH.tar.gz" -C "$src"; done

pip_q() {
  local out rc=0
  out="$("$VENV/bin/python" -m pip --disable-pip-version-check install -q "$@" 2>&1)" || rc=$?
  printf '%s\n' "$out" | grep -v -e "is ignored: it is neither a file nor a directory" -e '^$' >&2 || true
  return "$rc"
}
# lifecycle_msgs is rcl_interfaces' sibling: the same version as the distribution's rcl-interfaces pin
lifecycle="$(sed -n 's/^\(ros-\(jazzy-\)\{0,1\}\)rcl-interfaces==/\1lifecycle-msgs==/p' "$REQ_ROS")"
[[ -n "$lifecycle" ]] || die "no rcl-interfaces pin in ${REQ_ROS##*/} to match lifecycle-msgs to"
pip_q -r "$REQ_TOOLS" "$lifecycle" || die "pip install -r ${REQ_TOOLS##*/} $lifecycle failed"
pip_q --no-deps --no-build-isolation "${PACKAGES[@]/#/$src/}" || die "pip install of the upstream packages failed"

# composition_interfaces: upstream's CMakeLists, with the wheels' include-dir fix run at the end of
# its configure (CMAKE_PROJECT_INCLUDE defers it past its find_package calls).
build="$VENV/.build/composition_interfaces"
rm -rf "$build"; mkdir -p "$build"
printf 'cmake_language(DEFER CALL include "%s")\n' "$ROOT/scripts/cmake/wheel_imported_targets.cmake" \
  > "$build/wheel_fix.cmake"
cmake_env=(env -u _ROS_WHEELS_BOOTSTRAP_COMPLETE "AMENT_PREFIX_PATH=$VENV" "PATH=$VENV/bin:$PATH")
run_logged() {  # run_logged LOG CMD...: quiet unless it fails
  local log="$1"; shift
  "${cmake_env[@]}" "$@" >"$log" 2>&1 || { tail -n 40 "$log" >&2; die "composition_interfaces: $* failed (log: $log)"; }
}
run_logged "$build/configure.log" cmake -S "$src/rcl_interfaces/composition_interfaces" -B "$build" \
  -DCMAKE_PREFIX_PATH="$VENV" -DCMAKE_INSTALL_PREFIX="$VENV" -DPython3_EXECUTABLE="$VENV/bin/python" \
  -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DCMAKE_PROJECT_INCLUDE="$build/wheel_fix.cmake"
run_logged "$build/build.log" cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)"
run_logged "$build/install.log" cmake --install "$build"

if ! venv_python -c "$TOOLS_IMPORT" >/dev/null; then
  die "installed, but '$TOOLS_IMPORT' fails"
fi
mkdir -p "$STATE"; printf '%s\n' "$key" > "$STATE/ros2_tools"
say "done in $(( SECONDS - T0 )) s"
