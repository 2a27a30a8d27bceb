"""The footstep planner's messages on std_msgs/Float64MultiArray: encode and decode.

Both messages are 2-D arrays, one row per step, read with the standard layout rule
``value(i, j) = data[data_offset + dim[1].stride * i + j]``. The ``data_offset`` elements in
front of the rows are a documented header (a generic reader skips them as padding).

``footsteps/plan`` (published by the footstep planner node, read by the walk generator and the
ALMotion client):

* header (``data_offset`` = 9): ``time_s`` (the node's ROS clock when the plan was taken, s),
  ``accepted_commands``, ``refused_commands`` (counts since start: a command's effect is the
  first plan whose count went up), then the planted feet now: ``left_x, left_y, left_theta,
  right_x, right_y, right_theta`` (m, rad, frame ``PLAN_FRAME``: the planner's own, where the
  robot was commanded; it starts as ``odom`` and parts from the sensed ``odom`` as the robot
  drifts from its plan, ``nao_motion.footsteps.plan_frame``);
* ``dim[0]``: label ``steps``, size = number of steps (the one in progress first);
* ``dim[1]``: label ``PLAN_FIELDS`` joined by commas, size 16: ``leg`` (+1 LLeg, -1 RLeg),
  ``start_s``, ``end_s`` (the node's ROS clock, s), moving foot at lift-off ``origin_*``, at
  touch-down ``target_*``, support foot ``support_*`` (x, y m and theta rad, frame ``PLAN_FRAME``),
  ``step_height_m``, ``torso_wx``, ``torso_wy`` (rad), ``unchangeable`` (1 inside NAOqi's
  preview window: new commands apply after it, else 0).

``footsteps/request`` (NAOqi's setFootSteps / setFootStepsWithSpeed):

* header (``data_offset`` = 1): ``clear_existing`` (1 or 0);
* ``dim[0]``: label ``steps``, size = number of steps;
* ``dim[1]``: label ``leg,x,y,theta,time_s`` (setFootSteps: cumulative end times, s) or
  ``leg,x,y,theta,speed`` (setFootStepsWithSpeed: normalised speed 0..1), size 5; ``leg`` +1
  LLeg, -1 RLeg; x, y, theta (m, rad) relative to the other foot, as in NAOqi.

``SETTABLE_KEYS`` / ``PER_FOOT_KEYS`` name the node's move-config parameters (NAOqi's settable
gait keys, and their ``Left``/``Right`` per-foot overrides), for the node and the ALMotion client.

Decoding raises :class:`FootstepMessageError` (a ValueError) with the reason when the layout,
the sizes or a value is wrong; the values of a request are validated by the planner itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from std_msgs.msg import Float64MultiArray, MultiArrayDimension

from ..footsteps.footstep import Footstep, Leg
from ..footsteps.gait_config import GAIT_PARAMETERS
from ..footsteps.pose2d import Pose2D, mean_pose

__all__ = [
    "FootstepMessageError", "PLAN_FIELDS", "PLAN_HEADER", "PlannedStep", "FootstepPlan", "encode_plan",
    "decode_plan", "plan_of", "REQUEST_FIELDS_TIMES", "REQUEST_FIELDS_SPEEDS", "FootstepRequest",
    "encode_request", "decode_request", "SETTABLE_KEYS", "FOOT_PREFIXES", "PER_FOOT_KEYS", "PLAN_FRAME",
]

#: The planner's own frame (its plan's poses; a goal_pose in it is taken as is): where the robot
#: was commanded, getRobotPosition(False)'s FRAME_WORLD. Not on /tf.
PLAN_FRAME = "footstep_plan"

#: The node's move-config parameters: NAOqi's settable gait keys, and per-foot overrides of them.
SETTABLE_KEYS = tuple(p.name for p in GAIT_PARAMETERS.values() if p.settable)
FOOT_PREFIXES = ("Left", "Right")
PER_FOOT_KEYS = tuple(f"{side}{key}" for side in FOOT_PREFIXES for key in SETTABLE_KEYS)

PLAN_HEADER = ("time_s", "accepted_commands", "refused_commands",
               "left_x", "left_y", "left_theta", "right_x", "right_y", "right_theta")
PLAN_FIELDS = ("leg", "start_s", "end_s", "origin_x", "origin_y", "origin_theta", "target_x", "target_y",
               "target_theta", "support_x", "support_y", "support_theta", "step_height_m", "torso_wx",
               "torso_wy", "unchangeable")
REQUEST_FIELDS_TIMES = ("leg", "x", "y", "theta", "time_s")
REQUEST_FIELDS_SPEEDS = ("leg", "x", "y", "theta", "speed")
STEPS_LABEL = "steps"
_LEG_CODES = {Leg.LEFT: 1.0, Leg.RIGHT: -1.0}


class FootstepMessageError(ValueError):
    """A footstep message whose layout or values cannot be decoded."""


@dataclass(frozen=True, slots=True)
class PlannedStep:
    """One row of ``footsteps/plan`` (poses in frame odom, m and rad; times on the node's clock, s)."""

    leg: Leg
    start_s: float
    end_s: float
    origin: Pose2D
    target: Pose2D
    support: Pose2D
    step_height_m: float
    torso_wx_rad: float
    torso_wy_rad: float
    unchangeable: bool


@dataclass(frozen=True, slots=True)
class FootstepPlan:
    """A decoded ``footsteps/plan``: planted feet at ``time_s`` and every planned step."""

    time_s: float
    accepted_commands: int
    refused_commands: int
    left: Pose2D
    right: Pose2D
    steps: tuple[PlannedStep, ...]

    def robot_position(self) -> Pose2D:
        """Midpoint of the planted feet with their mean heading (the planner's robot position)."""
        return mean_pose(self.left, self.right)

    def next_robot_position(self) -> Pose2D:
        """Robot position after the last unchangeable step (NAOqi getNextRobotPosition)."""
        feet = {Leg.LEFT: self.left, Leg.RIGHT: self.right}
        for step in self.steps:
            if not step.unchangeable:
                break
            feet[step.leg] = step.target
        return mean_pose(feet[Leg.LEFT], feet[Leg.RIGHT])

    def foot_steps(self) -> list:
        """NAOqi getFootSteps: ``[[left, right], unchangeable, changeable]``, each step
        ``[leg name, [x, y, theta] touch-down pose, seconds from time_s until it ends]``."""
        def fmt(unchangeable: bool) -> list:
            return [[s.leg.value, s.target.as_list(), s.end_s - self.time_s]
                    for s in self.steps if s.unchangeable is unchangeable]

        return [[self.left.as_list(), self.right.as_list()], fmt(True), fmt(False)]


def plan_of(time_s: float, accepted: int, refused: int, left: Pose2D, right: Pose2D,
            steps: tuple[Footstep, ...], unchangeable_count: int) -> FootstepPlan:
    """The plan of a FootstepPlanner's state (its first ``unchangeable_count`` steps unchangeable)."""
    return FootstepPlan(time_s, accepted, refused, left, right, tuple(
        PlannedStep(s.leg, s.start_s, s.end_s, s.origin, s.target, s.support, s.step_height_m,
                    s.torso_wx_rad, s.torso_wy_rad, i < unchangeable_count)
        for i, s in enumerate(steps)))


def _layout(msg: Float64MultiArray, header_size: int, rows: int, fields: tuple[str, ...]) -> None:
    msg.layout.data_offset = header_size
    msg.layout.dim = [
        MultiArrayDimension(label=STEPS_LABEL, size=rows, stride=rows * len(fields)),
        MultiArrayDimension(label=",".join(fields), size=len(fields), stride=len(fields)),
    ]


def encode_plan(plan: FootstepPlan) -> Float64MultiArray:
    msg = Float64MultiArray()
    _layout(msg, len(PLAN_HEADER), len(plan.steps), PLAN_FIELDS)
    data = [plan.time_s, float(plan.accepted_commands), float(plan.refused_commands),
            *plan.left.as_list(), *plan.right.as_list()]
    for s in plan.steps:
        data += [_LEG_CODES[s.leg], s.start_s, s.end_s, *s.origin.as_list(), *s.target.as_list(),
                 *s.support.as_list(), s.step_height_m, s.torso_wx_rad, s.torso_wy_rad,
                 1.0 if s.unchangeable else 0.0]
    msg.data = data
    return msg


def _rows(msg: Float64MultiArray, header_size: int, field_sets: tuple[tuple[str, ...], ...],
          what: str) -> tuple[list[float], list[list[float]], tuple[str, ...]]:
    """(header, rows, fields) of a 2-D array; FootstepMessageError with the reason otherwise."""
    layout = msg.layout
    labels = {",".join(f): f for f in field_sets}
    if len(layout.dim) != 2 or layout.dim[0].label != STEPS_LABEL or layout.dim[1].label not in labels:
        expected = " or ".join(repr(label) for label in labels)
        raise FootstepMessageError(
            f"{what}: layout must have 2 dims labelled {STEPS_LABEL!r} and {expected}, got "
            f"{[d.label for d in layout.dim]}")
    fields = labels[layout.dim[1].label]
    rows, columns = layout.dim[0].size, layout.dim[1].size
    if columns != len(fields) or layout.dim[1].stride != len(fields):
        raise FootstepMessageError(f"{what}: dim[1] size and stride must be {len(fields)}, "
                                   f"got {columns} and {layout.dim[1].stride}")
    if layout.data_offset != header_size:
        raise FootstepMessageError(f"{what}: data_offset must be {header_size}, got {layout.data_offset}")
    data = list(msg.data)
    if len(data) != header_size + rows * columns:
        raise FootstepMessageError(f"{what}: {rows} steps of {columns} values need "
                                   f"{header_size + rows * columns} values, got {len(data)}")
    if not all(math.isfinite(v) for v in data):
        raise FootstepMessageError(f"{what}: a value is NaN or infinite")
    body = data[header_size:]
    return data[:header_size], [body[i * columns:(i + 1) * columns] for i in range(rows)], fields


def _leg(code: float, row: int) -> Leg:
    for leg, value in _LEG_CODES.items():
        if code == value:
            return leg
    raise FootstepMessageError(f"step {row}: leg code {code!r} is neither +1 (LLeg) nor -1 (RLeg)")


def decode_plan(msg: Float64MultiArray) -> FootstepPlan:
    header, rows, _ = _rows(msg, len(PLAN_HEADER), (PLAN_FIELDS,), "footsteps/plan")
    steps = tuple(
        PlannedStep(_leg(r[0], i), r[1], r[2], Pose2D(*r[3:6]), Pose2D(*r[6:9]), Pose2D(*r[9:12]),
                    r[12], r[13], r[14], r[15] != 0.0)
        for i, r in enumerate(rows))
    return FootstepPlan(header[0], int(header[1]), int(header[2]), Pose2D(*header[3:6]), Pose2D(*header[6:9]),
                        steps)


@dataclass(frozen=True, slots=True)
class FootstepRequest:
    """NAOqi's setFootSteps (``with_speed`` False: ``timing`` = end times, s) or
    setFootStepsWithSpeed (``with_speed`` True: ``timing`` = speeds 0..1) arguments."""

    legs: list[str]
    poses: list[list[float]]
    timing: list[float]
    clear_existing: bool
    with_speed: bool


def encode_request(request: FootstepRequest) -> Float64MultiArray:
    """The request as a message; legs must be "LLeg" or "RLeg" (ValueError otherwise)."""
    if not (len(request.legs) == len(request.poses) == len(request.timing)):
        raise FootstepMessageError(f"legs, poses and times/speeds must have the same length (got "
                                   f"{len(request.legs)}, {len(request.poses)}, {len(request.timing)})")
    for i, pose in enumerate(request.poses):
        if len(pose) != 3:
            raise FootstepMessageError(f"pose {i} {pose!r} is not an [x, y, theta] triple")
    msg = Float64MultiArray()
    fields = REQUEST_FIELDS_SPEEDS if request.with_speed else REQUEST_FIELDS_TIMES
    _layout(msg, 1, len(request.legs), fields)
    data = [1.0 if request.clear_existing else 0.0]
    for leg, pose, t in zip(request.legs, request.poses, request.timing):
        data += [_LEG_CODES[Leg.parse(leg)], *(float(v) for v in pose), float(t)]
    msg.data = data
    return msg


def decode_request(msg: Float64MultiArray) -> FootstepRequest:
    header, rows, fields = _rows(msg, 1, (REQUEST_FIELDS_TIMES, REQUEST_FIELDS_SPEEDS), "footsteps/request")
    if not rows:
        raise FootstepMessageError("footsteps/request: no steps")
    if header[0] not in (0.0, 1.0):
        raise FootstepMessageError(f"footsteps/request: clear_existing must be 0 or 1, got {header[0]!r}")
    return FootstepRequest([_leg(r[0], i).value for i, r in enumerate(rows)], [r[1:4] for r in rows],
                           [r[4] for r in rows], header[0] == 1.0, fields == REQUEST_FIELDS_SPEEDS)
