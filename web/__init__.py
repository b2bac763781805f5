"""The web app (Starlette under uvicorn) and the browser viewer: not built yet.

It will use only ``arena``'s public names and ``replays``.
"""

__all__: list[str] = []
