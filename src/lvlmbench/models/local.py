"""What a local (torch) back-end builds on: devices, dtypes, model directories and the option
parsers they share. Needs torch: import it only from a provider that needs it."""

from lvlmbench.models._local import (
    DTYPES,
    load_error,
    local_dir,
    parse_bool,
    parse_positive_int,
    resolve_device,
    resolve_dtype,
    wants_ray,
)

__all__ = [
    "DTYPES",
    "load_error",
    "local_dir",
    "parse_bool",
    "parse_positive_int",
    "resolve_device",
    "resolve_dtype",
    "wants_ray",
]
