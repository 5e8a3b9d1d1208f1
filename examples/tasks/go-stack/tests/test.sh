#!/usr/bin/env bash
# Runs in a copy of the workspace; exit 0 resolved, 1 not.
cp "$TESTS_DIR/hidden_test.go" . || exit 2
go test -count=1 ./... || exit 1
