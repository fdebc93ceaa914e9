"""What an answer says for a part of the question no document answers.

"The documents do not say" takes the part as an indirect question: a
wh-part whose wh-word is its subject as it stands ("what credits apply"), a
yes/no part with a pronoun subject with "whether" and the subject before
the verb ("whether you can get your data back"). Putting any other question
into indirect form needs the verb's inflection ("what the SLA guarantees"),
so those parts are quoted instead: 'The documents do not answer "What
uptime does the SLA guarantee?"'. The reader's own words come back to them
("my data" -> "your data").
"""

from __future__ import annotations

import re

_AUXILIARY = r"can|could|will|would|should|may|might|must|shall|is|are|was|were|has|have|had|do|does|did"
# "can I get my data back" -> "whether you can get your data back" ("did" and "does" would need the verb inflected)
_YES_NO_PRONOUN = re.compile(
    rf"^(?!did\b|does\b)({_AUXILIARY})\s+(i|we|you|they|it|there)\b\s*(.*)$", re.IGNORECASE | re.DOTALL
)
_YES_NO = re.compile(rf"^(?:{_AUXILIARY})\b", re.IGNORECASE)
# "what uptime does the SLA guarantee": the wh-word is not the subject, the verb comes before it
_INVERTED = re.compile(
    rf"^(?:what|which|who|whom|whose|when|where|why|how)\b(?:\s+\S+){{0,2}}?\s+(?:{_AUXILIARY})\b", re.I
)
_CONJUNCTION = re.compile(r"^(?:and|or|but|also|then)\s+", re.IGNORECASE)
_TO_READER = {"i": "you", "me": "you", "my": "your", "mine": "yours", "i'm": "you're", "i’m": "you’re"}


def _to_reader(text: str) -> str:
    return re.sub(r"\b(?:i['’]m|i|me|my|mine)\b", lambda m: _TO_READER[m.group().lower()], text, flags=re.I)


def not_said(part: str) -> str:
    """The sentence telling the reader the documents do not answer ``part``."""
    text = _CONJUNCTION.sub("", part.strip().rstrip("?").strip())
    m = _YES_NO_PRONOUN.match(text)
    if m:
        verb, subject, rest = m.group(1).lower(), m.group(2).lower(), m.group(3)
        verb = "" if verb == "do" else verb
        clause = " ".join(w for w in ("whether", subject, verb, rest) if w)
        return f"The documents do not say {_to_reader(clause)}."
    if _YES_NO.match(text) or _INVERTED.match(text):
        return f'The documents do not answer "{text[:1].upper()}{text[1:]}?"'
    return f"The documents do not say {_to_reader(text[:1].lower() + text[1:])}."
