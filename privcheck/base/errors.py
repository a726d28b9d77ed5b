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

    #: the user's own traceback when the bad input is user code that raised while probed (shown under --debug)
    user_traceback: str | None = None


class UnknownNameError(PrivcheckUsageError, KeyError):
    """An unknown mechanism, claim id, parameter or accountant name."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class UserCodeError(Exception):
    """User code failed while it was being audited (not bad input: a verdict ``error``, CLI exit code 1).

    ``str(exc)`` is one line naming the function and what it did; ``function``
    is that name, ``kind`` one of ``raised``, ``exit``, ``interrupt``,
    ``memory``, ``nonfinite``, ``died``, ``timeout``; ``user_traceback`` the
    user's own traceback (printed by the CLI under ``--debug``), or None.
    """

    def __init__(
        self,
        message: str,
        function: str | None = None,
        kind: str = "raised",
        user_traceback: str | None = None,
        cause: str | None = None,
    ):
        super().__init__(message)
        self.function = function
        self.kind = kind
        self.user_traceback = user_traceback
        self.cause = cause

    def __reduce__(self):
        return (type(self), (str(self), self.function, self.kind, self.user_traceback, self.cause))
