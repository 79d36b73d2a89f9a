"""shardsim's exceptions (docs/python.md, "Errors")."""


class ShardsimError(Exception):
    """Base class of the errors shardsim raises."""


class InputError(ShardsimError, ValueError):
    """Bad input: names the file, line, column and key, what was expected, and a hint.

    The same error, with the same message, as the command line's exit code 2.
    """

    def __init__(self, message, file="", line=0, column=0, key="", problem="", hint=""):
        super().__init__(message)
        self.file = file
        self.line = line
        self.column = column
        self.key = key
        self.problem = problem or message
        self.hint = hint


class DoesNotFitError(ShardsimError):
    """No plan fits in memory (the command line's exit code 3): the GPU and the bytes."""

    def __init__(self, message, gpu=-1, needed_bytes=0.0, available_bytes=0.0):
        super().__init__(message)
        self.gpu = gpu
        self.needed_bytes = needed_bytes
        self.available_bytes = available_bytes


class UnsupportedPlanError(ShardsimError, ValueError):
    """A plan that the target (e.g. TorchRec's ShardingPlan) cannot express, with the reason."""
