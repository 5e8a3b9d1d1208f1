import unittest

import mod


class T(unittest.TestCase):
    def test_double(self):
        self.assertEqual(mod.double(3), 6)

    def test_zero(self):
        self.assertIsNotNone(mod)
