import unittest

from textutil import slugify


class HiddenTest(unittest.TestCase):
    def test_examples(self):
        self.assertEqual(slugify("Hello, World!"), "hello-world")
        self.assertEqual(slugify("C++ & Go"), "c-go")
        self.assertEqual(slugify("  many   spaces  "), "many-spaces")
        self.assertEqual(slugify("Version 2.0"), "version-2-0")
        self.assertEqual(slugify("under_score"), "under-score")
