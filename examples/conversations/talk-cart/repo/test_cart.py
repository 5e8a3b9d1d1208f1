import unittest

from cart import total


class CartTest(unittest.TestCase):
    def test_empty(self):
        self.assertEqual(total([]), 5)


if __name__ == "__main__":
    unittest.main()
