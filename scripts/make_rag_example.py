"""Make the shipped RAG example (src/cranfield/data/rag/): nugget assignments and citation-support
judgments of three simulated RAG systems on eight Cranfield queries. The judgments are simulated
(seeded), not made by people or a model: they exist so that the docs' examples run offline.

    python scripts/make_rag_example.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src" / "cranfield" / "data" / "rag"
QUERIES = {
    "1": "similarity laws for scale models of high-speed aircraft",
    "2": "structural aeroelastic problems in high-speed aircraft",
    "4": "heat transfer to a flat plate in hypersonic flow",
    "8": "boundary-layer transition at supersonic speeds",
    "9": "buckling of cylindrical shells under axial compression",
    "10": "theoretical pressure distribution on a cone at incidence",
    "12": "effect of leading-edge bluntness on heat transfer",
    "13": "experimental skin friction in turbulent boundary layers",
}
SYSTEMS = {"rag-bm25": 0.55, "rag-dense": 0.7, "rag-closedbook": 0.35}  # chance a nugget is supported


def main() -> None:
    rng = random.Random(2024)
    OUT.mkdir(parents=True, exist_ok=True)
    nuggets_lines, support_lines = [], []
    for run, skill in SYSTEMS.items():
        for qid, topic in QUERIES.items():
            nuggets = []
            for k in range(rng.randint(4, 9)):
                draw = rng.random()
                assignment = "support" if draw < skill else "partial_support" if draw < skill + 0.15 else "not_support"
                nuggets.append({"text": f"fact {k + 1} on {topic}", "importance": "vital" if k < 3 else "okay",
                                "assignment": assignment})
            nuggets_lines.append({"qid": qid, "query": topic, "run_id": run, "nuggets": nuggets})
            sentences = []
            for s in range(rng.randint(2, 5)):
                citations = [{"docid": str(rng.randint(1, 1400)),
                              "support": rng.choices(["full_support", "partial_support", "no_support"],
                                                     [skill, 0.2, 1 - skill])[0]}
                             for _ in range(rng.choice([0, 1, 1, 2]) if run != "rag-closedbook" else 0)]
                sentences.append({"text": f"sentence {s + 1} of the answer on {topic}", "citations": citations})
            support_lines.append({"qid": qid, "run_id": run, "sentences": sentences})
    for name, lines in (("assignments.jsonl", nuggets_lines), ("support.jsonl", support_lines)):
        (OUT / name).write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


if __name__ == "__main__":
    main()
