"""QoS profiles shared by the nodes (they match tf2_ros and robot_state_publisher)."""

from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

# tf2_ros DynamicBroadcasterQoS / StaticBroadcasterQoS.
TF_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.VOLATILE)
TF_STATIC_QOS = QoSProfile(
    depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL,
    history=HistoryPolicy.KEEP_LAST,
)
# Latched descriptions (robot_description): a late subscriber still receives the last message.
LATCHED_QOS = TF_STATIC_QOS
# Per-cycle streams: keep only a few, a late sample is worthless.
CYCLE_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.VOLATILE)
# The message that drives a node's cycle (joint_states): only the newest. A backlog never drains
# in an executor that takes one message per subscription per wake-up: one hiccup would leave the
# cycle that many messages behind for good. A superseded message is worthless; it is skipped.
LATEST_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.VOLATILE)
