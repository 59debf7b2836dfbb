//go:build !testhooks

package main

import "github.com/dbhost/dbhost/internal/apply"

// testHooks does nothing in a plain build: DBHOST_TEST_* variables are not
// read (hooks_on.go, -tags testhooks, has the hooks).
func testHooks(*apply.Options) error { return nil }
