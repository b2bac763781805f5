"""The native core: the rules, the observation and the checksum of a match in C (``_core``).

``_load`` loads it and builds a core from a game; see its docstring.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
