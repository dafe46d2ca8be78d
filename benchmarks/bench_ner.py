"""What named-entity recognition costs, on thinc's default BLIS products and on numpy's BLAS.

    .venv/bin/python benchmarks/bench_ner.py [--texts 60] [--rounds 3]

1. **The product NER spends its time in**: ``en_core_web_sm``'s token-to-vector layers multiply a
   (tokens x 288) by a (288 x 288) matrix, five times per text; the GFLOP/s of one 500-row product
   with BLIS (``blis.py.gemm``, what thinc's ``NumpyOps`` uses by default) and with numpy's BLAS
   (``numpy.dot``: OpenBLAS in numpy's wheels), on the threads the process has.
2. **NER per text**: ms of CPU time per article text (the first 2,500 characters of the truth text
   of the scrapinghub corpus's first ``--texts`` pages, the text ``image_captions`` analyses) with
   the model's layers on each kind of ops, alternated ``--rounds`` times; and whether the entities
   found are the same.

CPU time (``time.process_time``, every thread of this process): another process's load is not
counted. Run it as ``OPENBLAS_NUM_THREADS=2`` to see what the second BLAS thread costs.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pagesieve.nlp import entities as E  # noqa: E402
from tests.conftest import corpus_pages  # noqa: E402


def cpu_ms(fn, n: int = 1) -> float:
    gc.collect()
    t = time.process_time()
    for _ in range(n):
        fn()
    return (time.process_time() - t) / n * 1000


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--texts", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)

    import blis.py
    from thinc.api import NumpyOps
    from threadpoolctl import threadpool_info

    model = E.load_ner("en_core_web_sm")  # also limits the BLAS to one thread (E.use_numpy_blas)
    blas = [(p["internal_api"], p["num_threads"]) for p in threadpool_info() if p["user_api"] == "blas"]
    print(f"BLAS pools after loading the model: {blas}")

    x = np.random.default_rng(0).random((500, 288), dtype=np.float32)
    w = np.random.default_rng(1).random((288, 288), dtype=np.float32)
    flop = 2 * 500 * 288 * 288
    print("\n(500 x 288) by (288 x 288)^T, float32:")
    for name, fn in (("BLIS (thinc's default)", lambda: blis.py.gemm(x, w, trans2=True)),
                     ("numpy's BLAS", lambda: np.dot(x, w.T))):
        fn()
        ms = cpu_ms(fn, 200)
        print(f"   {name:<24} {ms:6.3f} ms  {flop / ms / 1e6:6.1f} GFLOP/s")

    texts = [" ".join(body.split())[:2500] for _, _, body in corpus_pages()[: args.texts]]
    nodes = [node for _, component in model.nlp.pipeline for node in component.model.walk()]
    kinds = {"BLIS (thinc's default)": NumpyOps(use_blis=True), "numpy's BLAS": NumpyOps(use_blis=False)}
    found: dict[str, list] = {}
    times: dict[str, list[float]] = {k: [] for k in kinds}
    try:
        for _ in range(args.rounds):
            for name, ops in kinds.items():
                for node in nodes:
                    node.ops = ops
                gc.collect()
                t = time.process_time()
                found[name] = E.mentions(model, texts, cache=E.EntityCache())
                times[name].append((time.process_time() - t) * 1000 / max(1, len(texts)))
    finally:
        E.use_numpy_blas(model.nlp)
    print(f"\nNER per text, {len(texts)} texts of <= 2,500 characters (scrapinghub truth), CPU ms, "
          f"{args.rounds} rounds alternated:")
    for name, ms in times.items():
        print(f"   {name:<24} " + "  ".join(f"{m:6.2f}" for m in ms))
    a, b = found.values()
    print(f"   same entities on every text: {a == b} ({sum(len(f) for f in a)} mentions)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
