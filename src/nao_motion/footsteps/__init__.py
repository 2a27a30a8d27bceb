"""Footstep planning core (pure Python, standard library only; no rclpy).

NAOqi's locomotion API as plain objects: gait parameters and move configs,
the three footstep-clipping stages, moveTo / move / moveToward /
setFootSteps(WithSpeed) planners, and a time-advanced step queue with
NAOqi's unchangeable preview window. Units: metres, radians, seconds.

Entry point for the ROS adapter: ``FootstepPlannerCycle`` (a ``FootstepPlanner``, its frame
against the walk's odometry, moveTo's closing steps).
"""

from .clipping import (
    EXTREMAL_CLIP_LIMITS,
    ClipLimits,
    avoid_foot_collision,
    clip_foot_with_ellipse,
    clip_footstep,
    clip_footstep_on_gait_config,
    clip_footstep_to_avoid_collision,
    clip_footstep_with_ellipse,
)
from .errors import FootstepError, InvalidCommandError, MoveConfigError
from .foot_boxes import NAO_FOOT_BOXES, FootBoxes
from .footstep import FeetState, Footstep, Leg
from .gait_config import (
    GAIT_PARAMETERS,
    GaitConfig,
    MoveConfig,
    get_move_config,
    parse_move_config,
)
from .move_to_correction import MoveToCorrection, MoveToCorrectionConfig
from .normalized_velocity import normalized_length_to_si_length, normalized_length_to_si_velocity
from .planner import FootstepPlanner, WalkMode
from .planner_cycle import FootstepPlannerCycle
from .pose2d import Pose2D
from .step_queue import DEFAULT_PREVIEW_S, StepQueue

__all__ = [
    "ClipLimits",
    "DEFAULT_PREVIEW_S",
    "EXTREMAL_CLIP_LIMITS",
    "FeetState",
    "FootBoxes",
    "Footstep",
    "FootstepError",
    "FootstepPlanner",
    "FootstepPlannerCycle",
    "GAIT_PARAMETERS",
    "GaitConfig",
    "InvalidCommandError",
    "Leg",
    "MoveConfig",
    "MoveConfigError",
    "MoveToCorrection",
    "MoveToCorrectionConfig",
    "NAO_FOOT_BOXES",
    "Pose2D",
    "StepQueue",
    "WalkMode",
    "avoid_foot_collision",
    "clip_foot_with_ellipse",
    "clip_footstep",
    "clip_footstep_on_gait_config",
    "clip_footstep_to_avoid_collision",
    "clip_footstep_with_ellipse",
    "get_move_config",
    "normalized_length_to_si_length",
    "normalized_length_to_si_velocity",
    "parse_move_config",
]
