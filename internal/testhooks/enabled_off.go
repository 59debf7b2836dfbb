//go:build !testhooks

package testhooks

// Enabled: this binary was built with -tags testhooks.
const Enabled = false
