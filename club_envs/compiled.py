"""How the batched engines' functions are compiled: ``@compiled`` on each of them.

``numba.njit`` with ``cache=True`` (compiled once per machine, then loaded from ``__pycache__``)
and without numba's reference-counting runtime (``_nrt=False``). The engines never allocate
inside compiled code -- callers hand in every array -- and without the runtime, handing a struct
of arrays from rule to rule costs no atomic reference counts: measured on one Members Only turn
(``end_turn`` over 4,096 games), 560 ns a game with the runtime, 8 ns without. ``nogil=True``:
the games release the interpreter lock while compiled code runs, so a training loop that updates
in a second thread (``algorithm.overlap``, ``ppo.overlap``) keeps both cores busy (numba's cache
is keyed by the functions' source and signatures, not these options: a cache written before an
option changed is used until the source files change or the cache is removed). With
``NUMBA_DISABLE_JIT=1`` the functions stay plain Python.
"""

from __future__ import annotations

import numpy as np
from numba import config, njit

compiled = njit(cache=True, _nrt=False, nogil=True)


def compiled_view(records: np.ndarray) -> np.ndarray:
    """``records`` (a record array of game tables) as compiled functions should be handed it: a
    plain structured array, whose type numba reads in its dispatcher's C fast path -- a
    ``np.recarray`` sends every call through numba's Python-level type inference (measured: ~6 us
    against ~1 us a call, with several calls per round of moves). Compiled code reads the fields
    as attributes either way; run as plain Python (``NUMBA_DISABLE_JIT=1``) it needs the record
    view itself, which is then returned unchanged. Both share the same memory."""
    return records if config.DISABLE_JIT else records.view(np.ndarray)
