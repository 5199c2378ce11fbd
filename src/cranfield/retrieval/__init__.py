"""Retrieval evaluation: qrels and runs, the ranked view, evaluation and trec_eval compatibility."""
