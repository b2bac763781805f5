"""The shapes of the four formats: who meets whom in each stage (docs/tournaments.md).

A *meeting* is two entrants, by their index in the seeded order, that play
every seed with both side assignments. A *stage* is a format's round: a
round-robin colour class, a gauntlet opponent, a bracket round, a swiss round.
Everything here is a pure function of its arguments.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

# networkx is slow to import (docs/benchmarks.md): only the formats that pair with it
# load it (``arena match`` records into the store without ever pairing).
if TYPE_CHECKING:
    import networkx as nx

__all__ = [
    "BYE",
    "MatchNode",
    "Meeting",
    "bracket_graph",
    "circle_meeting",
    "circle_size",
    "circle_stages",
    "field_meeting",
    "seed_positions",
    "shuffled",
    "swiss_meetings",
]

Meeting = tuple[int, int]
"""Two entrants by seeded index; the first is side A on the first side assignment."""

MatchNode = tuple[int, int]
"""A bracket match's node in the bracket graph: (bracket round, place in that round)."""

BYE = -1
"""The phantom entrant of an odd swiss field: whoever is matched with it sits the round out."""


# --------------------------------------------------------------------------- round-robin


def circle_stages(n: int) -> int:
    """Colour classes of the complete graph on n vertices: n-1 when n is even, n when odd."""
    return n - 1 if n % 2 == 0 else n


def circle_size(n: int) -> int:
    """Meetings in each colour class (an odd field leaves one entrant out of each)."""
    return n // 2


def circle_meeting(n: int, stage: int, slot: int) -> Meeting:
    """The circle method's ``slot``-th edge of colour class ``stage`` of K_n, in O(1).

    Vertex m-1 of K_m (m = n rounded up to even) sits at the centre and the
    others on a circle; class c is the centre's edge to c and the chords
    (c+k, c-k) perpendicular to it. The m-1 classes are perfect matchings
    that together cover every edge once (a 1-factorisation). On an odd field
    the centre is the bye, so class c leaves entrant c out.
    """
    m = n + n % 2
    k = slot + n % 2  # an odd field skips the centre's edge: it is the bye
    if k == 0:
        i, j = stage, m - 1
    else:
        i, j = (stage + k) % (m - 1), (stage - k) % (m - 1)
    return (min(i, j), max(i, j))


# --------------------------------------------------------------------------- field


def field_meeting(stage: int, slot: int) -> Meeting:
    """A field's meeting at (stage, slot): entrant ``stage + 1`` (the newcomer of that stage)
    against the earlier entrant ``slot`` (0 <= slot <= stage), who is side A first.

    Nothing in it depends on the size of the field, so a meeting keeps its place (and
    every match its key) as the field grows.
    """
    return (slot, stage + 1)


# --------------------------------------------------------------------------- bracket


def seed_positions(size: int) -> list[int]:
    """Seeded indices in bracket line order for a power-of-two ``size``.

    The usual layout: seed 1 meets seed ``size`` first, and seeds 1 and 2 can
    only meet in the final ([0, 3, 1, 2] for 4, [0, 7, 3, 4, 1, 6, 2, 5] for 8).
    """
    order = [0]
    while len(order) < size:
        m = 2 * len(order)
        order = [x for s in order for x in (s, m - 1 - s)]
    return order


def bracket_graph(n: int) -> nx.DiGraph:
    """A single-elimination bracket for n entrants: its n-1 matches as a DiGraph.

    Each match is a node (bracket round, place) with attributes ``stage``,
    ``slot`` and ``seeded`` (the entrant index seeded straight into each side,
    or None where a match's winner comes in); an edge points from a match to
    the one its winner goes to, with attribute ``side``. The field is padded to
    a power of two with byes, which fall to the top seeds (each meets a padding
    slot), so those seeds' first match is in round 1.
    """
    size = 1 << (n - 1).bit_length()
    level: list[int | MatchNode | None] = [i if i < n else None for i in seed_positions(size)]
    import networkx as nx

    graph = nx.DiGraph()
    stage = 0
    while len(level) > 1:
        winners: list[int | MatchNode | None] = []
        slot = 0
        for x, y in zip(level[0::2], level[1::2], strict=True):
            if x is None or y is None:  # a bye: the other one goes through unplayed
                winners.append(y if x is None else x)
                continue
            node: MatchNode = (stage, slot)
            seeded = tuple(src if isinstance(src, int) else None for src in (x, y))
            graph.add_node(node, stage=stage, slot=slot, seeded=seeded)
            for side, src in enumerate((x, y)):
                if isinstance(src, tuple):
                    graph.add_edge(src, node, side=side)
            winners.append(node)
            slot += 1
        level = winners
        stage += 1
    return graph


def shuffled(names: Sequence[str], seed: int) -> tuple[str, ...]:
    """``names`` in an order drawn from ``seed`` (Fisher-Yates on its own generator).

    Only ``random.Random(seed).random()`` is used: the one part of the module
    whose sequence Python promises to keep across versions.
    """
    rng = random.Random(seed)
    items = list(names)
    for i in range(len(items) - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        items[i], items[j] = items[j], items[i]
    return tuple(items)


# --------------------------------------------------------------------------- swiss


def swiss_meetings(
    ranking: Sequence[int],
    scores: Sequence[int],
    met: Collection[Meeting],
    had_bye: Collection[int],
    max_score: int,
) -> list[Meeting]:
    """One swiss round: a maximum-weight matching over the field, with no rematch.

    ``ranking`` is the field (seeded indices) from first to last, ``scores``
    each entrant's score by seeded index, ``met`` the pairs (low, high) that
    have met, ``had_bye`` who has sat out a round. Integer weights rank the
    matchings lexicographically, most important first:
      1. as many meetings as possible (``maxcardinality``);
      2. on an odd field, the bye to an entrant without one yet,
      3. and to the lowest-ranked such entrant;
      4. the least sum of squared score differences (equal scores meet);
      5. within a score group, its top half against its bottom half (the
         "fold"); across groups, the nearest ranks.
    Meetings come out ordered by their higher-ranked entrant, who is side A
    first. An entrant in no meeting sits the round out.
    """
    n = len(ranking)
    pos = {e: p for p, e in enumerate(ranking)}
    group_of: dict[int, tuple[int, int]] = {}  # entrant -> (place in its score group, group size)
    start = 0
    for p in range(1, n + 1):
        if p == n or scores[ranking[p]] != scores[ranking[start]]:
            for q, e in enumerate(ranking[start:p]):
                group_of[e] = (q, p - start)
            start = p
    fold_unit = n * n + 1  # one unit of squared score difference outweighs every fold penalty
    worst = fold_unit * max_score * max_score + n  # the largest penalty of one meeting
    base = worst + 1  # keeps every weight positive
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(ranking)
    met_pairs = set(met)
    for p, i in enumerate(ranking):
        qi, size = group_of[i]
        for j in ranking[p + 1 :]:
            if (min(i, j), max(i, j)) in met_pairs:
                continue
            diff = scores[i] - scores[j]
            qj, _ = group_of[j]
            fold = abs(qj - qi - size // 2) if diff == 0 else pos[j] - p
            graph.add_edge(i, j, weight=base - (fold_unit * diff * diff + fold))
    if n % 2:
        unit = (n // 2 + 1) * worst + 1  # outweighs any difference in the meetings' penalties
        for p, i in enumerate(ranking):
            fresh = unit * n if i not in had_bye else 0
            graph.add_edge(BYE, i, weight=base + fresh + unit * p)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    meetings = [(u, v) if pos[u] < pos[v] else (v, u) for u, v in matching if BYE not in (u, v)]
    return sorted(meetings, key=lambda m: pos[m[0]])
