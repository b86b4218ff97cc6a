"""What a back-end served by Ray actors builds on, for the ``ray=true`` option (the names of
:mod:`lvlmbench.models._ray`). Needs Ray: import it only when a spec asks for it."""

from lvlmbench.models._ray import *  # noqa: F403  (the public face of one private module)
from lvlmbench.models._ray import __all__ as __all__
