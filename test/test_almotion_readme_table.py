"""The README's ALMotion table lists every public method of ALMotion (and of ALRobotPosture), and
nothing else: the table is the user's list of what a ported script can call."""

import inspect
import re
from pathlib import Path

import pytest

pytest.importorskip("rclpy")

from nao_motion.almotion import ALMotion  # noqa: E402
from nao_motion.almotion.posture import ALRobotPosture  # noqa: E402

README = Path(__file__).resolve().parents[1] / "README.md"
TABLE_HEADER = "| method | differences from NAOqi, and why |"
# Made per client in __init__ (motion.post.<method>), so not a member of the class.
INSTANCE_ATTRIBUTES = {"post"}


def table_first_column(text: str) -> list[str]:
    """The first cell of every row of the ALMotion table (after its header and separator)."""
    lines = text.splitlines()
    start = lines.index(TABLE_HEADER) + 2
    cells = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        cells.append(line.split("|")[1].strip())
    return cells


def listed_names(cells: list[str]) -> dict[str, set[str]]:
    """Names per class: a cell "`ALRobotPosture(motion)`: a, b" lists ALRobotPosture's methods,
    any other cell ALMotion's; "post.&lt;method&gt;" lists the attribute post."""
    names = {"ALMotion": set(), "ALRobotPosture": set()}
    for cell in cells:
        owner = "ALMotion"
        if ":" in cell:
            prefix, cell = cell.split(":", 1)
            owner = re.sub(r"[`(].*", "", prefix.strip().strip("`"))
        for piece in cell.split(","):
            names[owner].add(piece.strip().strip("`").split(".")[0])
    return names


def public_methods(cls: type) -> set[str]:
    return {name for name, member in inspect.getmembers(cls, callable) if not name.startswith("_")}


def test_listed_names_reads_both_classes_and_post():
    cells = ["getTransform, getPosition", "post.&lt;method&gt;, wait", "`ALRobotPosture(motion)`: goToPosture"]
    assert listed_names(cells) == {"ALMotion": {"getTransform", "getPosition", "post", "wait"},
                                   "ALRobotPosture": {"goToPosture"}}


def test_the_readme_table_lists_every_public_method_and_only_those():
    names = listed_names(table_first_column(README.read_text()))
    assert names["ALMotion"] - INSTANCE_ATTRIBUTES == public_methods(ALMotion)
    assert names["ALRobotPosture"] == public_methods(ALRobotPosture)
