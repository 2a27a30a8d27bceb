"""ALMotion's model methods: getTransform, getPosition, getCOM, getAngles, getJointNames,
getLimits, getRobotConfig, with NAOqi's argument order and meaning."""

from __future__ import annotations

from ..kinematics import FRAME_TORSO, SPACE_NAMES
from .client_base import ALMotionError


class KinematicsMethods:
    def _check_space(self, space: int) -> None:
        if space not in SPACE_NAMES:
            raise ALMotionError(f"unknown space {space!r}: use 0 (FRAME_TORSO), 1 (FRAME_WORLD), 2 (FRAME_ROBOT)")

    def _state(self, use_sensor_values: bool):
        return self.fk.compute(self.configuration(bool(use_sensor_values)))

    def getTransform(self, name: str, space: int, useSensorValues: bool) -> list[float]:
        """The 4x4 pose of a chain end, frame or joint in `space`, row-major as 16 floats (NAOqi)."""
        self._check_space(space)
        if not self.fk.has_frame(name):
            raise ALMotionError(f"unknown chain or frame {name!r}")
        t = self.fk.transform_in_space(self._state(useSensorValues), name, space)
        return [float(v) for v in t.reshape(-1)]

    def getPosition(self, name: str, space: int, useSensorValues: bool) -> list[float]:
        """(x, y, z, wx, wy, wz) in metres and radians."""
        self._check_space(space)
        if not self.fk.has_frame(name):
            raise ALMotionError(f"unknown chain or frame {name!r}")
        return [float(v) for v in self.fk.position_in_space(self._state(useSensorValues), name, space)]

    def getCOM(self, pName: str, pSpace: int, pUseSensorValues: bool) -> list[float]:
        """Centre of mass of "Body" or a chain, (x, y, z) in metres in the given space."""
        self._check_space(pSpace)
        state = self._state(pUseSensorValues)
        try:
            com = self.fk.com(state, pName)
        except KeyError as err:
            raise ALMotionError(str(err)) from None
        if pSpace == FRAME_TORSO:
            return [float(v) for v in com]
        t = self.fk.transform_in_space(state, "Torso", pSpace)
        return [float(v) for v in t[:3, :3] @ com + t[:3, 3]]

    def getAngles(self, names, useSensors: bool) -> list[float]:
        q = self.configuration(bool(useSensors))
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
