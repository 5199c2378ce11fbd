"""Readers and writers: TREC files, data frames, and atomic output."""
