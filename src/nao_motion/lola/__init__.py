"""A NAO V6 through LoLA, as ros-sports' nao_lola presents it: its joint indexes and the robot
adapter's core (plain Python, no rclpy); the node is ``nao_motion.nodes.lola_adapter_node``."""
