# SPDX-License-Identifier: BSD-3-Clause
"""errors.py: the one exception a reader of a run raises (the file named in its text)."""


class MpilensError(Exception):
    """A run that cannot be read: missing, damaged, not a run, or from a newer mpilens."""

    def __init__(self, path, what=None):
        # one argument: the mpilens command's own line (it names the file itself)
        self.path = str(path) if what is not None else None
        super().__init__(f"{path}: {what}" if what is not None else str(path))
