import unittest

from textutil import slugify, title_words


class HiddenTest(unittest.TestCase):
    def test_lowercase(self):
        self.assertEqual(slugify("Hello"), "hello")
        self.assertEqual(slugify("ABC"), "abc")

    def test_collapse(self):
        self.assertEqual(slugify("Hello, World!"), "hello-world")
        self.assertEqual(slugify("C++ & Go"), "c-go")
        self.assertEqual(slugify("  many   spaces  "), "many-spaces")
        self.assertEqual(slugify("under_score"), "under-score")

    def test_words(self):
        self.assertEqual(title_words("a b-c"), ["a", "b", "c"])
