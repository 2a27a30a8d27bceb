"""The nao_motion suite against the simulated NAO (MuJoCo), all on sim time.

    ros2 launch nao_motion sim.launch.py nao_version:=V5 real_time_factor:=1.0 rviz:=true

Same node list and arguments as nao_motion.launch.py (nao_motion.suite) plus the simulator node,
which publishes /clock: use_sim_time defaults to true here, for every node but the simulator
(the clock's source runs on wall time). The simulator is required like the suite: its end
ends the launch.
"""

import importlib.util
from pathlib import Path

from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare

from nao_motion.suite import SIMULATOR

# The suite part is the robot launch file's, so the two can never list different nodes.
_spec = importlib.util.spec_from_file_location("nao_motion_launch", Path(__file__).with_name("nao_motion.launch.py"))
robot_launch = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(robot_launch)


def generate_launch_description():
    simulator = Node(
        package="nao_motion", executable=SIMULATOR.executable, name=SIMULATOR.executable, output="screen",
        parameters=[PathJoinSubstitution([FindPackageShare("nao_motion"), "config", SIMULATOR.config]),
                    {"nao_version": LaunchConfiguration("nao_version"),
                     "real_time_factor": LaunchConfiguration("real_time_factor"),
                     "use_sim_time": False}],  # it makes /clock: on its own time it would wait for itself
        on_exit=robot_launch.required("the simulator"),
    )
    return robot_launch.launch_description(
        robot_launch.arguments(use_sim_time_default="true")
        + [DeclareLaunchArgument("real_time_factor", default_value="1.0",
                                 description="the simulator's speed: 1 = wall time, 0 = as fast as possible")],
        [simulator] + robot_launch.suite_actions(),
    )
