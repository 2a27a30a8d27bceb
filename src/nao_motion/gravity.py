"""Gravity as every model of the project takes it (m/s^2): the walk's preview control (Kajita's
check values were computed with 9.81; 9.8 gives Ks 618.56), its capturability and measured DCM,
and the simulator's push limit."""

GRAVITY_MPS2 = 9.81
