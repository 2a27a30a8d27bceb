"""The node suite: one list read by the launch files, the `nao-motion sim` bringup and the tests.

Each entry names the console script (`ros2 run nao_motion <executable>`), the Python module
with its `main` (so the suite also starts where no ROS 2 distribution is installed), its
parameter file in config/, and its topic remaps in the full suite (see shared notes: the
collision filter feeds the whole-body node, which owns `joint_commands`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# The collision filter's command in the full suite: the whole-body node's articular wish.
SAFE_JOINT_COMMANDS = "collision_filter/safe_joint_commands"


@dataclass(frozen=True)
class NodeSpec:
    executable: str
    module: str
    config: str
    remaps: dict = field(default_factory=dict)
    role: str = "suite"  # "suite" (runs on the robot), "simulator", "adapter" (to a robot driver), or "tool"
    node_class: str = ""  # the rclpy Node subclass in `module` (composed in one process by suite_node)


NODES: tuple[NodeSpec, ...] = (
    NodeSpec("kinematics", "nao_motion.nodes.kinematics_node", "kinematics.yaml", node_class="KinematicsNode"),
    # Its robot-facing joint_commands feed the whole-body node, which owns joint_commands and
    # whose command the filter's motions start from; alone (no whole-body node) it drives the
    # robot with no remaps.
    NodeSpec("collision_filter", "nao_motion.nodes.collision_filter_node", "collision_filter.yaml",
             remaps={"joint_commands": SAFE_JOINT_COMMANDS,
                     "collision_filter/robot_commands": "joint_commands"}, node_class="CollisionFilterNode"),
    NodeSpec("whole_body", "nao_motion.nodes.whole_body_node", "whole_body.yaml", node_class="WholeBodyNode"),
    NodeSpec("footstep_planner", "nao_motion.nodes.footstep_planner_node", "footstep_planner.yaml",
             node_class="FootstepPlannerNode"),
    NodeSpec("walk", "nao_motion.nodes.walk_node", "walk.yaml", node_class="WalkNode"),
)
# The same nodes in one process (nao_motion.nodes.suite_node): its `config` is none of its own,
# each node reads its own file.
SUITE_PROCESS = NodeSpec("nao_motion_suite", "nao_motion.nodes.suite_node", "")
SIMULATOR = NodeSpec("simulator", "nao_motion.nodes.simulator_node", "simulator.yaml", role="simulator")
PLAYER = NodeSpec("joint_state_player", "nao_motion.nodes.player_node", "player.yaml", role="tool")
# Between the suite and ros-sports' nao_lola on a V6 (the robot bringup, `nao-motion robot`).
LOLA_ADAPTER = NodeSpec("lola_adapter", "nao_motion.nodes.lola_adapter_node", "lola_adapter.yaml", role="adapter")


def suite_nodes() -> tuple[NodeSpec, ...]:
    return NODES
