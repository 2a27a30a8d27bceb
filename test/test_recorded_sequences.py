"""The balancer and the collision filter give the recorded commands on the recorded inputs
(test/recorded_sequences.py says how the fixture was made).

Two checks per scenario:

* solved to OSQP's tightest tolerances, today's QP gives the recorded exact commands: the tasks,
  constraints and their composition are the same problem as when the fixture was recorded;
* with the default solver settings the commands stay as close to the exact ones as the settings
  of the recording did (at most twice their largest distance, or 0.1 mrad): the solver's
  tolerances, warm start and iteration budget cost no more accuracy than before.
"""

import numpy as np
import pytest

from nao_motion.model import NaoModel
from recorded_sequences import (AVOIDANCE_SCENARIOS, BALANCER_SCENARIOS, FIXTURE, replay_avoidance,
                                replay_balancer, tight_avoidance_config, tight_balancer_config)

MODEL = NaoModel()
EXACT_TOLERANCE_RAD = 1e-6
KINDS = {"balancer": (replay_balancer, tight_balancer_config), "avoidance": (replay_avoidance, tight_avoidance_config)}


@pytest.fixture(scope="module")
def recorded():
    with np.load(FIXTURE) as data:
        return {key: data[key] for key in data.files}


def scenario(recorded, kind, name):
    prefix = f"{kind}/{name}/"
    inputs = {key[len(prefix) + 3:]: value for key, value in recorded.items() if key.startswith(prefix + "in/")}
    return inputs, recorded[prefix + "q"], recorded[prefix + "outcome"], recorded[prefix + "default_error_rad"]


CASES = [("balancer", name) for name in BALANCER_SCENARIOS] + [("avoidance", name) for name in AVOIDANCE_SCENARIOS]


@pytest.mark.parametrize("kind, name", CASES)
def test_exact_solutions_are_the_recorded_commands(recorded, kind, name):
    inputs, q_exact, outcomes, _ = scenario(recorded, kind, name)
    replay, tight = KINDS[kind]
    out = replay(MODEL, name, inputs, tight())
    np.testing.assert_array_equal(out["outcome"], outcomes)
    error = np.max(np.abs(out["q"] - q_exact), axis=1)
    assert error.max() <= EXACT_TOLERANCE_RAD, f"cycle {error.argmax()}: {error.max():.2e} rad from the recording"


@pytest.mark.parametrize("kind, name", CASES)
def test_default_settings_stay_within_the_recorded_solver_tolerance(recorded, kind, name):
    inputs, q_exact, _, recorded_error = scenario(recorded, kind, name)
    replay, _ = KINDS[kind]
    out = replay(MODEL, name, inputs)
    error = np.max(np.abs(out["q"] - q_exact), axis=1)
    allowed = max(2.0 * recorded_error.max(), 1e-4)
    assert error.max() <= allowed, (f"cycle {error.argmax()}: {error.max():.2e} rad from the exact commands, "
                                    f"the recording's settings were within {recorded_error.max():.2e}")
