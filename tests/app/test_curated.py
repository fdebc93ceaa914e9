"""Ask page with the demo's curated layer: the pinned answer first, labelled, its
citations opening the quoted lines; the computed answer after it; notes and
curated links labelled by who made them."""

from __future__ import annotations

import re

from tests.app.helpers import plain, start

PINNED = "Who approves discounts above 20%?"


def _ask(at, question: str):
    at.text_input(key="question").set_value(question)
    at.button(key="FormSubmitter:ask-form-Ask").click().run()
    assert not at.exception, at.exception
    return at


BADGE = re.compile(r"^:\w+-badge\[(?::material/\w+: )?(.*)\]$")


def _badges(at) -> list[str]:
    found = [BADGE.match(m.value) for m in at.markdown]
    return [plain(m.group(1)) for m in found if m]


def test_pinned_answer_first_then_the_computed_one(app_env) -> None:
    at = _ask(start(), PINNED)
    subheaders = [s.value for s in at.subheader]
    assert (
        subheaders.index("Answer")
        < subheaders.index("Computed answer")
        < subheaders.index("Retrieved passages")
    )
    badges = _badges(at)
    assert badges[0] == "Curated" and "Extractive assembler" in badges[1:]
    assert any("written by a person" in plain(c.value) for c in at.caption)
    cites = [b for b in at.button if (b.key or "").startswith("cite-")]
    assert [plain(b.label) for b in cites] == [
        "[1] discount-approval-matrix.md · line 11",
        "[2] discount-approval-matrix.md · line 12",
    ]
    cites[0].click().run()
    viewer = "".join(h.proto.body for h in at.html if "rc-doc" in h.proto.body)
    assert '<div class="rc-line rc-marked"><span class="rc-no">11</span>' in viewer


def test_unmatched_question_has_no_curated_answer(app_env) -> None:
    at = _ask(start(), "How do I bake sourdough bread?")
    assert "Computed answer" not in [s.value for s in at.subheader]
    assert "Curated" not in _badges(at)


def test_notes_and_links_are_labelled_curated(app_env) -> None:
    at = _ask(start(), "Is the total of service credits in a month capped?")
    infos = [plain(i.value) for i in at.info]
    assert any(i.startswith("Curated note: ") for i in infos), infos
    related = [plain(b.label) for b in at.button if (b.key or "").startswith("rel-")]
    assert related and all(r.startswith(("curated: ", "computed: ")) for r in related), related
    passages = [plain(c.value) for c in at.caption]
    assert any(c.startswith("From the documents") for c in passages)
