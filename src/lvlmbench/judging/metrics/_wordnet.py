"""WordNet 3.0 for nltk, read offline from Debian's ``wordnet-base`` files.

``nltk.download`` needs the internet, and nltk's data sandbox refuses a corpus root outside its
own data directories. Debian ships the same WordNet 3.0 database in ``/usr/share/wordnet``
(``apt-get install wordnet-base``, pulled in by ``wordnet``) but without the ``lexnames``
file nltk's reader wants. :func:`load_wordnet` reads that directory through a reader whose
``open`` serves the database files directly and ``lexnames`` from the fixed WordNet 3.0 list
below, so nothing is written anywhere. ``LVLMBENCH_WORDNET`` points at another directory with the
same files (a WordNet 3.0 ``dict/`` directory works too).
"""

from __future__ import annotations

import functools
import io
import os
import warnings
from pathlib import Path
from typing import Any

from nltk.corpus.reader.wordnet import WordNetCorpusReader
from nltk.data import PathPointer, SeekableUnicodeStreamReader

from lvlmbench.judging.metrics._base import MetricUnavailable

__all__ = ["DEFAULT_WORDNET_DIR", "LEXNAMES", "load_wordnet", "wordnet_dir"]

DEFAULT_WORDNET_DIR = Path("/usr/share/wordnet")
INSTALL_HINT = "apt-get install wordnet-base (or wordnet)"
_NEEDED = ("data.noun", "index.noun", "noun.exc", "data.verb", "index.verb", "verb.exc")
_READ_THROUGH = frozenset(
    name for pos in ("noun", "verb", "adj", "adv") for name in (f"index.{pos}", f"{pos}.exc")
)
"""Files nltk reads once front to back at load (the lemma index and the exception lists)."""

# WordNet 3.0's lexicographer files, in file-number order (lexnames(5WN)); fixed by the release.
# fmt: off
LEXNAMES = (
    ("adj.all", 3), ("adj.pert", 3), ("adv.all", 4), ("noun.Tops", 1), ("noun.act", 1),
    ("noun.animal", 1), ("noun.artifact", 1), ("noun.attribute", 1), ("noun.body", 1),
    ("noun.cognition", 1), ("noun.communication", 1), ("noun.event", 1), ("noun.feeling", 1),
    ("noun.food", 1), ("noun.group", 1), ("noun.location", 1), ("noun.motive", 1),
    ("noun.object", 1), ("noun.person", 1), ("noun.phenomenon", 1), ("noun.plant", 1),
    ("noun.possession", 1), ("noun.process", 1), ("noun.quantity", 1), ("noun.relation", 1),
    ("noun.shape", 1), ("noun.state", 1), ("noun.substance", 1), ("noun.time", 1),
    ("verb.body", 2), ("verb.change", 2), ("verb.cognition", 2), ("verb.communication", 2),
    ("verb.competition", 2), ("verb.consumption", 2), ("verb.contact", 2), ("verb.creation", 2),
    ("verb.emotion", 2), ("verb.motion", 2), ("verb.perception", 2), ("verb.possession", 2),
    ("verb.social", 2), ("verb.stative", 2), ("verb.weather", 2), ("adj.ppl", 3),
)
# fmt: on


def wordnet_dir() -> Path:
    """The WordNet directory to read: ``$LVLMBENCH_WORDNET`` or ``/usr/share/wordnet``."""
    configured = os.environ.get("LVLMBENCH_WORDNET", "").strip()
    return Path(configured) if configured else DEFAULT_WORDNET_DIR


class _Root(PathPointer):  # type: ignore[misc]
    """A corpus root that is not a filesystem path string (reads go through ``_Reader.open``)."""

    def __init__(self, path: Path, name: str | None = None) -> None:
        self.path = path
        self.name = name

    def join(self, fileid: str) -> _Root:
        return _Root(self.path, fileid)

    def open(self, encoding: str | None = None) -> Any:
        raise NotImplementedError("read through the WordNet reader")

    def file_size(self) -> int:
        return (self.path / (self.name or "")).stat().st_size


class _Reader(WordNetCorpusReader):  # type: ignore[misc]
    """nltk's WordNet reader over a plain directory, ``lexnames`` supplied from memory."""

    def __init__(self, directory: Path) -> None:
        self._directory = directory
        super().__init__(_Root(directory), None)

    def open(self, file: str) -> Any:
        if file == "lexnames" and not (self._directory / "lexnames").exists():
            lines = "".join(f"{i:02d} {name} {pos}\n" for i, (name, pos) in enumerate(LEXNAMES))
            stream: Any = io.BytesIO(lines.encode())
        else:
            if "/" in file or "\\" in file or file.startswith("."):
                raise ValueError(f"not a WordNet file name: {file!r}")
            stream = (self._directory / file).open("rb")
        if file in _READ_THROUGH:
            # Read front to back, never sought: a plain text stream reads them in C, where
            # nltk's seekable reader took about 2 s of pure-Python readline per load.
            return io.TextIOWrapper(stream, encoding=self._encoding)
        return SeekableUnicodeStreamReader(stream, self._encoding)

    def map_wn(self, version: str = "wordnet") -> None:
        # Maps another WordNet version's synset ids onto this one, for the multilingual Open
        # Multilingual Wordnet data; this is WordNet 3.0 itself and OMW is not used.
        return None


@functools.cache
def load_wordnet(directory: Path | None = None) -> WordNetCorpusReader:
    """nltk's WordNet reader over ``directory`` (default :func:`wordnet_dir`), loaded once.

    Raises :class:`MetricUnavailable` naming ``apt-get install wordnet-base`` when the files are
    not there."""
    where = directory or wordnet_dir()
    missing = [f for f in _NEEDED if not (where / f).is_file()]
    if missing:
        raise MetricUnavailable(
            f"METEOR needs WordNet 3.0 in {where} ({missing[0]} is missing): {INSTALL_HINT}, "
            "or set LVLMBENCH_WORDNET to a directory holding its data.*/index.*/*.exc files"
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "multilingual functions are not available"
        return _Reader(where)
