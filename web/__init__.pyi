"""The names of ``web``, each once; ``__init__.py`` loads them on first use."""

from ._api import (
    openapi_document as openapi_document,
    route_sides as route_sides,
    site_app as site_app,
)
from ._bundle import (
    Bundle as Bundle,
    BundleError as BundleError,
    PushedMatch as PushedMatch,
    decode_bundle as decode_bundle,
)
from ._cli import register_commands as register_commands
from ._connections import ConnectionLimits as ConnectionLimits
from ._limits import SiteLimits as SiteLimits
from ._pages import viewer_page as viewer_page
from ._push import (
    PushRefused as PushRefused,
    bundle_of as bundle_of,
    push as push,
)
from ._serve_site import serve_site as serve_site
from ._site import Site as Site
from ._static import MemoryStaticFiles as MemoryStaticFiles
from ._stream import ReplayFile as ReplayFile
from ._token import (
    TOKEN_FILE as TOKEN_FILE,
    server_token as server_token,
)
from ._view import (
    static_files as static_files,
    view_app as view_app,
)
