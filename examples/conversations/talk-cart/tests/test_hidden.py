import unittest

from cart import shipping, subtotal, total


class HiddenTest(unittest.TestCase):
    def test_quantity(self):
        self.assertEqual(subtotal([(10, 3)]), 30)
        self.assertEqual(subtotal([(10, 3), (2, 1)]), 32)

    def test_line_total(self):
        self.assertEqual(total([(10, 2)]), 25)

    def test_free_at_threshold(self):
        self.assertEqual(shipping(50), 0)
        self.assertEqual(total([(25, 2)]), 50)

    def test_empty(self):
        self.assertEqual(total([]), 5)
