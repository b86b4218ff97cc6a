"""The one error a use case raises for options it cannot run with."""

from __future__ import annotations


class InvalidOptions(ValueError):
    """Options a use case refuses; the message names the option and what was expected.

    The CLI prints the message as one error line and exits 2; the Python API lets it propagate,
    so a script sees the same refusal the command line gives.
    """
