"""The judging web app: a JSON API and two pages, on Starlette (served by uvicorn).

API (every request with ``Authorization: Bearer TOKEN``; see ``docs/judging.md``):

* ``GET /api/next``: the assessor's next topic and document (200), the same until judged or
  skipped, or 204 when the queue is done;
* ``POST /api/judgments`` ``{"topic", "doc", "grade", "seconds"?}``: 201 once committed, with the
  next pair; ``POST /api/skip`` ``{"topic", "doc"}``; ``POST /api/undo``;
* ``GET /api/me``; for the organiser ``GET /api/status`` and ``GET /api/export/{qrels,labels,times}``.

Safety: an account is found by the SHA-256 of its token; a state-changing request must be JSON
(``Content-Type: application/json``, which a cross-site form cannot send) and, when the browser
names its origin (``Origin`` or ``Sec-Fetch-Site``), come from this server's own origin (CSRF). No
part of a URL or of a document id reaches the file system: the pages and scripts are read once
from the package into memory and served from a fixed table. Pages forbid inline scripts and any
other origin (Content-Security-Policy); documents are shown as text (``textContent``), never markup.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from importlib import resources

from ..io.documents import Document, Topic
from . import queue
from .storage import Database

__all__ = ["DEFAULT_SCALE", "Judging", "make_app", "query_terms"]

DEFAULT_SCALE = ((0, "Not relevant"), (1, "Relevant"), (2, "Highly relevant"))
_ASSETS = {"judge.html": "text/html; charset=utf-8", "organiser.html": "text/html; charset=utf-8",
           "judge.js": "text/javascript; charset=utf-8", "organiser.js": "text/javascript; charset=utf-8",
           "style.css": "text/css; charset=utf-8"}
_HEADERS = {"Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' "
            "data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'",
            "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY",
            "Cache-Control": "no-store"}
_MAX_BODY = 65536
_STOPWORDS = frozenset(
    ["a", "about", "above", "after", "again", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "being", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "done", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "how", "if", "in", "into", "is", "it", "its", "itself", "may", "might", "more", "most", "must", "no", "nor", "not", "of", "on", "once", "only", "or", "other", "our", "out", "over", "own", "same", "shall", "should", "so", "some", "such", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "upon", "very", "was", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would"])


def query_terms(topic: Topic) -> list[str]:
    """The words of a topic's title to highlight: lower case, 3 letters or more, no stop words."""
    words = re.findall(r"[^\W_]+", topic.title.lower())
    return sorted({w for w in words if len(w) >= 3 and w not in _STOPWORDS})


@dataclass
class Judging:
    """What the server serves: the database, the documents and topics, the grade scale."""

    db: Database
    documents: dict[str, Document]
    topics: dict[str, Topic]
    scale: tuple = DEFAULT_SCALE
    _tokens: dict = field(default_factory=dict)

    def account(self, token: str):
        if token not in self._tokens:
            found = self.db.account_of(token)
            if found is None:
                return None
            if len(self._tokens) > 10000:
                self._tokens.clear()
            self._tokens[token] = found
        return self._tokens[token]

    def pair(self, assessor: int, pair) -> dict | None:
        if pair is None:
            return None
        topic, doc = self.topics[pair[0]], self.documents[pair[1]]
        return {"topic": {"id": topic.id, "title": topic.title, "description": topic.description,
                          "narrative": topic.narrative},
                "doc": {"id": doc.id, "title": doc.title, "text": doc.text}, "terms": query_terms(topic),
                "progress": queue.progress(self.db, assessor, topic.id)}


class _Problem(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def _read_assets() -> dict[str, bytes]:
    folder = resources.files("cranfield.judge").joinpath("assets")
    return {name: folder.joinpath(name).read_bytes() for name in _ASSETS}


def make_app(judging: Judging):
    """The Starlette application serving ``judging``."""
    from starlette.applications import (
        Starlette,  # optional dependency (the judge extra)
    )
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import JSONResponse, RedirectResponse, Response
    from starlette.routing import Route

    assets = _read_assets()
    grades = {g for g, _ in judging.scale}

    def problem(status: int, message: str):
        return JSONResponse({"error": message}, status_code=status, headers=_HEADERS)

    def asset(name: str):
        async def endpoint(request):
            return Response(assets[name], media_type=_ASSETS[name], headers=_HEADERS)
        return endpoint

    def authorised(request, role: str):
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise _Problem(401, "missing token: send 'Authorization: Bearer TOKEN'")
        account = judging.account(token.strip())
        if account is None:
            raise _Problem(401, "unknown token")
        if account[2] != role:
            raise _Problem(403, f"this request is for the {role}'s token")
        return account

    def same_origin(request) -> None:
        if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
            raise _Problem(403, "cross-site request refused")
        origin = request.headers.get("origin")
        if origin is not None and origin != f"{request.url.scheme}://{request.headers.get('host', '')}":
            raise _Problem(403, f"request from another origin ({origin}) refused")
        if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
            raise _Problem(415, "expected Content-Type: application/json")

    async def body_of(request) -> dict:
        raw = await request.body()
        if len(raw) > _MAX_BODY:
            raise _Problem(413, f"body larger than {_MAX_BODY} bytes")
        try:
            data = json.loads(raw or b"{}")
        except (ValueError, UnicodeDecodeError) as error:
            raise _Problem(400, f"malformed JSON: {error}") from None
        if not isinstance(data, dict):
            raise _Problem(400, "expected a JSON object")
        return data

    def text_field(data: dict, key: str) -> str:
        if key not in data:
            raise _Problem(422, f"missing field {key!r}")
        if not isinstance(data[key], str):
            raise _Problem(422, f"field {key!r}: expected a string")
        return data[key]

    def handler(function):
        async def endpoint(request):
            try:
                return await function(request)
            except _Problem as error:
                return problem(error.status, error.message)
            except queue.Refused as error:
                return problem(error.status, str(error))
        return endpoint

    async def me(request):
        account = authorised(request, "assessor")
        return JSONResponse({"name": account[1], "scale": [{"grade": g, "label": label} for g, label in judging.scale]},
                            headers=_HEADERS)

    async def next_(request):
        account = authorised(request, "assessor")
        found = await run_in_threadpool(lambda: judging.pair(account[0], queue.next_pair(judging.db, account[0])))
        if found is None:
            return Response(status_code=204, headers=_HEADERS)
        return JSONResponse(found, headers=_HEADERS)

    async def post_judgment(request, *, skip: bool):
        account = authorised(request, "assessor")
        same_origin(request)
        data = await body_of(request)
        topic, doc = text_field(data, "topic"), text_field(data, "doc")
        grade = None
        if not skip:
            if "grade" not in data:
                raise _Problem(422, "missing field 'grade'")
            grade = data["grade"]
            if isinstance(grade, bool) or not isinstance(grade, int) or grade not in grades:
                raise _Problem(422, f"grade {json.dumps(grade)} is outside the scale "
                                    f"({', '.join(str(g) for g, _ in judging.scale)})")
        seconds = data.get("seconds")
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                                    or not 0 <= seconds < 1e7):
            raise _Problem(422, "field 'seconds': expected a number of seconds ≥ 0")

        def work():
            saved = queue.record(judging.db, account[0], topic, doc, grade, seconds)
            following = saved.next if saved.next is not None else queue.next_pair(judging.db, account[0])
            return saved, judging.pair(account[0], following)

        saved, following = await run_in_threadpool(work)
        return JSONResponse({"saved": {"topic": saved.topic, "doc": saved.doc, "grade": saved.grade,
                                       "seconds": round(saved.seconds, 3)}, "next": following},
                            status_code=201, headers=_HEADERS)

    async def judgments(request):
        return await post_judgment(request, skip=False)

    async def skip(request):
        return await post_judgment(request, skip=True)

    async def undo(request):
        account = authorised(request, "assessor")
        same_origin(request)
        await body_of(request)
        undone = await run_in_threadpool(queue.undo, judging.db, account[0])
        if undone is None:
            raise _Problem(409, "nothing to undo")
        current = await run_in_threadpool(judging.pair, account[0], undone)
        return JSONResponse({"undone": {"topic": undone[0], "doc": undone[1]}, "next": current}, headers=_HEADERS)

    async def status(request):
        authorised(request, "organiser")
        return JSONResponse(await run_in_threadpool(queue.status, judging.db), headers=_HEADERS)

    exports = {"qrels": (queue.qrels_text, "text/plain", "qrels.txt"),
               "labels": (queue.labels_text, "text/csv", "labels.csv"),
               "times": (queue.times_text, "text/csv", "times.csv")}

    async def export(request):
        authorised(request, "organiser")
        kind = request.path_params["kind"]
        if kind not in exports:
            raise _Problem(404, f"no export {kind!r} (qrels, labels, times)")
        function, media, name = exports[kind]
        text = await run_in_threadpool(function, judging.db)
        return Response(text.encode("utf-8"), media_type=f"{media}; charset=utf-8",
                        headers={**_HEADERS, "Content-Disposition": f'attachment; filename="{name}"'})

    async def home(request):
        return RedirectResponse("/judge", headers=_HEADERS)

    routes = [Route("/", home), Route("/judge", asset("judge.html")), Route("/organiser", asset("organiser.html")),
              *(Route(f"/static/{name}", asset(name)) for name in _ASSETS if not name.endswith(".html")),
              Route("/api/me", handler(me)), Route("/api/next", handler(next_)),
              Route("/api/judgments", handler(judgments), methods=["POST"]),
              Route("/api/skip", handler(skip), methods=["POST"]), Route("/api/undo", handler(undo), methods=["POST"]),
              Route("/api/status", handler(status)), Route("/api/export/{kind}", handler(export))]
    return Starlette(routes=routes)
