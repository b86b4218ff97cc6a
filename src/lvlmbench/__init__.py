"""lvlmbench: evaluate large vision-language models (AutoBench-V, VisIT-Bench, TouchStone)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("lvlmbench")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0"

__all__ = ["__version__"]
