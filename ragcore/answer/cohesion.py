"""What a quoted sentence needs to be read alone: cohesion between sentences.

A sentence quoted by itself can lose what it leans on ("It has ...") or what
it announces ("... as follows:"); these rules bring those sentences of the
same document, in document order (Halliday and Hasan, "Cohesion in English",
1976).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragcore.text import tokenize

from .units import Unit

# A sentence that leans on the one before it: an enumeration step ("Second,
# concentration of knowledge ...") or a back-reference in its first words
# ("We plan to offer them ...", "During that time ..."). Quoted without its
# predecessor it loses its subject; a chosen sentence followed by one loses
# what it goes on to say (Halliday and Hasan, "Cohesion in English", 1976:
# reference and conjunction are what tie a sentence to the one before).
_FOLLOWS = re.compile(
    r"^\W*(?:(?:first|second|third|fourth|fifth)(?:ly\b|\s*[,:])|(?:finally|also|in addition|otherwise)\b)"
    r"|^(?:\W*\w+\W+){0,4}?(?:it|its|they|them|their|this|that|these|those|such)\b(?!-)",
    re.IGNORECASE,
)
MAX_FOLLOWING = 3  # sentences one chosen sentence may bring after it
FOLLOW_GAP = 1  # lines allowed between a sentence and the one it leans on
# An enumeration's steps ("First, ...", "Second, ...") come after the sentence
# that announces them, each step possibly with sentences of its own between.
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")
# an ordinal as an adverb ("Third, ...", "Secondly"), not as an adjective ("Third parties may not ...")
_STEP = re.compile(r"^\W*(first|second|third|fourth|fifth|sixth)(?:ly\b|\s*[,:])", re.IGNORECASE)
STEP_WINDOW = (
    12  # sentences after the announcing one within which its steps are read (three steps of up to four)
)
MAX_STEPS = len(_ORDINALS)
ANNOUNCED_LISTS = True  # a sentence announcing a list brings its items (_announced_items); measured on/off


def follows(text: str) -> bool:
    """Whether a sentence leans on the sentence before it."""
    return _FOLLOWS.match(text) is not None


def _step(text: str) -> int | None:
    """0 for "First, ...", 1 for "Second, ...", ...; None for other sentences."""
    m = _STEP.match(text)
    return None if m is None else _ORDINALS.index(m.group(1).lower())


def _steps(seq: Sequence[Unit], i: int) -> list[Unit]:
    """The numbered steps that follow ``seq[i]`` ("First, ..." within the next two
    sentences, then "Second, ...", ... in order), or none."""
    window = seq[i + 1 : i + 1 + STEP_WINDOW]
    if not any(_step(u.text) == 0 for u in window[:2]):
        return []
    out: list[Unit] = []
    for u in window:
        if _step(u.text) == len(out):
            out.append(u)
        if len(out) == MAX_STEPS:
            break
    return out


# A sentence that points forward to a list ("The features below are ...", "...
# as follows:", a lead-in ending in a colon) says what the list is about, and
# the list says what it announces: quoted alone, it names neither ("cataphora",
# Halliday and Hasan 1976, the forward counterpart of the ties above). Its
# retrieved items are quoted after it when the list starts right after its
# paragraph.
# A lead-in that stops without a full stop ("... has the equation") runs on
# into what is displayed below it.
_ANNOUNCES = re.compile(r":\s*$|[^\W\d_]\s*$|\b(?:below|the following|as follows)\b", re.IGNORECASE)
LIST_GAP = 2  # lines between the announcing paragraph (or one item) and the next item: a blank line
MAX_BETWEEN = 2  # sentences of the announcing paragraph that may stand between it and its list
MAX_ITEMS = 6  # items one announcing sentence brings (as many as an enumeration's steps)


def announces(text: str) -> bool:
    """Whether a sentence points forward to what follows it."""
    return _ANNOUNCES.search(text) is not None


def _announced_items(seq: Sequence[Unit], i: int) -> list[Unit]:
    """The list items that follow ``seq[i]`` when it announces a list: the first
    item within ``LIST_GAP`` lines of its paragraph's last retrieved sentence,
    then each next item within ``LIST_GAP`` lines of the one before."""
    u = seq[i]
    if u.list_item or not announces(u.text):
        return []
    nxt = seq[i + 1] if i + 1 < len(seq) else None
    if nxt is not None and not nxt.list_item and u.text.endswith(":"):
        # a lead-in ending in a colon before a paragraph: the paragraph is what it announces
        return [nxt] if u.last_line < nxt.first_line <= u.last_line + LIST_GAP else []
    last, out = u.last_line, list[Unit]()
    for between, v in enumerate(seq[i + 1 :]):
        if v.first_line > last + LIST_GAP or (not v.list_item and (out or between >= MAX_BETWEEN)):
            break
        if v.list_item:
            out.append(v)
            if len(out) == MAX_ITEMS:
                break
        last = v.last_line
    return out


def _documents(units: Sequence[Unit]) -> dict[str, list[Unit]]:
    by_doc: dict[str, list[Unit]] = {}
    for u in units:
        if u.kind == "sentence":
            by_doc.setdefault(u.doc, []).append(u)
    for seq in by_doc.values():
        seq.sort(key=lambda u: u.position)
    return by_doc


# A sentence that states what holds outside a condition another sentence
# sets ("Outside the money-back window, an annual subscription runs to the end
# of its term"): the other half of a conditional answer, read wherever it
# stands in the document, when the condition it names is the quoted
# sentence's own (its words are in that sentence or its heading path). Not
# "After the X,": that is a sequence in time ("After the November outage,
# three customers' lawyers asked ..." was brought to an uptime answer).
_COMPLEMENT = re.compile(
    r"^\W*(?:outside|beyond)\s+(?:of\s+)?"
    r"(?:the|this|that|these|those|such|its|their|a|an)\s+(?P<condition>[^,;:]{3,60}),",
    re.IGNORECASE,
)


def complement(u: Unit, seq: Sequence[Unit], used: set[int]) -> Unit | None:
    """The sentence of ``u``'s document after ``u`` that says what holds
    outside the condition ``u`` states, if one was retrieved."""
    own = set(tokenize(f"{u.text} {u.label}"))
    for v in seq:
        if v.position <= u.position or id(v) in used:
            continue
        m = _COMPLEMENT.match(v.text)
        words = set(tokenize(m.group("condition"))) if m else set()
        if words and words <= own:
            return v
    return None


def _around(u: Unit, seq: Sequence[Unit], used: set[int], placed: set[int]) -> tuple[list[Unit], list[Unit]]:
    """What ``u`` needs to be read alone: the sentence before it when it leans on
    that one, and after it the sentences leaning on it or the steps it announces
    (a step chosen on its own moves up beside its announcement; ``placed``: units
    already in the answer)."""
    i = next(k for k, v in enumerate(seq) if v is u)
    before: list[Unit] = []
    if i > 0 and follows(u.text) and _step(u.text) is None:
        prev = seq[i - 1]
        if prev.last_line + FOLLOW_GAP >= u.first_line and id(prev) not in used:
            before.append(prev)
    after = [v for v in _steps(seq, i) if id(v) not in placed]
    if not after and ANNOUNCED_LISTS:
        after = [v for v in _announced_items(seq, i) if id(v) not in placed]
    if not after:
        last = i
        for j in range(i + 1, min(len(seq), i + 1 + MAX_FOLLOWING)):
            nxt = seq[j]
            if nxt.first_line > seq[last].last_line + FOLLOW_GAP or not follows(nxt.text) or id(nxt) in used:
                break
            after.append(nxt)
            last = j
        if after and ANNOUNCED_LISTS:  # "It has an interpretation ...:" continuing u announces a list
            after += [v for v in _announced_items(seq, last) if id(v) not in placed and id(v) not in used]
    other = complement(u, seq, used | placed | {id(v) for v in after})
    return before, after + ([other] if other is not None else [])


def with_continuations(chosen: Sequence[Unit], units: Sequence[Unit], taken: set[int]) -> list[Unit]:
    """``chosen`` with what each sentence needs to be read alone (``_around``):
    the sentence it leans on before it, and the retrieved sentences of the same
    document that continue it after it (up to ``MAX_FOLLOWING``, or the steps
    of an enumeration it announces)."""
    by_doc = _documents(units)
    used = set(taken) | {id(u) for u in chosen}
    placed = set(taken)
    out: list[Unit] = []
    for u in chosen:
        if id(u) in placed:
            continue  # a step placed beside its announcement
        if u.kind != "sentence":
            out.append(u)
            placed.add(id(u))
            continue
        before, after = _around(u, by_doc.get(u.doc, []), used, placed | {id(u)})
        group = [*before, u, *after]
        out += group
        used.update(id(v) for v in group)
        placed.update(id(v) for v in group)
    return out
