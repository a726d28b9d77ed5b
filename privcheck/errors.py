"""Exceptions raised by privcheck.

Every error a user can provoke with bad input is a :class:`PrivcheckUsageError`
(a ``ValueError``): its message is one line saying what is wrong and what is
allowed. The CLI prints that line and exits with code 2.
"""
from __future__ import annotations


class PrivcheckUsageError(ValueError):
    """Bad input: an invalid parameter, an unknown id, a malformed file.

    The message is a single line naming the offending parameter or id and the
    allowed values or range.
    """


class UnknownNameError(PrivcheckUsageError, KeyError):
    """An unknown mechanism, claim id, parameter or accountant name."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""
