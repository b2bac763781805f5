"""The native frame encoder (``_frames.c``): a tick's replay frame as msgpack bytes.

``_load`` loads it; see its docstring.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
