"""The robot adapter's core and its messages (no robot, no DDS): LoLA's joint indexes both ways
for all 25 motors, and every bad input: nothing sent whose arrays differ in length, with a NaN,
or outside the model's limits; nothing without a full, fresh command; the stiffness ramp and the
shutdown."""

import importlib.util
import math

import numpy as np
import pytest

from nao_motion.lola.adapter import SIT_POSTURE, LolaAdapter, LolaAdapterConfig
from nao_motion.lola.joint_indexes import LOLA_JOINT_COUNT, LOLA_JOINT_NAMES, LolaJointMap
from nao_motion.model import NaoModel
from nao_motion.postures import posture

MODEL = NaoModel("V6")
N = MODEL.n_joints
STAND = posture(MODEL, "StandInit")
ALL = np.ones(N, dtype=bool)
HAVE_LOLA_MSGS = importlib.util.find_spec("nao_lola_command_msgs") is not None
needs_lola_msgs = pytest.mark.skipif(not HAVE_LOLA_MSGS, reason="nao_lola's messages are not installed")


def command(adapter, q=STAND, named=ALL, t=0.0):
    return adapter.command(np.array(q, dtype=float), np.array(named, dtype=bool), t)


def started(config=LolaAdapterConfig(), measured=1.0, t=0.0) -> LolaAdapter:
    adapter = LolaAdapter(MODEL, config)
    adapter.set_measured_stiffness(np.full(LOLA_JOINT_COUNT, measured))
    command(adapter, t=t)
    return adapter


# --- joint indexes -------------------------------------------------------------------------
@needs_lola_msgs
@pytest.mark.parametrize("package", ["nao_lola_command_msgs", "nao_lola_sensor_msgs"])
def test_lola_joint_names_are_nao_lolas_joint_indexes(package):
    indexes = importlib.import_module(f"{package}.msg").JointIndexes
    assert indexes.NUMJOINTS == LOLA_JOINT_COUNT == 25
    for i, name in enumerate(LOLA_JOINT_NAMES):
        assert getattr(indexes, name.upper()) == i, name


@pytest.mark.parametrize("lola_index", range(LOLA_JOINT_COUNT), ids=lambda i: LOLA_JOINT_NAMES[i])
def test_each_motor_maps_both_ways(lola_index):
    joints = LolaJointMap(MODEL)
    name = LOLA_JOINT_NAMES[lola_index]
    model_values = np.zeros(N)
    model_values[MODEL.joint_index(name)] = 1.0
    lola = joints.to_lola(model_values, np.zeros(LOLA_JOINT_COUNT))
    assert np.flatnonzero(lola).tolist() == [lola_index]
    back = joints.to_model(lola, np.zeros(N))
    expected = {name, "RHipYawPitch"} if name == "LHipYawPitch" else {name}
    assert {MODEL.joint_names[i] for i in np.flatnonzero(back)} == expected


def test_every_model_joint_but_rhipyawpitch_is_a_motor():
    assert set(LOLA_JOINT_NAMES) == set(MODEL.joint_names) - {"RHipYawPitch"}
    assert len(set(LOLA_JOINT_NAMES)) == LOLA_JOINT_COUNT


def test_a_command_goes_out_in_lola_order():
    q = MODEL.clip_to_limits(STAND + 0.01 * np.arange(N))
    out = started().command(q.copy(), ALL.copy(), 0.1)
    expected = [q[MODEL.joint_index(n)] for n in LOLA_JOINT_NAMES]
    np.testing.assert_allclose(out.positions, expected)


# --- the shared HipYawPitch motor ----------------------------------------------------------
def test_lhipyawpitch_drives_the_motor_when_both_are_named():
    q = STAND.copy()
    q[MODEL.joint_index("LHipYawPitch")], q[MODEL.joint_index("RHipYawPitch")] = -0.2, -0.5
    out = started().command(q, ALL.copy(), 0.1)
    assert out.positions[LOLA_JOINT_NAMES.index("LHipYawPitch")] == pytest.approx(-0.2)


def test_rhipyawpitch_alone_drives_the_motor():
    adapter = started()
    named = np.zeros(N, dtype=bool)
    named[MODEL.joint_index("RHipYawPitch")] = True
    q = STAND.copy()
    q[MODEL.joint_index("RHipYawPitch")] = -0.3
    out = adapter.command(q, named, 0.1)
    assert out.positions[LOLA_JOINT_NAMES.index("LHipYawPitch")] == pytest.approx(-0.3)


# --- nothing without a full command --------------------------------------------------------
@pytest.mark.parametrize("missing", LOLA_JOINT_NAMES)
def test_nothing_is_sent_until_every_motor_was_commanded(missing):
    adapter = LolaAdapter(MODEL)
    adapter.set_measured_stiffness(np.ones(LOLA_JOINT_COUNT))
    named = ALL.copy()
    named[MODEL.joint_index(missing)] = False
    if missing == "LHipYawPitch":  # RHipYawPitch alone would drive the motor
        named[MODEL.joint_index("RHipYawPitch")] = False
    out = command(adapter, named=named)
    assert out.positions is None and out.stiffnesses is None
    assert adapter.missing_motors == [missing]
    only = np.zeros(N, dtype=bool)
    only[MODEL.joint_index(missing)] = True
    out = command(adapter, named=only, t=0.012)
    assert out.positions is not None and len(out.positions) == LOLA_JOINT_COUNT


def test_partial_commands_keep_the_other_joints_last_command():
    adapter = started()
    named = np.zeros(N, dtype=bool)
    named[MODEL.joint_index("HeadYaw")] = True
    q = STAND.copy()
    q[MODEL.joint_index("HeadYaw")] = 0.4
    q[MODEL.joint_index("LKneePitch")] = 1.5  # not named: not taken
    out = adapter.command(q, named, 0.1)
    assert out.positions[LOLA_JOINT_NAMES.index("HeadYaw")] == pytest.approx(0.4)
    assert out.positions[LOLA_JOINT_NAMES.index("LKneePitch")] == pytest.approx(STAND[MODEL.joint_index("LKneePitch")])


def test_no_fresh_command_no_output_and_stale_reported():
    adapter = started(t=0.0)
    assert adapter.fresh(0.05)
    assert not adapter.fresh(0.5) and adapter.command_age_s(0.5) == pytest.approx(0.5)
    # No command: the core is never asked, nothing is sent (the node has no cycle of its own).
    assert LolaAdapter(MODEL).command_age_s(1.0) is None


# --- limits ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", LOLA_JOINT_NAMES)
@pytest.mark.parametrize("side", ["below", "above"])
def test_positions_outside_the_limits_are_clamped(name, side):
    adapter = started()
    i = MODEL.joint_index(name)
    q = STAND.copy()
    q[i] = MODEL.lower[i] - 0.5 if side == "below" else MODEL.upper[i] + 0.5
    out = adapter.command(q, ALL.copy(), 0.1)
    sent = out.positions[LOLA_JOINT_NAMES.index(name)]
    assert MODEL.lower[i] <= sent <= MODEL.upper[i]
    assert sent == pytest.approx(MODEL.lower[i] if side == "below" else MODEL.upper[i]) or name in (
        "HeadPitch", "LAnkleRoll", "RAnkleRoll")  # the coupled limits may be tighter still
    assert adapter.clamped_commands == 1 and name in adapter.last_clamped


def test_coupled_limits_are_kept():
    adapter = started()
    q = STAND.copy()
    q[MODEL.joint_index("HeadYaw")], q[MODEL.joint_index("HeadPitch")] = 2.0, 0.5  # pitch within its own range
    out = adapter.command(q, ALL.copy(), 0.1)
    sent = np.zeros(N)
    adapter.joints.to_model(out.positions, sent)
    np.testing.assert_allclose(MODEL.clip_to_limits(sent), sent)
    assert "HeadPitch" in adapter.last_clamped


def test_every_position_sent_is_finite_and_within_the_limits():
    rng = np.random.default_rng(1)
    adapter = started()
    for k in range(200):
        q = rng.uniform(MODEL.lower - 1.0, MODEL.upper + 1.0)
        out = adapter.command(q, ALL.copy(), 0.1 + 0.012 * k)
        sent = adapter.joints.to_model(out.positions, np.zeros(N))
        assert np.all(np.isfinite(sent))
        assert np.all(sent >= MODEL.lower - 1e-9) and np.all(sent <= MODEL.upper + 1e-9)
        np.testing.assert_allclose(MODEL.clip_to_limits(sent), sent, atol=1e-9)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_non_finite_command_is_refused_whole_with_the_reason(bad):
    adapter = started()
    sent_before, positions_before = adapter.sent_positions, adapter.positions.copy()
    q = STAND.copy()
    q[MODEL.joint_index("HeadYaw")] = 0.3
    q[MODEL.joint_index("LKneePitch")] = bad
    out = adapter.command(q, ALL.copy(), 0.05)
    assert out.positions is None and out.stiffnesses is None
    assert "LKneePitch" in out.refused and "HeadYaw" not in out.refused
    assert adapter.sent_positions == sent_before and adapter.last_command_s == 0.0  # not a fresh command
    np.testing.assert_array_equal(adapter.positions, positions_before)
    # The next good command goes out, without the refused one's other values.
    out = command(adapter, t=0.06)
    assert out.refused is None and np.all(np.isfinite(out.positions))
    assert out.positions[LOLA_JOINT_NAMES.index("HeadYaw")] == pytest.approx(STAND[MODEL.joint_index("HeadYaw")])


def test_a_non_finite_value_of_a_joint_not_named_is_not_read():
    adapter = started()
    q = STAND.copy()
    q[MODEL.joint_index("LKneePitch")] = math.nan
    named = np.zeros(N, dtype=bool)
    named[MODEL.joint_index("HeadYaw")] = True
    out = adapter.command(q, named, 0.05)
    assert out.refused is None and np.all(np.isfinite(out.positions))


def test_a_non_finite_first_command_does_not_count_its_motors_as_commanded():
    adapter = LolaAdapter(MODEL)
    q = STAND.copy()
    q[MODEL.joint_index("HeadYaw")] = math.nan
    assert command(adapter, q=q).refused is not None
    assert len(adapter.missing_motors) == LOLA_JOINT_COUNT


# --- stiffness ----------------------------------------------------------------------------
def test_no_stiffness_before_the_measured_stiffness_is_known():
    adapter = LolaAdapter(MODEL)
    out = command(adapter)
    assert out.positions is not None and out.stiffnesses is None
    assert adapter.needs_measured_stiffness and adapter.ramp_progress(1.0) is None


def test_stiffness_ramps_from_the_measured_to_the_startup_stiffness():
    config = LolaAdapterConfig(startup_stiffness=0.8, stiffness_ramp_s=1.0)
    adapter = LolaAdapter(MODEL, config)
    assert not adapter.set_measured_stiffness(np.full(LOLA_JOINT_COUNT, np.nan))  # refused
    assert not adapter.set_measured_stiffness(np.zeros(3))
    adapter.set_measured_stiffness(np.full(LOLA_JOINT_COUNT, 0.2))
    sent = {t: command(adapter, t=t).stiffnesses.copy() for t in (10.0, 10.5, 11.0)}  # (its buffer)
    np.testing.assert_allclose(sent[10.0], 0.2)
    np.testing.assert_allclose(sent[10.5], 0.5)
    np.testing.assert_allclose(sent[11.0], 0.8)
    assert command(adapter, t=11.1).stiffnesses is None  # unchanged: not sent again
    assert not adapter.needs_measured_stiffness


def test_a_stiff_robot_stays_stiff_at_start_up():
    adapter = started(measured=1.0)
    np.testing.assert_allclose(adapter.stiffnesses, 1.0)


def test_stiffness_requests_are_sent_once_and_clamped():
    adapter = started(LolaAdapterConfig(stiffness_ramp_s=0.0))
    assert command(adapter, t=0.1).stiffnesses is None
    clamped = adapter.set_stiffness(np.array([MODEL.joint_index("HeadYaw"), MODEL.joint_index("LHand")]),
                                    np.array([0.3, 1.7]))
    out = command(adapter, t=0.2)
    assert clamped
    assert out.stiffnesses[LOLA_JOINT_NAMES.index("HeadYaw")] == pytest.approx(0.3)
    assert out.stiffnesses[LOLA_JOINT_NAMES.index("LHand")] == pytest.approx(1.0)
    assert command(adapter, t=0.3).stiffnesses is None
    assert adapter.set_all_stiffness(-1.0)
    np.testing.assert_allclose(command(adapter, t=0.4).stiffnesses, 0.0)


def test_rhipyawpitch_stiffness_applies_to_the_motor_only_alone():
    adapter = started(LolaAdapterConfig(stiffness_ramp_s=0.0))
    l_hyp, r_hyp = MODEL.joint_index("LHipYawPitch"), MODEL.joint_index("RHipYawPitch")
    motor = LOLA_JOINT_NAMES.index("LHipYawPitch")
    adapter.set_stiffness(np.array([r_hyp]), np.array([0.4]))
    assert command(adapter, t=0.1).stiffnesses[motor] == pytest.approx(0.4)
    adapter.set_stiffness(np.array([l_hyp, r_hyp]), np.array([0.6, 0.1]))
    assert command(adapter, t=0.2).stiffnesses[motor] == pytest.approx(0.6)


# --- shutdown -------------------------------------------------------------------------------
def test_shutdown_sit_goes_to_crouch_then_limp():
    config = LolaAdapterConfig(sit_duration_s=2.0, limp_duration_s=0.5)
    adapter = started(config)
    crouch = adapter.joints.to_lola(posture(MODEL, SIT_POSTURE), np.zeros(LOLA_JOINT_COUNT))
    stand = adapter.positions.copy()
    adapter.begin_shutdown(1.0)
    assert command(adapter, t=1.01).positions is None  # the suite is no longer followed
    first = adapter.shutdown_step(1.0)
    np.testing.assert_allclose(first.positions, stand)
    assert first.stiffnesses is None
    middle = adapter.shutdown_step(2.0).positions.copy()
    assert np.all((middle - stand) * (crouch - stand) >= -1e-12)  # on the way
    sat = adapter.shutdown_step(3.0)
    np.testing.assert_allclose(sat.positions, crouch)
    np.testing.assert_allclose(sat.stiffnesses, 1.0)
    half = adapter.shutdown_step(3.25)
    assert half.positions is None
    np.testing.assert_allclose(half.stiffnesses, 0.5)
    assert not adapter.done
    np.testing.assert_allclose(adapter.shutdown_step(3.5).stiffnesses, 0.0)
    assert adapter.done
    assert adapter.shutdown_step(3.6).positions is None and adapter.shutdown_step(3.6).stiffnesses is None


def test_the_sit_down_stays_within_the_limits_from_any_clamped_start():
    # The coupled ankle and head limits are not convex: the straight path from an allowed pose to
    # Crouch can leave them (up to 0.27 rad past ankle roll, unclamped), so every pose is clamped.
    rng = np.random.default_rng(14)
    crouch = LolaJointMap(MODEL).to_lola(posture(MODEL, SIT_POSTURE), np.zeros(LOLA_JOINT_COUNT))
    sent = np.zeros(N)
    for _ in range(300):
        start = MODEL.clip_to_limits(rng.uniform(MODEL.lower, MODEL.upper))
        adapter = started(LolaAdapterConfig(sit_duration_s=2.0, limp_duration_s=0.5))
        command(adapter, q=start, t=0.012)
        adapter.begin_shutdown(1.0)
        for t in np.linspace(1.0, 3.0, 41):
            out = adapter.shutdown_step(t)
            adapter.joints.to_model(out.positions, sent)
            assert np.all(sent >= MODEL.lower - 1e-9) and np.all(sent <= MODEL.upper + 1e-9)
            np.testing.assert_allclose(MODEL.clip_to_limits(sent), sent, atol=1e-9)
        np.testing.assert_allclose(out.positions, crouch)  # and it still ends at Crouch
        assert adapter.clamped_commands == 0  # the sit-down's own clamping is not the suite's


def test_shutdown_limp_only_lowers_the_stiffness():
    adapter = started(LolaAdapterConfig(shutdown="limp", limp_duration_s=0.5))
    adapter.begin_shutdown(1.0)
    out = adapter.shutdown_step(1.0)
    assert out.positions is None
    np.testing.assert_allclose(out.stiffnesses, 1.0)
    np.testing.assert_allclose(adapter.shutdown_step(1.6).stiffnesses, 0.0)
    assert adapter.done


def test_shutdown_hold_and_shutdown_before_any_command_send_nothing():
    held = started(LolaAdapterConfig(shutdown="hold"))
    never = LolaAdapter(MODEL)
    for adapter in (held, never):
        adapter.begin_shutdown(1.0)
        assert adapter.done
        out = adapter.shutdown_step(1.1)
        assert out.positions is None and out.stiffnesses is None


# --- configuration ----------------------------------------------------------------------------
@pytest.mark.parametrize("field, value", [
    ("startup_stiffness", 1.5), ("startup_stiffness", -0.1), ("startup_stiffness", math.nan),
    ("startup_stiffness", 1), ("stiffness_ramp_s", -1.0), ("stiffness_ramp_s", 11.0),
    ("command_timeout_s", 0.0), ("command_timeout_s", math.inf), ("shutdown", "dance"),
    ("sit_duration_s", 3.8), ("limp_duration_s", -0.1), ("sit_duration_s", 5.0),
])
def test_bad_configurations_are_refused_with_the_reason(field, value):
    values = {"sit_duration_s": 2.0, "limp_duration_s": 0.5, field: value}
    config = LolaAdapterConfig(**values)
    reason = config.validate()
    assert reason is not None and field in reason
    with pytest.raises(ValueError, match=field):
        LolaAdapter(MODEL, config)


def test_the_default_configuration_is_valid_and_matches_the_yaml_file():
    import yaml
    from dataclasses import asdict

    from nao_motion.paths import config_file

    assert LolaAdapterConfig().validate() is None
    parameters = yaml.safe_load(config_file("lola_adapter.yaml").read_text())["lola_adapter"]["ros__parameters"]
    for name, default in asdict(LolaAdapterConfig()).items():
        assert parameters[name] == default, name


# --- the messages sent ----------------------------------------------------------------------
@needs_lola_msgs
def test_the_published_messages_have_25_indexes_and_25_values():
    from nao_lola_command_msgs.msg import JointPositions, JointStiffnesses
    from rclpy.serialization import deserialize_message

    from nao_motion.ros.lola_messages import Float32TailImage, float_markers

    indexes = LolaJointMap(MODEL).indexes
    out = started().command(STAND.copy(), ALL.copy(), 0.1)
    for msg_type, field, values in ((JointPositions, "positions", out.positions),
                                    (JointStiffnesses, "stiffnesses", np.full(LOLA_JOINT_COUNT, 0.7))):
        image = Float32TailImage(msg_type(indexes=indexes, **{field: float_markers(LOLA_JOINT_COUNT)}),
                                 float_markers(LOLA_JOINT_COUNT))
        image.values[:] = values
        msg = deserialize_message(bytes(image.buffer), msg_type)
        assert list(msg.indexes) == list(range(LOLA_JOINT_COUNT))
        assert len(getattr(msg, field)) == LOLA_JOINT_COUNT
        np.testing.assert_allclose(getattr(msg, field), values, rtol=1e-6)


@needs_lola_msgs
def test_fsr_forces_keep_nao_lolas_order():
    from nao_lola_sensor_msgs.msg import FSR
    from rclpy.serialization import serialize_message

    from nao_motion.ros.lola_messages import read_float32_tail

    fields = list(FSR.get_fields_and_field_types())
    forces = read_float32_tail(serialize_message(FSR(**{f: float(i) for i, f in enumerate(fields)})), 8)
    assert fields[:4] == ["l_foot_front_left", "l_foot_front_right", "l_foot_back_left", "l_foot_back_right"]
    assert forces.tolist() == list(range(8))
    with pytest.raises(ValueError):
        read_float32_tail(b"\x00\x01\x00\x00" + bytes(8), 8)
