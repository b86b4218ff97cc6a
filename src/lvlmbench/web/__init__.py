"""The web app (`lvlmbench serve`): browse benchmarks, items and responses; leaderboards with
the report's charts; blind pairwise votes and alignment checks stored as human judgments; and
JSONL leaderboard submissions judged in the background. Needs the ``web`` extra."""

from lvlmbench.web._render import WebSettings
from lvlmbench.web.app import create_app
from lvlmbench.web.limits import Rate
from lvlmbench.web.security import allowed_host_names, is_loopback

__all__ = ["Rate", "WebSettings", "allowed_host_names", "create_app", "is_loopback"]
