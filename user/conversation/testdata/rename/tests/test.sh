#!/usr/bin/env bash
# The canonical tests, or with SWETOUCH_TEST_SOURCE=workspace the
# workspace's own test_mod.py as the agent left it.
cp "$TESTS_DIR/run_tests.py" . || exit 2
if [ "$SWETOUCH_TEST_SOURCE" != workspace ]; then
  cp "$TESTS_DIR/canonical_test_mod.py" test_mod.py || exit 2
fi
python3 -I -P run_tests.py test_mod
