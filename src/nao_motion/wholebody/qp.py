"""The whole-body QP: the balancer's tasks and constraints composed on one fixed-pattern OSQP
problem (``nao_motion.qp``), over the floating base's variables x = [v, w, q_dot].

    minimise    sum_t w_t |J_t x - xdot_t|^2 + sum_j w_j (q_dot_j - q_dot_wish_j)^2
                + torso_weight |[v, w]|^2 + regularisation_weight |x|^2
    subject to  the variables' box, the feet's contacts, the COM in the support polygon,
                the coupled head / ankle ranges

Tasks, in the rows of the stacked task matrix: Head orientation, LArm / RArm position, the COM,
the left / right swing foot, the torso's orientation; the articular wish on the joints' diagonal.
Constraints, in the rows of A: the box, the coupled head, left ankle and right ankle rows, the
left / right foot, the balance edges, the limbs' clearance from the declared obstacles
(``ObstacleClearance``). A part that is off keeps its rows (zero weight, infinite bounds), so the
pattern, and OSQP's factorisation structure, never change; the obstacle rows, the most numerous
and usually off (no obstacle declared), are optional: OSQP solves without them meanwhile.

Preconditioning (why these scales): x mixes m/s and rad/s and the rows' units differ by the
lever arms, which ADMM's single step size does not like: with OSQP's own equilibration (redone at
every matrix update) the balance scenario of benchmarks/bench_whole_body.py needed 65 iterations
a cycle (median) and its 400 at the 99th percentile; scaled once for these units (below), 20-25
and under 150 to the same accuracy.
"""

from __future__ import annotations

import numpy as np

from ..model import HEAD_PITCH_VS_YAW_DEG, LANKLE_ROLL_VS_PITCH_DEG
from ..qp import ComposedQP, SolverSettings
from .constraints import ComInPolygon, CoupledLimits, FootContact, ObstacleClearance, VariableBox
from .context import WholeBodyContext
from .floating_base import N_BASE
from .modes import FEET
from .tasks import ArmPositionTask, ArticularWish, ComTask, HeadOrientationTask, SwingFootTask, TorsoOrientationTask

__all__ = ["WholeBodyQP", "SolverSettings", "WHOLE_BODY_SOLVER"]

# Preconditioning: the solver's variables are the torso's linear velocity in units of
# BASE_LINEAR_SCALE m/s (the rest in rad/s); the feet's linear rows are scaled by
# FOOT_LINEAR_ROW_SCALE (a foot moves centimetres per joint radian, its rows' residual counts in
# 0.1 mm/s), their angular rows by FOOT_ANGULAR_ROW_SCALE, the balance rows by COM_ROW_SCALE (the
# COM moves by centimetres per joint radian); the cost by COST_SCALE (the articular weights are
# 1e-3: the cost's curvature then compares with the rows'). Chosen by measuring the benchmark's
# scenarios and the recorded sequences' accuracy over a grid of scales.
BASE_LINEAR_SCALE = 0.3
FOOT_LINEAR_ROW_SCALE = 10.0
FOOT_ANGULAR_ROW_SCALE = 0.3
COM_ROW_SCALE = 10.0
COST_SCALE = 100.0
# The balancer's OSQP settings (balancer.py says why).
WHOLE_BODY_SOLVER = SolverSettings(eps_abs=1e-3, eps_rel=1e-4, max_iter=80)


class WholeBodyQP(ComposedQP):
    """The balancer's parts, by name, on one ComposedQP."""

    def __init__(self, ctx: WholeBodyContext, settings: SolverSettings):
        n = ctx.n
        variable_scale = np.ones(n)
        variable_scale[:3] = BASE_LINEAR_SCALE
        foot_rows = np.array([FOOT_LINEAR_ROW_SCALE] * 3 + [FOOT_ANGULAR_ROW_SCALE] * 3)
        self.head = HeadOrientationTask(ctx)
        self.arms = {arm: ArmPositionTask(ctx, arm) for arm in ("LArm", "RArm")}
        self.com = ComTask(ctx)
        self.swing_feet = {foot: SwingFootTask(ctx, foot) for foot in FEET}
        self.torso = TorsoOrientationTask(ctx)
        self.articular = ArticularWish(ctx)
        self.box = VariableBox(ctx, variable_scale)
        self.contacts = {foot: FootContact(ctx, foot, foot_rows) for foot in FEET}
        self.balance = ComInPolygon(ctx, COM_ROW_SCALE)
        self.obstacles = ObstacleClearance(ctx, variable_scale)
        right_ankle = LANKLE_ROLL_VS_PITCH_DEG[:, [0, 2, 1]] * [1.0, -1.0, -1.0]  # roll mirrored
        self.coupled = CoupledLimits(ctx, [("HeadPitch", "HeadYaw", HEAD_PITCH_VS_YAW_DEG, True),
                                           ("LAnkleRoll", "LAnklePitch", LANKLE_ROLL_VS_PITCH_DEG, False),
                                           ("RAnkleRoll", "RAnklePitch", right_ankle, False)], self.box)
        tasks = [self.head, *self.arms.values(), self.com, *self.swing_feet.values(), self.torso]
        # The checked rows (feet, balance, obstacles) next to each other, the optional ones last.
        constraints = [self.box, self.coupled, *self.contacts.values(), self.balance, self.obstacles]
        super().__init__(n, tasks, [self.articular], constraints, settings, self.regularisation(ctx),
                         variable_scale, COST_SCALE)

    @staticmethod
    def regularisation(ctx: WholeBodyContext) -> np.ndarray:
        """The constant diagonal: the torso's twist costs what a joint's velocity does (with the
        feet held it is set by the legs anyway, and without a cost of its own ADMM needs ~10 times
        the iterations whenever the balance rows are active), plus the regularisation."""
        cfg = ctx.config
        diagonal = np.full(ctx.n, cfg.regularisation_weight)
        diagonal[:N_BASE] += cfg.torso_weight
        return diagonal
