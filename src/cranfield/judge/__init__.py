"""Judging in the browser: a pool → assessors → qrels, on a real database (the ``judge`` extra).

* :mod:`cranfield.judge.storage`: the database (SQLite by default, PostgreSQL by URL): one schema,
  versioned migrations, every judgment committed before it is acknowledged;
* :mod:`cranfield.judge.queue`: the assessors' queues (topics claimed from the pool's judging order,
  an overlap fraction judged twice) and the agreement and progress the organiser sees;
* :mod:`cranfield.judge.server`: the web app (Starlette, served by uvicorn): a JSON API with bearer
  tokens and the two pages (assessor, organiser), plain HTML and vanilla JavaScript.

Nothing here is imported by ``import cranfield``; the web stack is imported only by the server.
See ``docs/judging.md``.
"""
