"""errors.py: the one exception a reader of a run raises (the file named in its text)."""


class MpilensError(Exception):
    """A run that cannot be read: missing, damaged, not a run, or from a newer mpilens."""

    def __init__(self, path, what):
        self.path = str(path)
        super().__init__(f"{path}: {what}")
