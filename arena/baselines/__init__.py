"""The committed baseline controllers and their reproducible build (rules §10).

The baselines are C files under the repository's ``baselines/`` folder, built
against ``baselines/foray.h`` with the pip-installable ``ziglang``; the built
modules are committed beside them and a rebuild reproduces them byte for byte.
The SDKs for authors (``foray.h`` for C, ``foray.zig`` for Zig, ``foray.ts``
for AssemblyScript) and their templates live there too; ``baselines/assemblyscript/``
pins the AssemblyScript compiler and holds the rest of an AssemblyScript project.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
