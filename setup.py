"""ament_python package nao_motion (also installable with pip: `pip install -e .`)."""

from glob import glob

from setuptools import find_packages, setup

PACKAGE = "nao_motion"
NODES = {
    "kinematics": "nao_motion.nodes.kinematics_node:main",
    "joint_state_player": "nao_motion.nodes.player_node:main",
    "simulator": "nao_motion.nodes.simulator_node:main",
    "collision_filter": "nao_motion.nodes.collision_filter_node:main",
    "whole_body": "nao_motion.nodes.whole_body_node:main",
    "footstep_planner": "nao_motion.nodes.footstep_planner_node:main",
    "walk": "nao_motion.nodes.walk_node:main",
    "nao_motion_suite": "nao_motion.nodes.suite_node:main",
    "lola_adapter": "nao_motion.nodes.lola_adapter_node:main",
}

setup(
    name=PACKAGE,
    version="0.1.0",
    package_dir={"": "src"},
    packages=find_packages("src"),
    data_files=[
        ("share/ament_index/resource_index/packages", [f"resource/{PACKAGE}"]),
        (f"share/{PACKAGE}", ["package.xml"]),
        (f"share/{PACKAGE}/launch", glob("launch/*.py")),
        (f"share/{PACKAGE}/config", glob("config/*")),
        (f"share/{PACKAGE}/urdf", glob("urdf/*.urdf")),
        (f"share/{PACKAGE}/benchmarks", glob("benchmarks/bench_*.py")),
    ],
    install_requires=["setuptools", "numpy", "scipy", "osqp"],
    zip_safe=True,
    maintainer="nao_motion developers",
    maintainer_email="nao-motion@example.org",
    description="ALMotion-like ROS 2 motion stack for the NAO humanoid: kinematics, self-collision "
    "filtering, footstep planning, LIPM walk, whole-body QP balance, MuJoCo simulator.",
    license="BSD-3-Clause",
    tests_require=["pytest"],
    entry_points={
        "console_scripts": [f"{name} = {target}" for name, target in NODES.items()]
        + ["nao-motion = nao_motion.cli:main"],
    },
)
