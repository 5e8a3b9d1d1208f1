import unittest

from textutil import title_words


class TextTest(unittest.TestCase):
    def test_words(self):
        self.assertEqual(title_words("a b-c"), ["a", "b", "c"])


if __name__ == "__main__":
    unittest.main()
