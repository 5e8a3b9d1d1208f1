"""Small text helpers."""

import re


def slugify(text):
    """Lower-case words joined by single dashes: 'Hello, World!' -> 'hello-world'."""
    return re.sub(r"\W", "-", text)


def title_words(text):
    """The words of a title, in order."""
    return re.findall(r"[A-Za-z0-9]+", text)
