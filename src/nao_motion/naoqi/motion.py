"""NAOqi's ``motion`` module: the constants ALMotion's callers pass (frames, axis masks, unit
conversions), with NAOqi's names and values."""

import math

# Cartesian frames (getPosition, getTransform, setObstacle, ...).
FRAME_TORSO = 0
FRAME_WORLD = 1
FRAME_ROBOT = 2
# NAOqi 1.x's names of the same frames.
SPACE_TORSO = FRAME_TORSO
SPACE_WORLD = FRAME_WORLD
SPACE_NAO = FRAME_ROBOT

# Which of a 6-D command's axes are controlled: x y z (translation), wx wy wz (rotation).
AXIS_MASK_X = 1
AXIS_MASK_Y = 2
AXIS_MASK_XY = 3
AXIS_MASK_Z = 4
AXIS_MASK_WX = 8
AXIS_MASK_WY = 16
AXIS_MASK_WZ = 32
AXIS_MASK_WYWZ = 48
AXIS_MASK_VEL = 7
AXIS_MASK_ROT = 56
AXIS_MASK_ALL = 63
AXIS_MASK_NONE = 0

TO_RAD = math.pi / 180.0
TO_DEG = 180.0 / math.pi
