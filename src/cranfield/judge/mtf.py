"""Adaptive Move-to-Front for the judging app: each assessor's next document within a topic is the
one local MTF (:mod:`cranfield.judgments.pooling`, Cormack, Palmer & Clarke 1998) would judge next
given that assessor's judgments of the topic so far.

MTF given the judgments so far replays the judging done so far (each step depends only on the
labels of documents already judged), so its first document not yet judged is MTF's next choice:
the order is recomputed, from the runs, after every judgment. Skipped documents count as not
relevant, as unjudged ones do in MTF.
"""

from __future__ import annotations

import numpy as np

from ..judgments.pooling import build_pool
from ..retrieval.run import read_run

__all__ = ["MoveToFront"]


class MoveToFront:
    """The runs that made the pool, split by topic once; :meth:`order` ranks a topic's documents."""

    def __init__(self, runs, *, relevance_level: int = 1) -> None:
        self.relevance_level = relevance_level
        self.by_topic: dict[str, dict[str, tuple[np.ndarray, np.ndarray]]] = {}
        for position, source in enumerate(runs):
            run = read_run(source)
            name = f"{position}:{run.name or 'run'}"
            qid = np.asarray(run.qid.to_numpy(zero_copy_only=False), dtype=object)
            docno = np.asarray(run.docno.to_numpy(zero_copy_only=False), dtype=object)
            score = np.asarray(run.score)
            order = np.argsort(qid, kind="stable")
            topics, starts = np.unique(qid[order], return_index=True)
            for topic, rows in zip(topics.tolist(), np.split(order, starts[1:])):
                self.by_topic.setdefault(topic, {})[name] = (docno[rows], score[rows])

    def order(self, topic: str, judged: dict[str, int | None]) -> list[str]:
        """The topic's documents in MTF's judging order given ``judged`` (doc -> grade, None: skipped)."""
        runs = self.by_topic.get(topic)
        if not runs:
            return []
        named = {name: {topic: dict(zip(docs.tolist(), scores.tolist()))} for name, (docs, scores) in runs.items()}
        qrels = {topic: {doc: (grade if grade is not None else -1) for doc, grade in judged.items()}} if judged else None
        pool = build_pool(named, method="mtf", qrels=qrels, relevance_level=self.relevance_level)
        return pool.docno.tolist()
