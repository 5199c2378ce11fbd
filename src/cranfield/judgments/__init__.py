"""Test collections: assessor agreement and crowd labels."""
