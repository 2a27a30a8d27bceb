"""The nao_motion suite against a real robot driver (naoqi_driver2, nao_lola, ros2_control...).

    ros2 launch nao_motion nao_motion.launch.py nao_version:=V6 \
        joint_states_topic:=/joint_states joint_commands_topic:=/effectors/joint_positions rviz:=true

Nodes, their parameter files and internal remaps come from nao_motion.suite (the same list
`nao-motion sim` uses); the arguments remap the robot-facing topics to the driver's names.
composed:=true (the default) runs the suite's nodes in one process (nao_motion_suite: the same
nodes, names, parameters and topics, one executor; about half the CPU), composed:=false one
process per node. use_sim_time (default false here) goes to every node, rviz included.

A launch never leaves processes behind: its arguments are checked (choices; rviz:=true needs
rviz2 installed) before any process starts, and a process the suite cannot work without (here
the suite's, in sim.launch.py the simulator too, in robot.launch.py the adapter) takes the
launch down when it ends, whatever the reason. rviz is only a viewer: closing it leaves the
robot's control running.

sim.launch.py and robot.launch.py build on this file (`launch_description`), so the three can
never list different nodes or arguments.
"""

from ament_index_python.packages import PackageNotFoundError
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction, Shutdown
from launch.condition import Condition
from launch.conditions import IfCondition, UnlessCondition
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution, SubstitutionFailure
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from launch_ros.substitutions import ExecutableInPackage, FindPackageShare

from nao_motion.suite import SUITE_PROCESS, suite_nodes

ROBOT_TOPICS = ("joint_states", "joint_commands", "joint_stiffness", "imu")
BOOLEAN = ["true", "false"]  # what the composed process's `-p name:=value` and IfCondition both read as a bool
RVIZ = ("rviz2", "rviz2")  # package, executable


def use_sim_time() -> ParameterValue:
    return ParameterValue(LaunchConfiguration("use_sim_time"), value_type=bool)


def required(what: str) -> Shutdown:
    """`on_exit` of a process the launch cannot work without: its end (a crash, a kill, its own Ctrl-C)
    ends the launch. Once the launch is ending anyway, its end is the expected one and says nothing."""
    return Shutdown(reason=f"{what} exited: the launch cannot work without it",
                    condition=Condition(predicate=lambda context: not context.is_shutdown))


def arguments(nao_versions: tuple[str, ...] = ("V5", "V6"), use_sim_time_default: str = "false") -> list:
    """The arguments of every launch file; `nao_versions[0]` is the default."""
    return [
        DeclareLaunchArgument("nao_version", default_value=nao_versions[0], choices=list(nao_versions),
                              description="the robot's version"),
        DeclareLaunchArgument(
            "use_sim_time", default_value=use_sim_time_default, choices=BOOLEAN,
            description="the nodes, rviz too, on /clock's time (a simulator, /clock's source, on wall time)"),
        DeclareLaunchArgument("rviz", default_value="false", choices=BOOLEAN,
                              description="rviz2 with config/nao_motion.rviz (refused where rviz2 is not installed)"),
        DeclareLaunchArgument("composed", default_value="true", choices=BOOLEAN,
                              description="the suite's nodes in one process (false: one process per node)"),
        *[DeclareLaunchArgument(f"{t}_topic", default_value=t, description=f"the robot's {t} topic")
          for t in ROBOT_TOPICS],
    ]


def refuse_missing_rviz(context) -> None:
    """rviz:=true where rviz2 is not installed fails the launch here, before any process starts: found
    missing when its own Node started, it left the processes started before it running."""
    if LaunchConfiguration("rviz").perform(context) != "true":
        return None
    try:
        ExecutableInPackage(package=RVIZ[0], executable=RVIZ[1]).perform(context)  # the lookup its Node makes
    except (PackageNotFoundError, SubstitutionFailure) as error:
        raise RuntimeError(f"rviz:=true, but rviz2 is not installed ({error.args[0]}); nothing was started. "
                           "Install it with the ROS 2 distribution (ros-<distro>-rviz2) or launch without rviz:=true"
                           ) from None
    return None


def suite_actions() -> list[Node]:
    share = FindPackageShare("nao_motion")
    robot_remaps = [(topic, LaunchConfiguration(f"{topic}_topic")) for topic in ROBOT_TOPICS]
    separate = UnlessCondition(LaunchConfiguration("composed"))
    # The composed process gives each node its own parameter file and remaps; its `-p` values
    # apply to every node and win over those files (nao_motion.nodes.suite_node).
    composed = Node(
        package="nao_motion", executable=SUITE_PROCESS.executable, output="screen",
        ros_arguments=["-p", ["nao_version:=", LaunchConfiguration("nao_version")],
                       "-p", ["use_sim_time:=", LaunchConfiguration("use_sim_time")]],
        remappings=robot_remaps, condition=IfCondition(LaunchConfiguration("composed")),
        on_exit=required("the suite"),
    )
    return [composed] + [
        Node(
            package="nao_motion", executable=spec.executable, name=spec.executable, output="screen",
            parameters=[PathJoinSubstitution([share, "config", spec.config]),
                        {"nao_version": LaunchConfiguration("nao_version"), "use_sim_time": use_sim_time()}],
            # A node's own remap onto a robot topic goes to the driver's name (rcl does not chain rules).
            remappings=[(source, LaunchConfiguration(f"{target}_topic") if target in ROBOT_TOPICS else target)
                        for source, target in spec.remaps.items()] + robot_remaps, condition=separate,
            on_exit=required(f"the suite's {spec.executable} node"),
        )
        for spec in suite_nodes()
    ]


def rviz_node() -> Node:
    """Not required: closing the viewer leaves the robot's control running (on a robot, a closed
    window must not sit it down)."""
    config = PathJoinSubstitution([FindPackageShare("nao_motion"), "config", "nao_motion.rviz"])
    return Node(package=RVIZ[0], executable=RVIZ[1], arguments=["-d", config],
                parameters=[{"use_sim_time": use_sim_time()}], condition=IfCondition(LaunchConfiguration("rviz")))


def launch_description(launch_arguments: list, processes: list) -> LaunchDescription:
    """The arguments, the refusals, then the processes (each required one with `on_exit=required(...)`)
    and rviz: a refusal comes before anything starts."""
    return LaunchDescription(launch_arguments + [OpaqueFunction(function=refuse_missing_rviz)]
                             + processes + [rviz_node()])


def generate_launch_description():
    return launch_description(arguments(), suite_actions())
