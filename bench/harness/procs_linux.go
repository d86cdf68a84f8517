package main

import "syscall"

// childAttr puts a child in its own process group (so a terminal's Ctrl-C
// reaches only the harness, which then stops the children in order) and
// has the kernel kill it if the harness dies without cleaning up.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
