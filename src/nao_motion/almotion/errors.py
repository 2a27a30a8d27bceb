"""The ALMotion client's error, raised by every method group and the clock they wait on."""


class ALMotionError(RuntimeError):
    """An ALMotion call that cannot be answered (bad argument, no data from the robot)."""
