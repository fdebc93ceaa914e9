"""The app's services: one concern each, no streamlit.

- ``collections``: the demo mirror, session isolation, quotas and expiry
- ``indexes``: the models and one retriever per collection
- ``documents``: upload, re-chunk, remove, passages, line views, cited PDF pages
  (``views``, ``originals``, ``pdf_pages``)
- ``curation``: the curated layer of a collection (pinned answers, notes, links)
- ``asking``: ask, switch lens, related passages, the last query
- ``review``: the AI log, spending, study items, reviews and exports
- ``evaluation``: stored runs, shipped gold sets, running a gold set now
- ``generation``: stored generation runs, blind rating, a new generation run
- ``explain``: live figures for "How it works"
- ``workspace``: composes them over one library for the pages
"""

from .asking import Asking, AskOutcome, LastQuery, SearchSnapshot
from .collections import Collections
from .common import (
    CHUNKINGS,
    DEMO_COLLECTION,
    DEMO_QUESTIONS,
    SESSION_PREFIX,
    UPLOAD_SUFFIXES,
    UPLOADS_COLLECTION,
    safe_name,
)
from .documents import Documents, UploadOutcome
from .evaluation import Evaluations, StoredRun
from .explain import CollectionFacts, Explain
from .indexes import Indexes
from .review import Review
from .views import DocumentView, ViewLine
from .workspace import Workspace

__all__ = [
    "CHUNKINGS",
    "DEMO_COLLECTION",
    "DEMO_QUESTIONS",
    "SESSION_PREFIX",
    "UPLOADS_COLLECTION",
    "UPLOAD_SUFFIXES",
    "AskOutcome",
    "Asking",
    "CollectionFacts",
    "Collections",
    "DocumentView",
    "Documents",
    "Evaluations",
    "Explain",
    "Indexes",
    "LastQuery",
    "Review",
    "SearchSnapshot",
    "StoredRun",
    "UploadOutcome",
    "ViewLine",
    "Workspace",
    "safe_name",
]
