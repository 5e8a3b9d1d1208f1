import unittest

from pricing import apply_discount, total


class HiddenTest(unittest.TestCase):
    def test_percentage(self):
        self.assertAlmostEqual(apply_discount(200, 10), 180)
        self.assertAlmostEqual(apply_discount(50, 0), 50)
        self.assertAlmostEqual(apply_discount(80, 100), 0)

    def test_out_of_range(self):
        for bad in (-1, 101, 250):
            with self.assertRaises(ValueError):
                apply_discount(100, bad)

    def test_total(self):
        self.assertAlmostEqual(total([100, 50]), 150)
        self.assertAlmostEqual(total([]), 0)
