"""Gait parameters, move-config parsing and getMoveConfig (seed 003 table)."""

import math

import pytest

from nao_motion.footsteps import (
    GAIT_PARAMETERS,
    FootstepPlanner,
    GaitConfig,
    MoveConfigError,
    get_move_config,
    parse_move_config,
)

# NAOqi's table (seed 003, algorithms.md): default, minimum, maximum, settable.
TABLE = {
    "MaxStepX": (0.040, 0.001, 0.080, True),
    "MinStepX": (-0.040, -0.040, -0.040, False),
    "MaxStepY": (0.140, 0.101, 0.160, True),
    "MaxStepTheta": (0.349, 0.001, 0.524, True),
    "MaxStepFrequency": (1.0, 0.0, 1.0, True),
    "MinStepPeriod": (0.42, 0.42, 0.42, False),
    "MaxStepPeriod": (0.6, 0.6, 0.6, False),
    "StepHeight": (0.020, 0.005, 0.040, True),
    # 0.122 in the table is 7 degrees rounded; the seed's example sets -7 degrees.
    "TorsoWx": (0.0, -math.radians(7), math.radians(7), True),
    "TorsoWy": (0.0, -math.radians(7), math.radians(7), True),
    "FootSeparation": (0.1, 0.1, 0.1, False),
    "MinFootSeparation": (0.088, 0.088, 0.088, False),
}


def test_parameter_table_matches_naoqi():
    assert set(GAIT_PARAMETERS) == set(TABLE)
    for name, (default, lo, hi, settable) in TABLE.items():
        p = GAIT_PARAMETERS[name]
        assert (p.default, p.minimum, p.maximum, p.settable) == (default, lo, hi, settable), name
        assert GaitConfig().value(name) == default


def test_get_move_config_kinds():
    settable = [n for n, row in TABLE.items() if row[3]]
    for kind, col in (("Default", 0), ("Min", 1), ("Max", 2)):
        got = get_move_config(kind)
        assert [k for k, _ in got] == settable
        assert dict(got) == {n: TABLE[n][col] for n in settable}
    with pytest.raises(MoveConfigError, match="unknown move config kind"):
        get_move_config("max")
    assert FootstepPlanner.get_move_config("Max") == get_move_config("Max")


def test_common_keys_apply_to_both_feet():
    mc = parse_move_config([["MaxStepX", 0.06], ["StepHeight", 0.03]])
    for gait in (mc.left, mc.right):
        assert gait.max_step_x_m == 0.06 and gait.step_height_m == 0.03
        assert gait.max_step_y_m == 0.14  # untouched -> default
    assert mc.frequency == 1.0


def test_per_foot_keys_seed_example():
    mc = parse_move_config(
        [
            ["LeftStepHeight", 0.02],
            ["RightStepHeight", 0.005],
            ["RightTorsoWx", -7.0 * math.pi / 180],
            ["TorsoWy", 5.0 * math.pi / 180],
        ]
    )
    assert mc.left.step_height_m == 0.02 and mc.right.step_height_m == 0.005
    assert mc.right.torso_wx_rad == pytest.approx(-7.0 * math.pi / 180)
    assert mc.left.torso_wx_rad == 0.0  # "for the left foot, the default value (0.) will be used"
    assert mc.left.torso_wy_rad == mc.right.torso_wy_rad == pytest.approx(5.0 * math.pi / 180)


def test_prefixed_key_overrides_common_key_in_any_order():
    a = parse_move_config([["LeftMaxStepX", 0.02], ["MaxStepX", 0.07]])
    b = parse_move_config([["MaxStepX", 0.07], ["LeftMaxStepX", 0.02]])
    for mc in (a, b):
        assert mc.left.max_step_x_m == 0.02 and mc.right.max_step_x_m == 0.07


def test_frequency_and_mapping_style_input():
    mc = parse_move_config({"Frequency": 0.5, "MaxStepTheta": 0.2})
    assert mc.frequency == 0.5 and mc.left.max_step_theta_rad == 0.2


@pytest.mark.parametrize(
    "entries, reason",
    [
        ([["MaxStepX", 0.09]], "MaxStepX=0.09 is outside"),
        ([["MaxStepX", 0.0]], "outside"),
        ([["MaxStepY", 0.1]], "outside"),
        ([["StepHeight", 0.05]], "outside"),
        ([["TorsoWx", -0.2]], "outside"),
        ([["TorsoWy", 0.1222]], "outside"),
        ([["MinStepX", -0.04]], "not user-settable"),
        ([["FootSeparation", 0.1]], "not user-settable"),
        ([["MinFootSeparation", 0.09]], "not user-settable"),
        ([["MaxStepPeriod", 0.6]], "not user-settable"),
        ([["MaxStepZ", 0.01]], "unknown key 'MaxStepZ'"),
        ([["LeftFrequency", 0.5]], "unknown key"),
        ([["Frequency", 1.5]], "Frequency=1.5 is outside"),
        ([["MaxStepX", float("nan")]], "not a finite number"),
        ([["MaxStepX", float("inf")]], "not a finite number"),
        ([["MaxStepX", True]], "not a finite number"),
        ([["MaxStepX", "0.05"]], "not a finite number"),
        ([["MaxStepX", 0.05], ["MaxStepX", 0.06]], "more than once"),
        ([["MaxStepX"]], "not a [key, value] pair"),
        ([[3, 0.05]], "not a string"),
        ("MaxStepX", "list of [key, value] pairs"),
    ],
)
def test_refusals_name_the_reason(entries, reason):
    with pytest.raises(MoveConfigError, match=reason.replace("[", r"\[").replace("]", r"\]")) as e:
        parse_move_config(entries)
    assert isinstance(e.value, ValueError)


def test_every_bad_entry_is_reported_and_nothing_applied():
    with pytest.raises(MoveConfigError) as e:
        parse_move_config([["MaxStepX", 0.06], ["Bogus", 1], ["MaxStepY", 0.5]])
    msg = str(e.value)
    assert "unknown key 'Bogus'" in msg and "MaxStepY=0.5" in msg and "MaxStepX=" not in msg


def test_move_to_refuses_per_foot_keys_and_frequency():
    with pytest.raises(MoveConfigError, match="per-foot keys"):
        parse_move_config([["LeftMaxStepX", 0.02]], allow_per_foot=False)
    with pytest.raises(MoveConfigError, match="Frequency is only accepted"):
        parse_move_config([["Frequency", 0.5]], allow_frequency=False)


def test_gait_config_validates_construction():
    with pytest.raises(MoveConfigError, match="not user-settable"):
        GaitConfig(min_step_x_m=-0.05)
    with pytest.raises(MoveConfigError, match="outside"):
        GaitConfig(max_step_x_m=0.2)


@pytest.mark.parametrize(
    "frequency, max_step_frequency, period",
    [(0.0, 1.0, 0.6), (1.0, 1.0, 0.42), (0.5, 1.0, 0.51), (1.0, 0.5, 0.51), (1.0, 0.0, 0.6)],
)
def test_step_period_mapping(frequency, max_step_frequency, period):
    gait = GaitConfig(max_step_frequency=max_step_frequency)
    assert gait.step_period_s(frequency) == pytest.approx(period)
    assert 0.42 <= gait.step_period_s(frequency) <= 0.6


def test_bad_config_keeps_current_plan():
    planner = FootstepPlanner()
    planner.move_to(0.5, 0.0, 0.0)
    before = planner.steps()
    with pytest.raises(MoveConfigError):
        planner.move_to(1.0, 0.0, 0.0, [["MaxStepX", 0.06], ["StepHeight", 1.0]])
    with pytest.raises(MoveConfigError):
        planner.move(0.05, 0.0, 0.0, [["MaxStepZ", 0.06]])
    with pytest.raises(MoveConfigError):
        planner.move_toward(0.5, 0.0, 0.0, [["Frequency", -0.1]])
    assert planner.steps() == before
