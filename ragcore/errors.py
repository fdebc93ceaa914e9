"""Typed errors with messages a person can act on.

The app shows ``str(error)`` as it is, so every message names the file and
says what is wrong and, where possible, what to do.
"""


class RagcoreError(Exception):
    """Base class for errors ragcore expects and explains."""


class DocumentError(RagcoreError):
    """A file could not be loaded; the library is unchanged."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason
        super().__init__(f"{name}: {reason}")


class UnsupportedFileType(DocumentError):
    pass


class EmptyDocument(DocumentError):
    pass


class FileTooLarge(DocumentError):
    pass


class BinaryContent(DocumentError):
    pass


class EncryptedPdf(DocumentError):
    pass


class CorruptPdf(DocumentError):
    pass


class GarbledText(DocumentError):
    """Extracted text is not language (a PDF font without a Unicode map)."""


class ParseLimitExceeded(DocumentError):
    """Parsing ran past its time or memory limit."""


class DuplicateDocument(DocumentError):
    """The same bytes are already in the collection."""


class ModelError(RagcoreError):
    """The embedding or rerank model is missing, corrupt or unloadable."""


class GoldSetError(RagcoreError):
    """A gold set is malformed or its evidence cannot be located."""


class LibraryError(RagcoreError):
    """The library database cannot do what was asked."""
