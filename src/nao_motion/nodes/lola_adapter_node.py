"""Robot adapter node: the suite's documented topics on a NAO V6 driven by ros-sports' nao_lola.

Decode -> :class:`nao_motion.lola.adapter.LolaAdapter` -> publish. nao_lola's own
``joint_states`` and ``imu`` reach the suite as they are; this node carries the rest across.
Each ``joint_commands`` message is forwarded at once (LoLA takes the newest at its next 12 ms
cycle); the node has no cycle of its own, so with no command it sends nothing and LoLA keeps the
last one. The first Ctrl-C (or SIGTERM) starts the documented shutdown (``shutdown``: sit, limp
or hold), which runs at LoLA's rate; a second one stops at once.

| kind | name | type | meaning |
|---|---|---|---|
| sub | `joint_commands` | sensor_msgs/JointState | `position` per named joint (rad); partial messages keep the other joints' last command. Refused whole (throttled warning, nothing sent): unknown or duplicate names, fewer or more positions than names, NaN/inf. Clamped into the model's limits (coupled head and ankle limits included). Nothing is sent until all 25 motors were named once. RHipYawPitch drives the shared motor only when LHipYawPitch is not named |
| sub | `joint_stiffness` | sensor_msgs/JointState | target stiffness 0..1 in `effort` per named joint (empty names with one value: every joint); outside 0..1 clamped; malformed refused whole |
| sub | `sensors/fsr` | nao_lola_sensor_msgs/FSR | each message becomes `fsr/left` and `fsr/right`; non-finite forces: dropped |
| sub | `sensors/joint_stiffnesses` | nao_lola_sensor_msgs/JointStiffnesses | read until the start-up ramp starts: the stiffness it starts from |
| pub | `effectors/joint_positions` | nao_lola_command_msgs/JointPositions | all 25 motors, LoLA indexes 0..24 in order, rad |
| pub | `effectors/joint_stiffnesses` | nao_lola_command_msgs/JointStiffnesses | all 25 motors, when the stiffness changes (start-up ramp, `joint_stiffness`, shutdown) |
| pub | `fsr/left`, `fsr/right` | std_msgs/Float32MultiArray | 4 forces (N), FL, FR, RL, RR, layout label "FL,FR,RL,RR" (the simulator's layout) |
| pub | `/diagnostics` | diagnostic_msgs/DiagnosticArray | 1 Hz: WARN while nothing is sent (no command yet, a motor never commanded, no fresh command: "LoLA holds the last command", no measured stiffness), ramp progress, counts of commands sent, refused and clamped |
| param | `nao_version` | string | V6 only (LoLA); read at start-up |
| param | `startup_stiffness` | double | stiffness the start-up ramp ends at (1.0); read at start-up |
| param | `stiffness_ramp_s` | double | duration of the start-up ramp from the measured stiffness (1.0 s) |
| param | `command_timeout_s` | double | a command older than this is not fresh (0.1 s, diagnostics) |
| param | `shutdown` | string | on Ctrl-C: "sit" (to Crouch, then stiffness 0: ALMotion's rest), "limp" (stiffness 0 only), "hold" (nothing: LoLA keeps the last command) |
| param | `sit_duration_s`, `limp_duration_s` | double | the shutdown's phases (2.0 s, 0.5 s; at most 4 s together) |
"""

from __future__ import annotations

import time

import numpy as np
from diagnostic_msgs.msg import DiagnosticStatus
from nao_lola_command_msgs.msg import JointPositions, JointStiffnesses
from nao_lola_sensor_msgs.msg import FSR
from nao_lola_sensor_msgs.msg import JointStiffnesses as MeasuredStiffnesses
from rclpy.duration import Duration
from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_msgs.msg import Float32MultiArray

from ..joint_input import JointInputError, parse_stiffness
from ..lola.adapter import SHUTDOWN_ACTIONS, LolaAdapter, LolaAdapterConfig
from ..lola.joint_indexes import LOLA_JOINT_COUNT
from ..model import NaoModel
from ..ros.cdr import JointStateReader
from ..ros.lola_messages import Float32TailImage, float_markers, fsr_sides_image, read_float32_tail
from ..ros.node_tools import CycleDiagnostics, ValidatedParameters, declare_thread_priority, run_node, throttled_warning
from ..ros.parameters import ParameterSpec, declare_startup
from ..ros.qos import CYCLE_QOS, LATEST_QOS
from ..ros.sampled import SampledSubscription
from ..sim.fsr import FSR_NAMES

_DEFAULTS = LolaAdapterConfig()
# nao_lola drives a V6 through LoLA: the only model it takes
NAO_VERSION_V6 = ParameterSpec("V6", "NAO version: V6 only (nao_lola drives a V6 through LoLA)", choices=("V6",),
                               startup=True)
PARAMETERS = {
    "startup_stiffness": ParameterSpec(_DEFAULTS.startup_stiffness, "stiffness the start-up ramp ends at, every motor",
                                       minimum=0.0, maximum=1.0, startup=True),
    "stiffness_ramp_s": ParameterSpec(_DEFAULTS.stiffness_ramp_s, "duration (s) of the start-up stiffness ramp "
                                      "from the measured stiffness", minimum=0.0, maximum=10.0),
    "command_timeout_s": ParameterSpec(_DEFAULTS.command_timeout_s, "a joint_commands older than this (s) is not "
                                       "fresh (diagnostics)", minimum=0.0, maximum=10.0, exclusive_minimum=True),
    "shutdown": ParameterSpec(_DEFAULTS.shutdown, "on Ctrl-C: sit (to Crouch, then stiffness 0), limp (stiffness 0), "
                              "hold (send nothing)", choices=SHUTDOWN_ACTIONS),
    "sit_duration_s": ParameterSpec(_DEFAULTS.sit_duration_s, "shutdown 'sit': from the last command to Crouch (s); "
                                    "with limp_duration_s at most 4 s", minimum=0.0, maximum=4.0),
    "limp_duration_s": ParameterSpec(_DEFAULTS.limp_duration_s, "shutdown 'sit'/'limp': stiffness to 0 (s); with "
                                     "sit_duration_s at most 4 s", minimum=0.0, maximum=4.0),
}
FSR_FORCES = 8  # nao_lola_sensor_msgs/FSR: the left foot's four, then the right foot's
LAST_COMMAND_ACK_S = 0.5


class LolaAdapterNode(Node):
    def __init__(self, **kwargs):
        super().__init__("lola_adapter", **kwargs)
        version = declare_startup(self, {"nao_version": NAO_VERSION_V6})["nao_version"]
        declare_thread_priority(self)
        self.model = NaoModel(version)
        self.params = ValidatedParameters(self, PARAMETERS, self._validate, self._apply)
        self.core = LolaAdapter(self.model, self._config(self.params.values))
        n = self.model.n_joints
        self.values, self.named = np.zeros(n), np.zeros(n, dtype=bool)
        self.reader = JointStateReader(self.model, unknown_names="reject", plausible=False)  # commands: clamped
        self.refused = self.fsr_dropped = 0
        self._steady = time.monotonic

        self.positions_pub = self.create_publisher(JointPositions, "effectors/joint_positions", CYCLE_QOS)
        self.stiffnesses_pub = self.create_publisher(JointStiffnesses, "effectors/joint_stiffnesses", CYCLE_QOS)
        self.fsr_pubs = [self.create_publisher(Float32MultiArray, f"fsr/{side}", CYCLE_QOS) for side in ("left", "right")]
        self.positions_image = Float32TailImage(
            JointPositions(indexes=self.core.joints.indexes, positions=float_markers(LOLA_JOINT_COUNT)),
            float_markers(LOLA_JOINT_COUNT))
        self.stiffnesses_image = Float32TailImage(
            JointStiffnesses(indexes=self.core.joints.indexes, stiffnesses=float_markers(LOLA_JOINT_COUNT)),
            float_markers(LOLA_JOINT_COUNT))
        self.fsr_images = [fsr_sides_image(FSR_NAMES) for _ in range(2)]
        self.create_subscription(JointState, "joint_commands", self.on_joint_commands, LATEST_QOS, raw=True)
        self.create_subscription(JointState, "joint_stiffness", self.on_joint_stiffness, CYCLE_QOS)
        self.create_subscription(FSR, "sensors/fsr", self.on_fsr, LATEST_QOS, raw=True)
        self.measured_stiffness = SampledSubscription(self, MeasuredStiffnesses, "sensors/joint_stiffnesses")
        self.diagnostics = CycleDiagnostics(self, "lola_adapter", self.model.cycle_time_s, self._diagnose)
        self._shutdown_timer = None
        self.get_logger().info(
            f"robot adapter for nao_lola (NAO {version}): joint_commands -> effectors/joint_positions, "
            f"joint_stiffness -> effectors/joint_stiffnesses, sensors/fsr -> fsr/left, fsr/right; "
            f"start-up stiffness ramp to {self.core.config.startup_stiffness} in "
            f"{self.core.config.stiffness_ramp_s} s; shutdown '{self.core.config.shutdown}'")

    # --- parameters -------------------------------------------------------------------------
    @staticmethod
    def _config(values: dict) -> LolaAdapterConfig:
        return LolaAdapterConfig(**values)

    def _validate(self, values: dict) -> str | None:
        return self._config(values).validate()

    def _apply(self, values: dict) -> None:
        if hasattr(self, "core"):
            self.core.config = self._config(values)

    # --- inputs -----------------------------------------------------------------------------
    def on_joint_commands(self, data: bytes) -> None:
        start = self.diagnostics.start()
        self.named[:] = False
        try:
            self.reader.merge(data, self.values, self.named)
        except JointInputError as err:
            self.refused += 1
            throttled_warning(self, "joint_commands", f"joint_commands message refused, nothing sent: {err}")
            return
        if self.core.needs_measured_stiffness and (measured := self.measured_stiffness.take_latest()) is not None:
            if not self.core.set_measured_stiffness(np.asarray(measured.stiffnesses)):
                throttled_warning(self, "sensors/joint_stiffnesses", "sensors/joint_stiffnesses ignored: not finite")
        command = self.core.command(self.values, self.named, self._steady())
        if command.refused is not None:  # (the reader refuses NaN/inf first; the core keeps its own guarantee)
            self.refused += 1
            throttled_warning(self, "joint_commands", f"joint_commands message refused, nothing sent: {command.refused}")
            return
        self._send(command)
        if self.core.last_clamped:
            throttled_warning(self, "clamped", f"joint_commands clamped into the joint limits: {self.core.last_clamped}")
            self.core.last_clamped = []
        self.diagnostics.record(start)

    def on_joint_stiffness(self, msg: JointState) -> None:
        try:
            parsed = parse_stiffness(self.model, msg.name, msg.effort)
        except JointInputError as err:
            throttled_warning(self, "joint_stiffness", f"joint_stiffness message refused: {err}")
            return
        if self.core.set_stiffness(parsed.indices, parsed.values):
            throttled_warning(self, "stiffness_range", "stiffness outside 0..1 clamped")

    def on_fsr(self, data: bytes) -> None:
        start = self.diagnostics.start()
        try:
            forces = read_float32_tail(data, FSR_FORCES)
        except ValueError as err:
            forces = None
            reason = str(err)
        else:
            reason = "non-finite force"
        if forces is None or not np.all(np.isfinite(forces)):
            self.fsr_dropped += 1
            throttled_warning(self, "sensors/fsr", f"sensors/fsr message dropped: {reason}")
            return
        for side, (image, pub) in enumerate(zip(self.fsr_images, self.fsr_pubs)):
            image.values[:] = forces[4 * side:4 * side + 4]  # FL, FR, RL, RR: nao_lola's field order
            image.publish(pub)
        self.diagnostics.record(start)

    # --- outputs ----------------------------------------------------------------------------
    def _send(self, command) -> None:
        if command.positions is not None:
            self.positions_image.values[:] = command.positions
            self.positions_image.publish(self.positions_pub)
        if command.stiffnesses is not None:
            self.stiffnesses_image.values[:] = command.stiffnesses
            self.stiffnesses_image.publish(self.stiffnesses_pub)

    # --- shutdown ---------------------------------------------------------------------------
    def wind_down(self) -> None:
        """The first Ctrl-C: the documented shutdown, at LoLA's rate (see ``run_nodes``)."""
        self.core.begin_shutdown(self._steady())
        if not self.core.done:
            self.get_logger().info(f"shutdown '{self.core.config.shutdown}': "
                                   f"{'to Crouch, then ' if self.core.config.shutdown == 'sit' else ''}stiffness to 0")
            self._shutdown_timer = self.create_timer(self.model.cycle_time_s, self._on_shutdown_tick)

    @property
    def wound_down(self) -> bool:
        return self.core.done

    def _on_shutdown_tick(self) -> None:
        self._send(self.core.shutdown_step(self._steady()))
        if self.core.done:
            self.destroy_timer(self._shutdown_timer)
            # The last command must reach nao_lola before the node (and its writers) goes: a node
            # destroyed right after it lost it. (Fast DDS's acknowledgement of the very last sample
            # often comes later than this bound, though the sample arrives: the wait is the point.)
            for pub in (self.positions_pub, self.stiffnesses_pub):
                pub.wait_for_all_acked(Duration(seconds=LAST_COMMAND_ACK_S))
            self.get_logger().info("shutdown done")

    # --- diagnostics ------------------------------------------------------------------------
    def _diagnose(self) -> None:
        core, now = self.core, self._steady()
        age = core.command_age_s(now)
        progress = core.ramp_progress(now)
        if core.done or self._shutdown_timer is not None:
            level, message = DiagnosticStatus.OK, f"shutdown '{core.config.shutdown}'{' done' if core.done else ''}"
        elif age is None:
            level, message = DiagnosticStatus.WARN, "no joint_commands yet: sending nothing"
        elif core.missing_motors:
            level, message = DiagnosticStatus.WARN, f"sending nothing until every motor is commanded (missing {core.missing_motors})"
        elif not core.fresh(now):
            level, message = DiagnosticStatus.WARN, (f"no fresh joint_commands for {age:.1f} s: sending nothing "
                                                      "(LoLA holds the last command)")
        elif progress is None:
            level, message = DiagnosticStatus.WARN, "no sensors/joint_stiffnesses yet: stiffness ramp not started"
        else:
            level, message = DiagnosticStatus.OK, "ok" if progress >= 1.0 else f"stiffness ramp {100 * progress:.0f} %"
        self.diagnostics.set_status(level, message)
        self.diagnostics.values.update({
            "command_age_ms": "none" if age is None else f"{1e3 * age:.1f}",
            "positions_sent": str(core.sent_positions), "stiffnesses_sent": str(core.sent_stiffnesses),
            "commands_refused": str(self.refused), "commands_clamped": str(core.clamped_commands),
            "fsr_dropped": str(self.fsr_dropped),
            "stiffness_ramp": "not started" if progress is None else f"{progress:.2f}",
        })


def main(args=None) -> None:
    run_node(LolaAdapterNode, args)


if __name__ == "__main__":
    main()
