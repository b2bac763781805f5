"""Replays: the msgpack format, its typed records, a bounded reader, and a re-simulation check.

A match is recorded by a ``Recorder`` (header, one frame per tick, result).
Reading is for untrusted bytes: ``iter_replay``, ``read_replay`` and
``frame_chunks`` bound every length and validate every object against the
format (``replays._format``, checked by ``replays._schema``) before building
its typed record, raising ``ReplayError``; ``verify_replay`` re-simulates the
recorded actions with ``sim`` and reports the first mismatch. ``iter_states``
rebuilds the full drawn state of every applied tick from the keyframes and
delta frames, for viewers; ``iter_ticks`` gives each applied tick's state with
its events completed (whose unit did what, where), for authors. The bounds
(``replays._limits``) are defined once: ``MAX_NAME_CHARS`` is the arena's one
limit on a name. ``compress_replay`` and ``decompress_replay`` turn a replay
into one zstd frame and back (the store keeps replays so, the site sends them
so); every reader takes either, told apart by ``ZSTD_MAGIC``.

Names load on first use (PEP 562): a process that only writes replays (a
match) never loads the reader, the verifier or the drawn states.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
