"""Export of reviewed model output: accepted (or edited) answers and study
items only, as Markdown or JSON, with citations as document + lines.

Input is ``AiLog.accepted_items()``, which already leaves out rejected and
unreviewed items; ``export_items`` checks the decision again so a list built
some other way cannot leak an item nobody accepted.

Model text is data, not markup: in both formats images (which fetch a remote
URL when rendered), script links and raw HTML are removed
(``checks.defang``), and in Markdown every active character is escaped
(``checks.markdown_text``), so an exported answer renders as its words.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from ragcore.answer.ailog import ReviewedItem
from ragcore.answer.checks import defang, markdown_text

EXPORTED = ("accepted", "edited")


def cite(source: Mapping[str, Any]) -> str:
    """ "doc, lines a-b" (or "line a"), with pages for PDFs, from a citation's JSON."""
    first, last = source["first_line"], source["last_line"]
    lines = f"line {first}" if first == last else f"lines {first}-{last}"
    pages = list(source.get("pages") or [])
    where = ""
    if pages:
        where = f", p. {pages[0]}" if len(pages) == 1 else f", pp. {pages[0]}-{pages[-1]}"
    return f"{source['doc']}, {lines}{where}"


def final_item(reviewed: ReviewedItem) -> dict[str, Any]:
    """The item as accepted: the original, with the reviewer's edit applied.

    ``edited_item`` replaces the whole item (sources kept from the original
    unless the edit gives its own); ``edited_text`` replaces an answer's text,
    or a study item's answer (the key, for multiple choice).
    """
    item = dict(reviewed.item)
    if reviewed.decision == "edited":
        if reviewed.edited_item is not None:
            item = {**item, **reviewed.edited_item}
        if reviewed.edited_text is not None:
            if "mode" in item:  # an answer
                item["text"] = reviewed.edited_text
                item["sentences"] = []  # the model's sentence split no longer applies
            else:
                old = item.get("answer")
                item["answer"] = reviewed.edited_text
                if item.get("kind") == "mcq" and old in item.get("options", []):
                    item["options"] = [reviewed.edited_text if o == old else o for o in item["options"]]
    return item


def _sources(item: Mapping[str, Any]) -> list[dict]:
    # Answers keep resolved citations under "citations", study items under "sources".
    if "mode" in item:
        return list(item.get("citations") or [])
    return list(item.get("sources") or [])


def export_records(items: Iterable[ReviewedItem]) -> list[dict[str, Any]]:
    """One plain record per accepted item, ready for JSON."""
    out = []
    for reviewed in items:
        if reviewed.decision not in EXPORTED:
            continue
        item = final_item(reviewed)
        record: dict[str, Any] = {
            "call_id": reviewed.call_id,
            "item": reviewed.item_ref,
            "decision": reviewed.decision,
            "model": reviewed.model,
            "reviewed_at": reviewed.review_ts,
        }
        if "mode" in item:
            record |= {
                "type": "answer",
                "question": defang(item.get("question", reviewed.question)),
                "answer": defang(item["text"]),
            }
            record["checks"] = {
                k: item.get("checks", {}).get(k)
                for k in ("groundedness", "removed_citations", "unsupported_numbers")
            }
        else:
            record |= {
                "type": item.get("kind", "short"),
                "topic": defang(item.get("topic", reviewed.question)),
                "question": defang(item.get("question", "")),
                "answer": defang(item.get("answer", "")),
            }
            if item.get("kind") == "mcq":
                record["options"] = [defang(o) for o in item.get("options") or []]
            record["checks"] = {k: v.get("passed") for k, v in (item.get("checks") or {}).items()}
        record["citations"] = [
            {
                "n": s.get("n"),
                "doc": s["doc"],
                "first_line": s["first_line"],
                "last_line": s["last_line"],
                "cite": cite(s),
            }
            for s in _sources(item)
        ]
        out.append(record)
    return out


def export_json(items: Iterable[ReviewedItem]) -> str:
    return json.dumps(export_records(items), indent=2, ensure_ascii=False)


def export_markdown(items: Iterable[ReviewedItem], title: str = "Reviewed answers and study items") -> str:
    """Markdown: each accepted item with its citations as document + lines;
    every text from a model or a document is escaped (``markdown_text``)."""
    md = markdown_text
    records = export_records(items)
    lines = [f"# {md(title)}", ""]
    if not records:
        lines += ["No accepted items.", ""]
    for i, r in enumerate(records, start=1):
        edited = " (edited)" if r["decision"] == "edited" else ""
        if r["type"] == "answer":
            lines += [
                f"## {i}. Answer{edited}",
                "",
                f"**Question:** {md(r['question'])}",
                "",
                md(r["answer"]),
                "",
            ]
        else:
            kind = "Multiple choice" if r["type"] == "mcq" else "Short answer"
            lines += [f"## {i}. {kind}{edited}", "", f"**Question:** {md(r['question'])}", ""]
            if r["type"] == "mcq":
                for letter, option in zip("ABCDEFGH", r.get("options", []), strict=False):
                    mark = " **(key)**" if option == r["answer"] else ""
                    lines.append(f"- {letter}. {md(option)}{mark}")
                lines.append("")
            else:
                lines += [f"**Answer:** {md(r['answer'])}", ""]
        if r["citations"]:
            lines.append("Sources:")
            lines += [
                f"- [{c['n']}] {md(c['cite'])}" if c.get("n") is not None else f"- {md(c['cite'])}"
                for c in r["citations"]
            ]
            lines.append("")
        lines += [
            f"_Model: {md(str(r['model']))}; call {r['call_id']}, {md(str(r['item']))}; {r['decision']}._",
            "",
        ]
    return "\n".join(lines)
