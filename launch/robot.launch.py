"""The nao_motion suite on a real NAO V6 through ros-sports' nao_lola, on wall time.

    ros2 launch nao_motion robot.launch.py rviz:=true

Starts the suite (nao_version V6: the 12 ms cycle) and the robot adapter (lola_adapter:
joint_commands -> effectors/joint_positions, joint_stiffness -> effectors/joint_stiffnesses,
sensors/fsr -> fsr/left and fsr/right); nao_lola's own joint_states and imu feed the suite as
they are. nao_lola itself is started by the user on the robot (`ros2 run nao_lola_client
nao_lola_client`, see its README). Ctrl-C: the adapter sits the robot down (Crouch), then sets
it limp (parameter `shutdown`). Same as `nao-motion robot`. The arguments are
nao_motion.launch.py's (nao_version V6 only: LoLA is the V6's); the adapter is required like the
suite: its end ends the launch.
"""

import importlib.util
from pathlib import Path

from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare

from nao_motion.suite import LOLA_ADAPTER

# The suite part is the robot launch file's, so the two can never list different nodes.
_spec = importlib.util.spec_from_file_location("nao_motion_launch", Path(__file__).with_name("nao_motion.launch.py"))
robot_launch = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(robot_launch)


def generate_launch_description():
    adapter = Node(
        package="nao_motion", executable=LOLA_ADAPTER.executable, name=LOLA_ADAPTER.executable, output="screen",
        parameters=[PathJoinSubstitution([FindPackageShare("nao_motion"), "config", LOLA_ADAPTER.config]),
                    {"nao_version": LaunchConfiguration("nao_version"), "use_sim_time": robot_launch.use_sim_time()}],
        remappings=[(topic, LaunchConfiguration(f"{topic}_topic")) for topic in ("joint_commands", "joint_stiffness")],
        # Its stop is the robot's sit-down (sit_duration_s + limp_duration_s, at most 4 s).
        sigterm_timeout="6", sigkill_timeout="6",
        on_exit=robot_launch.required("the robot adapter"),
    )
    return robot_launch.launch_description(robot_launch.arguments(nao_versions=("V6",)),
                                           robot_launch.suite_actions() + [adapter])
