"""Leaderboard submissions: an upload form for people and a JSONL endpoint for scripts.

Both validate the whole file first (every bad line listed, nothing stored), store the answers,
and judge them in a background task; the submission page shows the status and links to the
leaderboard, which includes the new model as soon as it is scored.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, Form, HTTPException, Request, UploadFile
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from lvlmbench.web._render import render, require_benchmark, store_of
from lvlmbench.web.background import judge_submission
from lvlmbench.web.security import check_origin, check_write, require_owner
from lvlmbench.web.submissions import Submission, SubmissionError, store_submission

__all__ = ["router"]

router = APIRouter()
_JSONL_TYPES = ("application/jsonl", "application/x-ndjson", "application/json")


@router.get("/b/{name}/submit", response_class=HTMLResponse)
def submit_page(request: Request, name: str) -> Response:
    require_benchmark(request, name)
    return render(request, "submit.html", name=name, errors=[], model="")


@router.post("/b/{name}/submit", response_class=HTMLResponse)
async def submit_form(
    request: Request,
    name: str,
    background: BackgroundTasks,
    model: Annotated[str, Form(max_length=100)],
    answers: UploadFile,
    csrf: Annotated[str, Form(max_length=100)] = "",
) -> Response:
    require_owner(check_write(request, csrf), "submitting answers")
    require_benchmark(request, name)
    data = await answers.read()
    store = store_of(request)
    try:
        submission = await run_in_threadpool(store_submission, store, name, model, data)
    except SubmissionError as exc:
        return render(
            request, "submit.html", status_code=422, name=name, errors=exc.errors, model=model
        )
    background.add_task(judge_submission, store, submission.id, request.app.state.judge)
    return RedirectResponse(f"/submissions/{submission.id}", status_code=303)


@router.post("/api/b/{name}/submissions")
async def submit_api(
    request: Request, name: str, model: str, background: BackgroundTasks
) -> Response:
    """For scripts: ``curl --data-binary @answers.jsonl -H 'Content-Type: application/jsonl'``.

    The JSON content type matters: browsers cannot send it cross-site without a CORS preflight
    (which this server never grants), so no other site can post here through a visitor."""
    check_origin(request)
    if request.app.state.settings.token is not None:
        # A Bearer token passes; a browser cookie alone does not (no CSRF value comes with it).
        require_owner(check_write(request, None), "submitting answers")
    media = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if media not in _JSONL_TYPES:
        raise HTTPException(415, f"send the JSONL with Content-Type one of {_JSONL_TYPES}")
    require_benchmark(request, name)
    data = await request.body()
    try:
        submission = await run_in_threadpool(store_submission, store_of(request), name, model, data)
    except SubmissionError as exc:
        return JSONResponse({"errors": exc.errors}, status_code=422)
    background.add_task(judge_submission, store_of(request), submission.id, request.app.state.judge)
    return JSONResponse(
        {"id": submission.id, "model": submission.model, "url": f"/submissions/{submission.id}"},
        status_code=202,
    )


@router.get("/submissions/{submission_id}", response_class=HTMLResponse)
def submission_page(request: Request, submission_id: str) -> Response:
    found = Submission.load(store_of(request), submission_id)
    if found is None:
        raise HTTPException(404, "no such submission")
    return render(request, "submission.html", submission=found)
