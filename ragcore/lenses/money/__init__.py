"""Money lens: every price in the retrieved passages, keyed and compared.

Method (rule-based information extraction, in the spirit of the pattern
matchers of Hearst 1992 and of named-entity rules for MONEY in MUC-7,
Chinchor 1998):

1. Find currency amounts in their common written forms: a symbol before the
   number (``$999``, ``€49``, ``US$5``), an ISO code before or after it
   (``USD 999``, ``49 EUR``), or a currency word after it (``999 dollars``),
   with thousands separators, decimals and k/M/bn multipliers. A figure must
   carry a currency: percentages and plain numbers are never prices, and
   shapes that only look like amounts (dates, phone numbers, version numbers,
   "in 2021 dollars") are rejected.
2. Read the unit and period written after the amount (``/month``,
   ``per user per month``, ``/GB``, ``for the full year``, ``billed
   annually``) or just before it (``a one-time fee of``), normalised to
   "month", "year", "user/month", "GB", ...
3. Give each amount a subject, what it prices: in a Markdown table the row
   label and column header, otherwise the nearest noun phrase before the
   amount in its sentence (a pronoun or a bare quantity falls back to the
   plan or tier the sentence names). The billing term stated in the sentence
   ("if you pay monthly", "annual billing") is part of the subject, so a
   monthly and an annual price of one tier are two subjects, not a conflict.
4. Key figures on (currency, amount): "$999" and "$999/month" are one figure
   with two mentions. A conflict is two or more amounts for one subject and
   billing term (same currency), stated in different sentences, whose periods
   agree where both are stated. A price without a billing term takes the term
   its period implies (per year: annual; otherwise monthly); a change within
   one sentence ("from $999 to $1,199") is not a conflict.
"""

from __future__ import annotations

from ragcore.lenses.money.comparison import money_lens
from ragcore.lenses.money.extraction import FigureMatch, extract_figures
from ragcore.lenses.money.records import Conflict, Figure, Mention, MoneyLens, format_amount
from ragcore.lenses.money.subjects import subject_key

__all__ = [
    "Conflict",
    "Figure",
    "FigureMatch",
    "Mention",
    "MoneyLens",
    "extract_figures",
    "format_amount",
    "money_lens",
    "subject_key",
]
