import unittest

from pricing import total


class PricingTest(unittest.TestCase):
    def test_total(self):
        self.assertAlmostEqual(total([100, 50]), 150)


if __name__ == "__main__":
    unittest.main()
