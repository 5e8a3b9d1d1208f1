import unittest

from pricing import apply_discount, total


class PricingTest(unittest.TestCase):
    def test_discount(self):
        self.assertAlmostEqual(apply_discount(200, 10), 180)

    def test_total(self):
        self.assertAlmostEqual(total([100, 50], 20), 120)


if __name__ == "__main__":
    unittest.main()
