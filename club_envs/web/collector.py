"""The cyclic garbage collector of a server process, set for a crowd.

Most objects are freed the moment their last reference goes; Python's cyclic collector looks for
the rest, and a full collection walks every object the process holds. Once the server has started
that is some 300,000 objects (the libraries, the templates, the agents' networks), none of them
ever garbage, and under a crowd of thirty participants who never pause a full collection came
every few seconds and took 60 to 360 ms on a busy two-core machine, every request in progress
waiting for it: those pauses were most of the slowest twentieth of the answers. Settled, the
server made no full collection at all while thirty participants played for twenty seconds.

:func:`settle`, called once the server is ready to listen, moves every object made so far out of
the collector's sight (``gc.freeze``) and lets the young generation grow to
:data:`YOUNG_THRESHOLD` objects before it is collected instead of 700: the answers being made when
a young collection comes survive it and age into the old generation, whose growth is what
triggers the full collections, so fewer young collections mean far fewer full ones. Nothing is
left uncollected: only the collections come less often.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 10_000


def settle(young_threshold: int = YOUNG_THRESHOLD) -> None:
    """Collect once, freeze what survives, and collect the young generation less often."""
    if young_threshold < 1:
        raise ValueError(f"young_threshold {young_threshold} is not allowed; allowed values: 1 or more")
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(young_threshold, middle, old)
