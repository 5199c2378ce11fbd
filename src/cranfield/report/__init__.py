"""Presentation: tables (terminal, Markdown, LaTeX, CSV, TSV, JSON), plots and reports."""
