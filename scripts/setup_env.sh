#!/usr/bin/env bash
# Set up the Python environment of nao_motion in <repo>/.venv, so that a fresh
# machine needs nothing installed by hand. Idempotent: a rerun with nothing
# changed is a check of about a second.
#
#   scripts/setup_env.sh           set up / bring up to date
#   scripts/setup_env.sh --check   only report: exit 0 if up to date, 1 if not
#   scripts/setup_env.sh --force   redo every step (keeps the venv)
#   scripts/setup_env.sh --clean   remove .venv and set up from scratch
#
# Two modes:
#  * ROS_DISTRO unset: ROS 2 from PyPI wheels, the distribution NAO_MOTION_ROS_DISTRO
#    names (jazzy, the default, or kilted; requirements-ros-<distro>.txt), and the
#    other Python deps (requirements.txt) go into a venv of that distribution's own
#    (.venv for jazzy, .venv-kilted for kilted: two distributions never share one); the interface
#    packages that are not on PyPI (tf2_msgs, and nao_lola_command_msgs and
#    nao_lola_sensor_msgs for the robot adapter) are generated from scripts/<name>
#    with the system cmake and the wheels' rosidl toolchain, and installed into
#    the .venv prefix.
#  * ROS_DISTRO set (a sourced ROS 2 distribution): .venv is made with
#    --system-site-packages, no ROS wheels are installed (rclpy, tf2_ros,
#    launch_ros, nao_lola's messages... come from the distribution through
#    PYTHONPATH), only requirements.txt.
# In both modes the repo itself is installed with `pip install -e .`, and
# setup.py's data_files and console scripts are linked into the venv prefix the
# ament way (share/nao_motion/..., lib/nao_motion/<exe>, the ament index marker).
# Debian packages are installed with apt-get when missing and we are root (or
# have password-less sudo), otherwise the script says what to install:
# libosmesa6 (MUJOCO_GL=osmesa), python3-venv (if `python3 -m venv` fails), and
# for the interface builds cmake, make, gcc, g++ and python3.X-dev (Python.h).
#
# Environment knobs: NAO_MOTION_ROS_DISTRO (jazzy|kilted, the wheels' distribution;
# ignored when ROS_DISTRO is set), NAO_MOTION_PYTHON (interpreter used to create
# the venv), NAO_MOTION_VENV (venv path, default as above).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/ros_distro.sh
source "$ROOT/scripts/ros_distro.sh"   # WHEELS_DISTRO, VENV
STATE="$VENV/.nao_motion_setup"        # stamps live inside the venv
# Interface packages generated in wheels mode (scripts/<name>), each with a message to import.
INTERFACES=(tf2_msgs nao_lola_command_msgs nao_lola_sensor_msgs)
declare -A INTERFACE_IMPORT=(
  [tf2_msgs]="from tf2_msgs.msg import TFMessage"
  [nao_lola_command_msgs]="from nao_lola_command_msgs.msg import JointPositions"
  [nao_lola_sensor_msgs]="from nao_lola_sensor_msgs.msg import FSR"
)
REQ="$ROOT/requirements.txt"
REQ_ROS="$ROOT/requirements-ros-$WHEELS_DISTRO.txt"

say()  { printf '[setup_env] %s\n' "$*"; }
warn() { printf '[setup_env] WARNING: %s\n' "$*" >&2; }
die()  { printf '[setup_env] ERROR: %s\n' "$*" >&2; exit 1; }

CHECK_ONLY=0; FORCE=0; CLEAN=0
for arg in "$@"; do
  case "$arg" in
    --check) CHECK_ONLY=1 ;;
    --force) FORCE=1 ;;
    --clean) CLEAN=1 ;;
    -h|--help) sed -n '2,32p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$arg' (see --help)" ;;
  esac
done

T0=$(date +%s.%N)
elapsed() { awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

if [[ -n "${ROS_DISTRO:-}" ]]; then MODE="distro-$ROS_DISTRO"; else MODE="wheels-$WHEELS_DISTRO"; fi

# ---------------------------------------------------------------- helpers ----
hash_files() {  # hash of the names and contents of the given files/dirs (missing ones count too)
  # (names relative to each argument, so the hash does not depend on how the
  # script was called)
  local p
  for p in "$@"; do
    echo "== ${p##*/}"
    if [[ -d "$p" ]]; then
      (cd "$p" && find . -type f ! -name '*.pyc' -print0 | LC_ALL=C sort -z | xargs -0r sha256sum)
    elif [[ -f "$p" ]]; then
      sha256sum < "$p"
    else
      echo "missing"
    fi
  done | sha256sum | cut -c1-32
}

stamp_ok() { [[ -f "$STATE/$1" && "$(cat "$STATE/$1")" == "$2" ]]; }
stamp_set() { mkdir -p "$STATE"; printf '%s\n' "$2" > "$STATE/$1"; }

# The ROS wheels' ros_wheels_bootstrapper (.pth) re-executes python once with
# LD_LIBRARY_PATH=<venv>/lib:... and sets _ROS_WHEELS_BOOTSTRAP_COMPLETE=1. If
# that guard was inherited from another environment, drop it so ours runs.
if [[ -n "${_ROS_WHEELS_BOOTSTRAP_COMPLETE:-}" && ":${LD_LIBRARY_PATH:-}:" != *":$VENV/lib:"* ]]; then
  unset _ROS_WHEELS_BOOTSTRAP_COMPLETE
fi

is_root() { [[ "$(id -u)" == 0 ]]; }
SUDO=""
can_apt() {
  command -v apt-get >/dev/null 2>&1 || return 1
  if is_root; then SUDO=""; return 0; fi
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; return 0; fi
  return 1
}
deb_installed() {
  command -v dpkg-query >/dev/null 2>&1 &&
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep 'install ok installed' >/dev/null
}
APT_UPDATED=0
apt_install() {  # apt_install PKG...: install Debian packages, or explain and return 1
  if ! can_apt; then
    warn "missing system packages: $*"
    warn "install them with:  sudo apt-get update && sudo apt-get install -y $*"
    return 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  if [[ $APT_UPDATED == 0 ]]; then
    say "apt-get update"
    # a failing third-party source makes update exit non-zero; try the install anyway
    $SUDO apt-get update -qq >/dev/null 2>&1 || warn "apt-get update reported errors; trying the install anyway"
    APT_UPDATED=1
  fi
  say "apt-get install $*"
  local log="${TMPDIR:-/tmp}/nao_motion_apt.$$.log"
  if ! $SUDO apt-get install -y -qq --no-install-recommends "$@" >"$log" 2>&1; then
    tail -n 20 "$log" >&2; rm -f "$log"
    die "apt-get install $* failed"
  fi
  rm -f "$log"
}

have_osmesa() {
  deb_installed libosmesa6 && return 0
  command -v ldconfig >/dev/null 2>&1 && ldconfig -p 2>/dev/null | grep 'libOSMesa\.so' >/dev/null && return 0
  [[ -x /sbin/ldconfig ]] && /sbin/ldconfig -p 2>/dev/null | grep 'libOSMesa\.so' >/dev/null
}

pip_q() {  # quiet pip; hide the harmless warnings about unreachable file:// indexes
  local out rc=0
  out="$("$VENV/bin/python" -m pip --disable-pip-version-check install -q "$@" 2>&1)" || rc=$?
  printf '%s\n' "$out" | grep -v -e "is ignored: it is neither a file nor a directory" -e '^$' >&2 || true
  return "$rc"
}

# What the final check imports (mujoco is left out: it needs libosmesa6 with
# MUJOCO_GL=osmesa, which is checked separately).
CHECK_IMPORTS="import rclpy, tf2_msgs.msg, geometry_msgs.msg, sensor_msgs.msg, numpy, scipy, osqp, yaml, nao_motion"
# (a distribution may lack nao_lola's messages: only the robot adapter needs them, see below)
[[ $MODE == wheels-* ]] && CHECK_IMPORTS+=", nao_lola_command_msgs.msg, nao_lola_sensor_msgs.msg"
imports_ok() {
  [[ -x "$VENV/bin/python" ]] || return 1
  (cd / && "$VENV/bin/python" -c "$CHECK_IMPORTS") >/dev/null 2>&1
}

# ------------------------------------------------------------------ keys -----
KEY_DEPS="$MODE|$(hash_files "$REQ" "$REQ_ROS" "${BASH_SOURCE[0]}")"
interface_key() { hash_files "$ROOT/scripts/$1" "$ROOT/scripts/cmake" "${BASH_SOURCE[0]}"; }
KEY_PROJ="$(hash_files "$ROOT/setup.py" "$ROOT/setup.cfg" "$ROOT/pyproject.toml")|$(
  cd "$ROOT" && find resource launch config urdf benchmarks package.xml -maxdepth 3 2>/dev/null | LC_ALL=C sort | sha256sum | cut -c1-16)"
# (sources and setup.py's data_files are linked, not copied, into the venv: edits
# are live; only a new or removed data file re-runs that step.)

# ------------------------------------------------------------ fast path ------
interfaces_stamped() {
  local name
  for name in "${INTERFACES[@]}"; do stamp_ok "$name" "$(interface_key "$name")" || return 1; done
}
up_to_date() {
  [[ $FORCE == 0 ]] && stamp_ok mode "$MODE|$VENV" && stamp_ok deps "$KEY_DEPS" &&
    { [[ $MODE != wheels-* ]] || interfaces_stamped; } &&
    stamp_ok project "$KEY_PROJ" && imports_ok
}

if [[ $CHECK_ONLY == 1 ]]; then
  if up_to_date; then say "up to date ($MODE, $VENV)"; exit 0; fi
  say "NOT up to date ($MODE, $VENV): run scripts/setup_env.sh"; exit 1
fi

# Serialise concurrent runs (two terminals, CI + a developer...).
if command -v flock >/dev/null 2>&1; then
  LOCK="${TMPDIR:-/tmp}/nao_motion_setup_$(printf '%s' "$VENV" | sha256sum | cut -c1-12).lock"
  exec 9>"$LOCK"
  flock -w 900 9 || die "another setup_env.sh holds $LOCK for more than 15 min"
fi

if [[ $CLEAN == 1 && -d "$VENV" ]]; then say "removing $VENV"; rm -rf "$VENV"; fi

if up_to_date; then
  if ! have_osmesa; then
    warn "libosmesa6 is missing: the simulator (MUJOCO_GL=osmesa) will not work; rerun with --force as root, or: sudo apt-get install -y libosmesa6"
  fi
  say "already up to date ($MODE, $(elapsed) s)"
  exit 0
fi

say "setting up $VENV (mode: $MODE)"

# ----------------------------------------------------- system packages ------
if ! have_osmesa; then
  apt_install libosmesa6 || warn "continuing without libosmesa6: 'import mujoco' fails with MUJOCO_GL=osmesa"
fi

# --------------------------------------------------------------- venv -------
pick_python() {
  if [[ -n "${NAO_MOTION_PYTHON:-}" ]]; then echo "$NAO_MOTION_PYTHON"; return; fi
  if [[ $MODE != wheels-* && -x /usr/bin/python3 ]]; then
    # a ROS 2 distribution's rclpy is built for the system interpreter
    echo /usr/bin/python3; return
  fi
  command -v python3 || true
}
PY="$(pick_python)"
[[ -n "$PY" ]] || die "no python3 found (need Python >= 3.10); on Debian: apt-get install python3 python3-venv"
"$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' 2>/dev/null ||
  die "$PY is Python $("$PY" -c 'import sys; print(sys.version.split()[0])' 2>/dev/null || echo '?'); need >= 3.10 (set NAO_MOTION_PYTHON)"
PY_VER="$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"

# A venv made for the other mode, another interpreter or another path is redone.
if [[ -d "$VENV" ]]; then
  if [[ ! -x "$VENV/bin/python" ]] || ! "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1; then
    say "$VENV is broken: recreating"; rm -rf "$VENV"
  elif [[ -f "$STATE/mode" ]] && ! stamp_ok mode "$MODE|$VENV"; then
    say "$VENV was made for '$(cat "$STATE/mode")', now '$MODE|$VENV' (mode|path): recreating"; rm -rf "$VENV"
  elif [[ "$("$VENV/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" != "$PY_VER" ]]; then
    say "$VENV uses another Python than $PY ($PY_VER): recreating"; rm -rf "$VENV"
  fi
fi

make_venv() {
  local opts=()
  [[ $MODE != wheels-* ]] && opts+=(--system-site-packages)
  "$PY" -m venv "${opts[@]}" "$VENV" >"${TMPDIR:-/tmp}/nao_motion_venv.err.$$" 2>&1
}
if [[ ! -x "$VENV/bin/python" ]]; then
  say "creating venv with $PY (Python $PY_VER)"
  if ! make_venv; then
    rm -rf "$VENV"
    if deb_installed python3 || [[ "$PY" == /usr/bin/* ]]; then
      say "python3 -m venv failed (ensurepip missing?): installing python3-venv"
      apt_install python3-venv "python$PY_VER-venv" || die "cannot create a venv: install python3-venv"
      make_venv || { cat "${TMPDIR:-/tmp}/nao_motion_venv.err.$$" >&2; die "python3 -m venv failed"; }
    else
      cat "${TMPDIR:-/tmp}/nao_motion_venv.err.$$" >&2; die "$PY -m venv failed"
    fi
  fi
  rm -f "${TMPDIR:-/tmp}/nao_motion_venv.err.$$"
  rm -rf "$STATE"
fi
stamp_set mode "$MODE|$VENV"

# ----------------------------------------------------------- python deps -----
if [[ $FORCE == 1 ]] || ! stamp_ok deps "$KEY_DEPS"; then
  T=$(date +%s)
  # build tools first, so that sdists (empy) build as wheels and `pip install
  # --no-build-isolation -e .` below has a setuptools with PEP 660 support
  pip_q "setuptools>=64" wheel || die "pip install setuptools wheel failed"
  if [[ $MODE == wheels-* ]]; then
    say "pip install: ROS 2 $WHEELS_DISTRO wheels + Python deps (about a minute on a fresh venv)"
    pip_q -r "$REQ" -r "$REQ_ROS" || die "pip install failed (requirements.txt, ${REQ_ROS##*/})"
  else
    say "pip install: Python deps (ROS 2 from the sourced $ROS_DISTRO distribution)"
    pip_q -r "$REQ" || die "pip install -r requirements.txt failed"
  fi
  say "pip install done in $(( $(date +%s) - T )) s"
  for name in "${INTERFACES[@]}"; do rm -f "$STATE/$name"; done  # new wheels: regenerate against them
  stamp_set deps "$KEY_DEPS"
fi

# ------------------------------------------------ interface packages ------
interface_importable() {
  (cd / && env -u LD_LIBRARY_PATH -u _ROS_WHEELS_BOOTSTRAP_COMPLETE -u AMENT_PREFIX_PATH \
    "$VENV/bin/python" -c "${INTERFACE_IMPORT[$1]}") >/dev/null 2>&1
}
if [[ $MODE == wheels-* ]]; then
  for name in "${INTERFACES[@]}"; do
    key="$(interface_key "$name")"
    build="$VENV/.build/$name"
    if [[ $FORCE == 0 ]] && stamp_ok "$name" "$key" && interface_importable "$name"; then
      continue
    fi
    # toolchain: the system cmake and a C/C++ compiler
    need=()
    command -v cmake >/dev/null 2>&1 || need+=(cmake)
    command -v make >/dev/null 2>&1 || need+=(make)
    command -v cc >/dev/null 2>&1 || need+=(gcc)
    command -v c++ >/dev/null 2>&1 || need+=(g++)
    # rosidl_generator_py compiles C extensions: it needs the Python headers
    # (pyenv/python.org builds have them; Debian's python3 needs python3.X-dev)
    if ! "$VENV/bin/python" -c 'import os, sys, sysconfig
sys.exit(0 if os.path.isfile(os.path.join(sysconfig.get_path("include"), "Python.h")) else 1)' 2>/dev/null; then
      need+=("python$("$VENV/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')-dev")
    fi
    if (( ${#need[@]} )); then
      apt_install "${need[@]}" || die "$name must be built: install ${need[*]} first"
    fi
    T=$(date +%s)
    say "building $name (scripts/$name -> $VENV) in $build"
    mkdir -p "$build"
    export_env=(env -u _ROS_WHEELS_BOOTSTRAP_COMPLETE "AMENT_PREFIX_PATH=$VENV" "PATH=$VENV/bin:$PATH")
    if ! "${export_env[@]}" cmake -S "$ROOT/scripts/$name" -B "$build" \
        -DCMAKE_PREFIX_PATH="$VENV" -DCMAKE_INSTALL_PREFIX="$VENV" \
        -DPython3_EXECUTABLE="$VENV/bin/python" -DCMAKE_BUILD_TYPE=Release \
        -DBUILD_TESTING=OFF >"$build/configure.log" 2>&1; then
      tail -n 40 "$build/configure.log" >&2
      die "$name: cmake configure failed (full log: $build/configure.log)"
    fi
    if ! "${export_env[@]}" cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" \
        >"$build/build.log" 2>&1; then
      grep -E -m 20 -B2 -A8 'error|Error' "$build/build.log" >&2 || tail -n 40 "$build/build.log" >&2
      die "$name: build failed (full log: $build/build.log)"
    fi
    if ! "${export_env[@]}" cmake --install "$build" >"$build/install.log" 2>&1; then
      tail -n 40 "$build/install.log" >&2
      die "$name: install failed (full log: $build/install.log)"
    fi
    # Must work with no environment variables: the wheels' bootstrapper puts
    # <venv>/lib on LD_LIBRARY_PATH, where the generated libraries were installed.
    if ! interface_importable "$name"; then
      (cd / && env -u LD_LIBRARY_PATH -u _ROS_WHEELS_BOOTSTRAP_COMPLETE "$VENV/bin/python" \
        -c "${INTERFACE_IMPORT[$name]}") >&2 || true
      die "$name was built but '${INTERFACE_IMPORT[$name]}' fails"
    fi
    say "$name built in $(( $(date +%s) - T )) s"
    stamp_set "$name" "$key"
  done
  rm -f "$STATE/tf2"  # the stamp's name before the loop
else
  for name in "${INTERFACES[@]}"; do rm -f "$STATE/$name"; done
  if ! (cd / && "$VENV/bin/python" -c "${INTERFACE_IMPORT[nao_lola_command_msgs]}; ${INTERFACE_IMPORT[nao_lola_sensor_msgs]}") \
      >/dev/null 2>&1; then
    warn "$ROS_DISTRO provides no nao_lola_command_msgs / nao_lola_sensor_msgs: the robot adapter (nao-motion robot) needs them;"
    warn "install ros-$ROS_DISTRO-nao-lola-command-msgs ros-$ROS_DISTRO-nao-lola-sensor-msgs (or build nao_lola in your workspace)"
  fi
fi

# -------------------------------------------------------- the repo itself ----
if [[ $FORCE == 1 ]] || ! stamp_ok project "$KEY_PROJ" || ! imports_ok; then
  if [[ ! -f "$ROOT/setup.py" && ! -f "$ROOT/pyproject.toml" ]]; then
    die "no setup.py in $ROOT: cannot 'pip install -e .'"
  fi
  say "pip install -e . (nao_motion, editable)"
  # --no-deps: the dependency lists are requirements*.txt; --no-build-isolation:
  # build with the venv's setuptools (no download); --use-pep517: a PEP 660
  # editable install puts the console scripts in .venv/bin (the legacy
  # `setup.py develop` would follow setup.cfg's [develop] script_dir instead).
  pip_q --no-deps --no-build-isolation --use-pep517 -e "$ROOT" || die "pip install -e . failed"
  # An editable install does not install setup.py's data_files, and the ament
  # layout wants the console scripts in lib/<package>/ too (where launch_ros and
  # `ros2 run` look). Link both into the venv prefix, so that with
  # AMENT_PREFIX_PATH=.venv (set by ./run) get_package_share_directory() works.
  (cd "$ROOT" && "$VENV/bin/python" - "$ROOT" "$VENV" <<'PYEOF') || die "linking setup.py's data_files into $VENV failed"
import os, runpy, sys
import setuptools

root, prefix = (os.path.realpath(p) for p in sys.argv[1:3])
kw = {}
setuptools.setup = lambda **k: kw.update(k)  # read setup()'s arguments without running it
sys.argv = ["setup.py"]
runpy.run_path(os.path.join(root, "setup.py"), run_name="__main__")
name = kw.get("name") or os.path.basename(root)
wanted = {}
for entry in kw.get("data_files") or []:
    dest, files = entry if isinstance(entry, (tuple, list)) else ("", [entry])
    for f in files:
        wanted[os.path.join(prefix, dest, os.path.basename(f))] = os.path.join(root, f)
eps = kw.get("entry_points") or {}
for spec in (eps.get("console_scripts", []) if isinstance(eps, dict) else []):
    script = spec.split("=")[0].strip()
    wanted[os.path.join(prefix, "lib", name, script)] = os.path.join(prefix, "bin", script)
# drop our stale links (a removed launch file...), then make the wanted ones
for top in (os.path.join(prefix, "share", name), os.path.join(prefix, "lib", name),
            os.path.join(prefix, "share", "ament_index", "resource_index")):
    for d, _, fs in os.walk(top):
        for f in fs:
            p = os.path.join(d, f)
            if os.path.islink(p) and p not in wanted and (
                    os.readlink(p).startswith((root + os.sep, os.path.join(prefix, "bin", "")))):
                os.remove(p)
for link, target in wanted.items():
    if os.path.islink(link) and os.readlink(link) == target:
        continue
    os.makedirs(os.path.dirname(link), exist_ok=True)
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(target, link)
print(f"[setup_env] linked {len(wanted)} data files / scripts of {name} into {prefix}")
PYEOF
  stamp_set project "$KEY_PROJ"
fi

# ------------------------------------------------------------ final check ----
if ! imports_ok; then
  (cd / && "$VENV/bin/python" -c "$CHECK_IMPORTS") >&2 || true
  die "set-up finished but the import check failed: $CHECK_IMPORTS"
fi
if ! have_osmesa; then
  warn "libosmesa6 is missing: the simulator (MUJOCO_GL=osmesa) will not work"
fi
say "done in $(elapsed) s ($MODE, $VENV)"
