"""The motion cycle's one QP layer: OSQP with a fixed sparsity pattern (set up once, then values
updated and warm-started each cycle), and the composition of a QP from tasks and constraints.

    from nao_motion.qp import FixedPatternQP, SolverSettings      # a QP of fixed pattern
    from nao_motion.qp import Task, Constraint, ComposedQP         # tasks and constraints on one
    from nao_motion.qp import ClearanceConstraint                  # keeping points clear (n.J.x dt <= d - m)
"""

from .clearance import ClearanceConstraint
from .composition import ComposedQP, Constraint, DiagonalTask, Task
from .fixed_pattern import (INFEASIBLE, INFINITY, USABLE, FixedPatternQP, Preconditioning, SolveResult,
                            SolverSettings)

__all__ = ["ClearanceConstraint", "ComposedQP", "Constraint", "DiagonalTask", "Task", "INFEASIBLE", "INFINITY", "USABLE",
           "FixedPatternQP", "Preconditioning", "SolveResult", "SolverSettings"]
