"""The FK's model / data split (a state prepared once and refilled) and the HipYawPitch helpers."""

import numpy as np

from nao_motion.kinematics import ForwardKinematics
from nao_motion.model import NaoModel, motor_fold, motor_of

MODEL = NaoModel()
FIELDS = ("q", "link_poses", "joint_local_poses", "frame_poses", "link_com_torso_m", "com_torso_m", "joint_angles")


def test_a_prepared_state_is_refilled_in_place_with_what_a_new_state_holds():
    fk = ForwardKinematics(MODEL)
    state = fk.new_state()
    buffers = {name: getattr(state, name) for name in FIELDS}
    for q in np.random.default_rng(5).uniform(MODEL.lower, MODEL.upper, size=(20, MODEL.n_joints)):
        assert fk.compute(q, out=state) is state
        fresh = fk.compute(q)
        for name in FIELDS:
            assert getattr(state, name) is buffers[name]  # the same buffers, refilled
            np.testing.assert_array_equal(getattr(state, name), getattr(fresh, name))
    assert state.q[MODEL.joint_index("RHipYawPitch")] == state.q[MODEL.joint_index("LHipYawPitch")]


def test_links_only_computes_the_link_poses_and_leaves_the_frames_and_com_alone():
    fk = ForwardKinematics(MODEL)
    state = fk.new_state()
    q0, q1 = np.random.default_rng(6).uniform(MODEL.lower, MODEL.upper, size=(2, MODEL.n_joints))
    before = fk.compute(q0, out=state)
    frames, com = before.frame_poses.copy(), before.com_torso_m.copy()
    fk.compute(q1, out=state, links_only=True)
    np.testing.assert_array_equal(state.link_poses, fk.compute(q1).link_poses)
    np.testing.assert_array_equal(state.frame_poses, frames)
    np.testing.assert_array_equal(state.com_torso_m, com)


def test_the_hip_yaw_pitch_fold_adds_the_right_joint_onto_the_left_motor():
    joints = ("LHipYawPitch", "RHipYawPitch", "RHipRoll")
    motors = ("LHipYawPitch", "RHipRoll")
    assert motor_of("RHipYawPitch") == "LHipYawPitch" and motor_of("RHipRoll") == "RHipRoll"
    np.testing.assert_array_equal(motor_fold(joints, motors), [[1, 0], [1, 0], [0, 1]])
    q = np.arange(MODEL.n_joints, dtype=float)
    copy = MODEL.mimic_hip_yaw_pitch(q)
    assert copy is not q and copy[MODEL.joint_index("RHipYawPitch")] == q[MODEL.joint_index("LHipYawPitch")]
    assert MODEL.mimic_hip_yaw_pitch(q, out=q) is q
    np.testing.assert_array_equal(q, copy)
