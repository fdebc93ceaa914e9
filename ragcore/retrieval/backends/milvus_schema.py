"""The Milvus side of one library collection: names, schema, rows.

One Milvus collection per library collection holds each passage's text, its
BM25 terms (the embedded index's tokens, analysed by Milvus into a sparse
field by a BM25 function), its 384-d dense
vector (COSINE) and the fields a hit needs (doc, first/last line, label,
collection). A passage's primary key hashes everything that makes it that
passage under that embedding model, so a changed passage, a re-chunked
document or a new model shows up as deleted keys plus new keys.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np

from ...records import Passage, sha256_hex
from ..bm25 import BM25Params

TEXT_MAX_BYTES = 60_000  # Milvus VARCHAR holds at most 65,535 bytes
LABEL_MAX_BYTES = 2_000
DOC_MAX_BYTES = 1_000
META_COLLECTION = "ragcore_meta"
BLOB_COLLECTION = "ragcore_blobs"  # per-collection term statistics, in parts
BLOB_PART_CHARS = 60_000

# BM25 in Milvus scores the project's own tokens (``BM25Params.terms``:
# stemmed, the stop list, identifiers and amounts whole as well as by their
# parts), written space-separated into a ``terms`` field, so both backends
# tokenise alike (Milvus Lite has no stemmer filter). Milvus's standard
# tokenizer keeps a run of letters and digits whole; a token holding any
# other character ("iso27001" stays, "v2.3.1" and "$1199" do not) is written
# as a fixed alphanumeric name made from its hash.
ANALYZER = {"tokenizer": "standard"}
_PLAIN_TOKEN = re.compile(r"[a-z0-9]{1,40}")
# Part of every collection name: a collection made under an older layout
# (v1 analysed the raw text) is never reused; the library re-syncs a new one.
LAYOUT = "v2"


def milvus_token(token: str) -> str:
    """``token`` as Milvus's standard tokenizer will keep it: itself when it
    is plain letters and digits, else a hash-named stand-in."""
    return token if _PLAIN_TOKEN.fullmatch(token) else "zz" + sha256_hex(token)[:16]


def milvus_terms(text: str, params: BM25Params, max_bytes: int = 60_000) -> str:
    """The ``terms`` field of a passage (or the text of a BM25 query)."""
    out = " ".join(milvus_token(t) for t in params.terms(text))
    return out if len(out) <= max_bytes else out[:max_bytes].rsplit(" ", 1)[0]


HNSW = {"M": 16, "efConstruction": 200}
MIN_EF = 200  # search breadth; raised to the limit when a search asks for more


def collection_name(library_collection: str, dim: int) -> str:
    """A valid Milvus name for a library collection: letters, digits and
    underscores, made unique by a hash of the original name."""
    readable = re.sub(r"[^A-Za-z0-9_]", "_", library_collection)[:40]
    return f"rc_{readable}_{sha256_hex(library_collection)[:10]}_d{dim}_{LAYOUT}"


def folder_collection_name(content_key: str, dim: int) -> str:
    """The Milvus collection of a ``--corpus`` folder, keyed by its content."""
    return f"rc_dir_{content_key}_d{dim}_{LAYOUT}"


def passage_key(passage: Passage, model_id: str) -> str:
    """Primary key: the passage's document, place, chunking and text, and the
    model that embedded it."""
    p = passage
    raw = f"{model_id}\0{p.doc}\0{p.index}\0{p.first_line}\0{p.last_line}\0{p.start}\0{p.end}\0{p.chunking}"
    return sha256_hex(f"{raw}\0{p.content_hash}")[:32]


def content_key(keys: Iterable[str]) -> str:
    """One hash over a set of passage keys (order-free)."""
    return sha256_hex("\n".join(sorted(keys)))[:16]


def _clip(text: str, max_bytes: int) -> str:
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    return data[:max_bytes].decode("utf-8", errors="ignore")


def build_schema(dim: int):
    from pymilvus import DataType, Function, FunctionType, MilvusClient

    schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
    schema.add_field("pk", DataType.VARCHAR, is_primary=True, max_length=64)
    schema.add_field("text", DataType.VARCHAR, max_length=65_535)
    schema.add_field(
        "terms", DataType.VARCHAR, max_length=65_535, enable_analyzer=True, analyzer_params=ANALYZER
    )
    schema.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
    schema.add_field("dense", DataType.FLOAT_VECTOR, dim=dim)
    schema.add_field("doc", DataType.VARCHAR, max_length=DOC_MAX_BYTES + 24)
    schema.add_field("passage_index", DataType.INT64)
    schema.add_field("first_line", DataType.INT64)
    schema.add_field("last_line", DataType.INT64)
    schema.add_field("label", DataType.VARCHAR, max_length=LABEL_MAX_BYTES + 24)
    schema.add_field("collection", DataType.VARCHAR, max_length=1_024)
    schema.add_function(
        Function(
            name="text_bm25",
            function_type=FunctionType.BM25,
            input_field_names=["terms"],
            output_field_names=["sparse"],
        )
    )
    return schema


def build_index_params(client, bm25: BM25Params):
    """BM25 with the embedded index's k1 and b; HNSW for the dense field.
    Build parameters go nested under "params" (a JSON value), the form both
    Milvus proper and Milvus Lite read (Lite 3.2 drops them when flattened)."""
    params = client.prepare_index_params()
    params.add_index(
        field_name="sparse",
        index_type="SPARSE_INVERTED_INDEX",
        metric_type="BM25",
        params={"params": {"bm25_k1": bm25.k1, "bm25_b": bm25.b}},
    )
    params.add_index(field_name="dense", index_type="HNSW", metric_type="COSINE", params={"params": HNSW})
    return params


def build_meta_schema():
    """A small key/value collection (Milvus needs a vector field in every
    collection; this one's is a constant)."""
    from pymilvus import DataType, MilvusClient

    schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
    schema.add_field("key", DataType.VARCHAR, is_primary=True, max_length=512)
    schema.add_field("value", DataType.VARCHAR, max_length=1_024)
    schema.add_field("v", DataType.FLOAT_VECTOR, dim=2)
    return schema


def build_blob_schema():
    """Keyed text parts (base64), for data larger than one meta value."""
    from pymilvus import DataType, MilvusClient

    schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
    schema.add_field("key", DataType.VARCHAR, is_primary=True, max_length=512)
    schema.add_field("value", DataType.VARCHAR, max_length=65_535)
    schema.add_field("v", DataType.FLOAT_VECTOR, dim=2)
    return schema


def rows(
    passages: Sequence[Passage],
    keys: Sequence[str],
    vectors: np.ndarray,
    collection: str,
    bm25: BM25Params,
    bodies: Sequence[str],
) -> list[dict[str, object]]:
    """Milvus rows for ``passages`` (the sparse field is made by Milvus);
    ``bodies`` are the texts BM25 indexes for them (``bm25.index_texts``,
    which needs the passages around each one, so the caller makes them)."""
    out = []
    for p, key, vec, body in zip(passages, keys, vectors, bodies, strict=True):
        out.append(
            {
                "pk": key,
                "text": _clip(p.text, TEXT_MAX_BYTES),
                "terms": milvus_terms(body, bm25, TEXT_MAX_BYTES),
                "dense": np.asarray(vec, dtype=np.float32).tolist(),
                "doc": _clip(p.doc, DOC_MAX_BYTES),
                "passage_index": p.index,
                "first_line": p.first_line,
                "last_line": p.last_line,
                "label": _clip(p.label, LABEL_MAX_BYTES),
                "collection": _clip(collection, 1_000),
            }
        )
    return out


def maybe_clipped(row: dict[str, object]) -> bool:
    """Whether a stored row's text, doc or label may have been cut by ``rows``."""
    limits = (("text", TEXT_MAX_BYTES), ("doc", DOC_MAX_BYTES), ("label", LABEL_MAX_BYTES))
    return any(len(str(row.get(name, "")).encode("utf-8")) >= limit - 3 for name, limit in limits)


def dense_params(limit: int) -> dict[str, object]:
    """HNSW search parameters returning a full list of ``limit`` hits even
    under a filter: the search breadth ``ef`` is never below the limit."""
    return {"metric_type": "COSINE", "params": {"ef": max(MIN_EF, limit)}}


def bm25_params() -> dict[str, object]:
    return {"metric_type": "BM25", "params": {}}
