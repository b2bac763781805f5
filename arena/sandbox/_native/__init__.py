"""A controller's tick call in C (``_call.c``).

``_load`` loads it; see its docstring.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
