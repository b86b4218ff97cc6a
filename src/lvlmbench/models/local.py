"""What a local (torch) back-end builds on: devices, dtypes, model directories and the option
parsers they share (the names of :mod:`lvlmbench.models._local`). Needs torch: import it only
from a provider that needs it."""

from lvlmbench.models._local import *  # noqa: F403  (the public face of one private module)
from lvlmbench.models._local import __all__ as __all__
