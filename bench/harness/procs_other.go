//go:build !linux

package main

import "syscall"

// childAttr keeps the defaults where Linux's process attributes are not
// available (the harness itself needs Linux's /proc to read memory).
func childAttr() *syscall.SysProcAttr { return nil }
