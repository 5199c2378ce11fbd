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
           "common.js": "text/javascript; charset=utf-8", "judge.js": "text/javascript; charset=utf-8",
           "organiser.js": "text/javascript; charset=utf-8",
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
    order: object = None  # adaptive order (a MoveToFront's order), or None: the pool's order
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


def _authorised(judging: Judging, request, role: str):
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


def _same_origin(request) -> None:
    """CSRF: a JSON body (a cross-site form cannot send one) from this server's own origin."""
    if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        raise _Problem(403, "cross-site request refused")
    origin = request.headers.get("origin")
    if origin is not None and origin != f"{request.url.scheme}://{request.headers.get('host', '')}":
        raise _Problem(403, f"request from another origin ({origin}) refused")
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        raise _Problem(415, "expected Content-Type: application/json")


async def _body_of(request) -> dict:
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


def _text_field(data: dict, key: str) -> str:
    if key not in data:
        raise _Problem(422, f"missing field {key!r}")
    if not isinstance(data[key], str):
        raise _Problem(422, f"field {key!r}: expected a string")
    return data[key]


def _judgment_fields(data: dict, scale: tuple, *, skip: bool):
    topic, doc = _text_field(data, "topic"), _text_field(data, "doc")
    grade = None
    if not skip:
        if "grade" not in data:
            raise _Problem(422, "missing field 'grade'")
        grade = data["grade"]
        if isinstance(grade, bool) or not isinstance(grade, int) or grade not in {g for g, _ in scale}:
            raise _Problem(422, f"grade {json.dumps(grade)} is outside the scale ({', '.join(str(g) for g, _ in scale)})")
    seconds = data.get("seconds")
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                                or not 0 <= seconds < 1e7):
        raise _Problem(422, "field 'seconds': expected a number of seconds ≥ 0")
    return topic, doc, grade, seconds


_EXPORTS = {"qrels": (queue.qrels_text, "text/plain", "qrels.txt"),
            "labels": (queue.labels_text, "text/csv", "labels.csv"),
            "times": (queue.times_text, "text/csv", "times.csv")}


class _Api:
    """The endpoints; each raises :class:`_Problem` (or :class:`queue.Refused`) to refuse."""

    def __init__(self, judging: Judging) -> None:
        # optional dependency (the judge extra)
        from starlette.concurrency import run_in_threadpool
        from starlette.responses import JSONResponse, Response

        self.judging, self.threaded, self.json, self.response = judging, run_in_threadpool, JSONResponse, Response

    async def me(self, request):
        account = _authorised(self.judging, request, "assessor")
        scale = [{"grade": g, "label": label} for g, label in self.judging.scale]
        return self.json({"name": account[1], "scale": scale}, headers=_HEADERS)

    async def next(self, request):
        judging = self.judging
        account = _authorised(judging, request, "assessor")
        found = await self.threaded(lambda: judging.pair(account[0], queue.next_pair(judging.db, account[0],
                                                                                      judging.order)))
        if found is None:
            return self.response(status_code=204, headers=_HEADERS)
        return self.json(found, headers=_HEADERS)

    async def _post(self, request, *, skip: bool):
        judging = self.judging
        account = _authorised(judging, request, "assessor")
        _same_origin(request)
        topic, doc, grade, seconds = _judgment_fields(await _body_of(request), judging.scale, skip=skip)

        def work():
            saved = queue.record(judging.db, account[0], topic, doc, grade, seconds, advance=judging.order is None)
            following = saved.next or queue.next_pair(judging.db, account[0], judging.order)
            return saved, judging.pair(account[0], following)

        saved, following = await self.threaded(work)
        return self.json({"saved": {"topic": saved.topic, "doc": saved.doc, "grade": saved.grade,
                                    "seconds": round(saved.seconds, 3)}, "next": following},
                         status_code=201, headers=_HEADERS)

    async def judgments(self, request):
        return await self._post(request, skip=False)

    async def skip(self, request):
        return await self._post(request, skip=True)

    async def undo(self, request):
        account = _authorised(self.judging, request, "assessor")
        _same_origin(request)
        await _body_of(request)
        undone = await self.threaded(queue.undo, self.judging.db, account[0])
        if undone is None:
            raise _Problem(409, "nothing to undo")
        current = await self.threaded(self.judging.pair, account[0], undone)
        return self.json({"undone": {"topic": undone[0], "doc": undone[1]}, "next": current}, headers=_HEADERS)

    async def status(self, request):
        _authorised(self.judging, request, "organiser")
        return self.json(await self.threaded(queue.status, self.judging.db), headers=_HEADERS)

    async def export(self, request):
        _authorised(self.judging, request, "organiser")
        kind = request.path_params["kind"]
        if kind not in _EXPORTS:
            raise _Problem(404, f"no export {kind!r} (qrels, labels, times)")
        function, media, name = _EXPORTS[kind]
        text = await self.threaded(function, self.judging.db)
        return self.response(text.encode("utf-8"), media_type=f"{media}; charset=utf-8",
                             headers={**_HEADERS, "Content-Disposition": f'attachment; filename="{name}"'})


def make_app(judging: Judging):
    """The Starlette application serving ``judging``."""
    # optional dependency (the judge extra)
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse, RedirectResponse, Response
    from starlette.routing import Route

    assets = _read_assets()
    api = _Api(judging)

    def asset(name: str):
        async def endpoint(request):
            return Response(assets[name], media_type=_ASSETS[name], headers=_HEADERS)
        return endpoint

    def handled(method):
        async def endpoint(request):
            try:
                return await method(request)
            except _Problem as error:
                return JSONResponse({"error": error.message}, status_code=error.status, headers=_HEADERS)
            except queue.Refused as error:
                return JSONResponse({"error": str(error)}, status_code=error.status, headers=_HEADERS)
        return endpoint

    async def home(request):
        return RedirectResponse("/judge", headers=_HEADERS)

    routes = [Route("/", home), Route("/judge", asset("judge.html")), Route("/organiser", asset("organiser.html")),
              *(Route(f"/static/{name}", asset(name)) for name in _ASSETS if not name.endswith(".html")),
              Route("/api/me", handled(api.me)), Route("/api/next", handled(api.next)),
              Route("/api/judgments", handled(api.judgments), methods=["POST"]),
              Route("/api/skip", handled(api.skip), methods=["POST"]),
              Route("/api/undo", handled(api.undo), methods=["POST"]),
              Route("/api/status", handled(api.status)), Route("/api/export/{kind}", handled(api.export))]
    return Starlette(routes=routes)
