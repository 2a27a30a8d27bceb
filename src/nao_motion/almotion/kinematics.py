"""ALMotion's model methods: getTransform, getPosition, getCOM, getAngles, getJointNames,
getLimits, getRobotConfig, with NAOqi's argument order and meaning.

Spaces: FRAME_TORSO; FRAME_ROBOT (on the floor under the feet, the feet's mean heading; with
useSensorValues its vertical is the IMU's, else the lower sole lies flat); FRAME_WORLD (the
robot frame placed by the odometry, ``world_frame``).
"""

from __future__ import annotations

import numpy as np

from .. import spatial
from ..kinematics import FRAME_TORSO, FRAME_WORLD, SPACE_NAMES
from .client_base import ALMotionError


class KinematicsMethods:
    def _check_space(self, space: int) -> None:
        if space not in SPACE_NAMES:
            raise ALMotionError(f"unknown space {space!r}: use 0 (FRAME_TORSO), 1 (FRAME_WORLD), 2 (FRAME_ROBOT)")

    def _transform(self, name: str, space: int, use_sensor_values: bool, state=None) -> np.ndarray:
        """4x4 pose of `name` in `space` for the sensed or commanded pose (``state`` if given)."""
        self._check_space(space)
        if not self.fk.has_frame(name):
            raise ALMotionError(f"unknown chain or frame {name!r}")
        use_sensors = bool(use_sensor_values)
        if state is None:
            state = self.fk.compute(self._configuration(use_sensors))
        if space == FRAME_TORSO:
            return self.fk.pose(state, name)
        attitude = self._measured_attitude() if use_sensors else None
        world = self._world_or_robot(use_sensors, state, attitude) if space == FRAME_WORLD else None
        return self.fk.transform_in_space(state, name, space, world_from_robot=world, torso_attitude=attitude)

    def getTransform(self, name: str, space: int, useSensorValues: bool) -> list[float]:
        """The 4x4 pose of a chain end, frame or joint in `space`, row-major as 16 floats (NAOqi)."""
        return [float(v) for v in self._transform(name, space, useSensorValues).reshape(-1)]

    def getPosition(self, name: str, space: int, useSensorValues: bool) -> list[float]:
        """(x, y, z, wx, wy, wz) in metres and radians."""
        return [float(v) for v in spatial.position6d_from_transform(self._transform(name, space, useSensorValues))]

    def getCOM(self, pName: str, pSpace: int, pUseSensorValues: bool) -> list[float]:
        """Centre of mass of "Body" or a chain, (x, y, z) in metres in the given space."""
        self._check_space(pSpace)
        state = self.fk.compute(self._configuration(bool(pUseSensorValues)))
        try:
            com = self.fk.com(state, pName)
        except KeyError as err:
            raise ALMotionError(str(err)) from None
        t = self._transform("Torso", pSpace, pUseSensorValues, state)
        return [float(v) for v in t[:3, :3] @ com + t[:3, 3]]

    def getAngles(self, names, useSensors: bool) -> list[float]:
        q = self._configuration(bool(useSensors))
        return [float(q[self.model.joint_index(n)]) for n in self._joint_names(names)]

    def getJointNames(self, name: str) -> list[str]:
        try:
            return self.model.names_for(name)
        except KeyError as err:
            raise ALMotionError(str(err)) from None

    def getLimits(self, name: str) -> list[list[float]]:
        """[minAngle, maxAngle, maxVelocity, maxTorque] per joint (rad, rad/s, N m)."""
        out = []
        for n in self._joint_names(name):
            j = self.model.joint(n)
            out.append([j.lower, j.upper, j.max_velocity, j.max_effort])
        return out

    def getRobotConfig(self) -> list[list[str]]:
        """NAOqi's [[keys], [values]] description of the robot."""
        version = self.model.version.replace("V", "VERSION_") + "0"
        keys = ["Model Type", "Head Version", "Body Version", "Laser", "Legs", "Arms", "Extended Arms",
                "Hands", "Arm Version", "Number of Legs", "Number of Arms", "Number of Hands"]
        values = ["naoH25", version, version, "False", "True", "True", "True", "True", version, "2", "2", "2"]
        return [keys, values]

    def _joint_names(self, names) -> list[str]:
        names = [names] if isinstance(names, str) else list(names)
        out = []
        for n in names:
            try:
                out += self.model.names_for(n)
            except KeyError as err:
                raise ALMotionError(str(err)) from None
        return out
