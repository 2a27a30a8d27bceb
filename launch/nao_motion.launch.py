"""The nao_motion suite against a real robot driver (naoqi_driver2, nao_lola, ros2_control...).

    ros2 launch nao_motion nao_motion.launch.py nao_version:=V6 \
        joint_states_topic:=/joint_states joint_commands_topic:=/effectors/joint_positions rviz:=true

Nodes, their parameter files and internal remaps come from nao_motion.suite (the same list
`nao-motion sim` uses); the arguments remap the robot-facing topics to the driver's names.
composed:=true (the default) runs the suite's nodes in one process (nao_motion_suite: the same
nodes, names, parameters and topics, one executor; about half the CPU), composed:=false one
process per node.
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.conditions import IfCondition, UnlessCondition
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare

from nao_motion.suite import SUITE_PROCESS, suite_nodes

ROBOT_TOPICS = ("joint_states", "joint_commands", "joint_stiffness", "imu")


def suite_actions(use_sim_time):
    share = FindPackageShare("nao_motion")
    robot_remaps = [(topic, LaunchConfiguration(f"{topic}_topic")) for topic in ROBOT_TOPICS]
    separate = UnlessCondition(LaunchConfiguration("composed"))
    # The composed process gives each node its own parameter file and remaps; its `-p` values
    # apply to every node and win over those files (nao_motion.nodes.suite_node).
    composed = Node(
        package="nao_motion", executable=SUITE_PROCESS.executable, output="screen",
        ros_arguments=["-p", ["nao_version:=", LaunchConfiguration("nao_version")],
                       "-p", f"use_sim_time:={'true' if use_sim_time else 'false'}"],
        remappings=robot_remaps, condition=IfCondition(LaunchConfiguration("composed")),
    )
    return [composed] + [
        Node(
            package="nao_motion", executable=spec.executable, name=spec.executable, output="screen",
            parameters=[PathJoinSubstitution([share, "config", spec.config]),
                        {"nao_version": LaunchConfiguration("nao_version"), "use_sim_time": use_sim_time}],
            # A node's own remap onto a robot topic goes to the driver's name (rcl does not chain rules).
            remappings=[(source, LaunchConfiguration(f"{target}_topic") if target in ROBOT_TOPICS else target)
                        for source, target in spec.remaps.items()] + robot_remaps, condition=separate,
        )
        for spec in suite_nodes()
    ]


def common_arguments():
    return [
        DeclareLaunchArgument("nao_version", default_value="V5", description="V5 or V6"),
        DeclareLaunchArgument("rviz", default_value="false", description="start rviz2 with config/nao_motion.rviz"),
        DeclareLaunchArgument("composed", default_value="true",
                              description="the suite's nodes in one process (false: one process per node)"),
        *[DeclareLaunchArgument(f"{t}_topic", default_value=t, description=f"the robot's {t} topic")
          for t in ROBOT_TOPICS],
    ]


def rviz_action():
    config = PathJoinSubstitution([FindPackageShare("nao_motion"), "config", "nao_motion.rviz"])
    return Node(package="rviz2", executable="rviz2", arguments=["-d", config], condition=IfCondition(
        LaunchConfiguration("rviz")))


def generate_launch_description():
    return LaunchDescription(common_arguments() + suite_actions(False) + [rviz_action()])
