"""A base URL's credentials: ``http://user:password@host/v1`` is ``http://host/v1`` with HTTP
basic auth, the password a secret that no identity, key or message shows."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import unquote

from lvlmbench.models._secrets import basic_token, register_url_credentials

__all__ = ["Endpoint", "split_credentials"]


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A base URL as it may be shown, stored and keyed on, and the headers its credentials
    make: ``http://user:password@host/v1`` is ``http://host/v1`` with HTTP basic auth."""

    url: str
    """The URL without a ``user:password@`` part."""
    auth: Mapping[str, str]
    """``{"authorization": "Basic ..."}`` when the URL carried credentials, else empty."""


def split_credentials(url: str) -> Endpoint:
    """``url`` without its credentials, which become the basic-auth header and are registered
    as secrets. aiohttp refuses credentials in a URL beside an ``Authorization`` header (a
    ValueError), and neither the identity nor an error message may show the password."""
    # Split by hand, as the identity does: a password may hold '#' or '?' (a spec's options are
    # percent-decoded once), which would end a parsed URL's host part early.
    scheme, sep, rest = url.partition("://")
    netloc, slash, path = rest.partition("/")
    userinfo, at, host = netloc.rpartition("@")
    if not sep or not at:
        return Endpoint(url, {})
    register_url_credentials(url)
    user, _, password = userinfo.partition(":")
    token = basic_token(unquote(user), unquote(password))
    return Endpoint(f"{scheme}://{host}{slash}{path}", {"authorization": f"Basic {token}"})
