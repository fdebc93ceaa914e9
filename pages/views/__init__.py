"""What the pages share: widgets (``ui``), charts and the Evaluation and Library views.

They live in this sub-folder, not beside the pages: Streamlit lists every
``pages/*.py`` file as a page on a process's first run, so a helper module
there would be offered as a page of its own.
"""
