//go:build linux

package store

import "syscall"

// dropMapped advises the kernel that the mapped range [addr, addr+size)
// is not needed: for a shared file mapping its pages leave the resident
// set and are read again from the page cache on the next access.
func dropMapped(addr uintptr, size int64) {
	if addr == 0 || size <= 0 {
		return
	}
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, addr, uintptr(size), syscall.MADV_DONTNEED)
}
