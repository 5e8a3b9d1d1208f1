import unittest

from textutil import slugify, title_words


class TextTest(unittest.TestCase):
    def test_slugify(self):
        self.assertEqual(slugify("Hello, World!"), "hello-world")

    def test_words(self):
        self.assertEqual(title_words("a b-c"), ["a", "b", "c"])


if __name__ == "__main__":
    unittest.main()
