package workers

import (
	"os"
	"syscall"
	"unsafe"
)

// quietTTY sets the terminal a command runs on so its output reads like
// a log: no echo of input, and "\n" stays "\n" (no "\r\n" translation).
func quietTTY(tty *os.File) error {
	var t syscall.Termios
	fd := tty.Fd()
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TCGETS, uintptr(unsafe.Pointer(&t))); e != 0 {
		return e
	}
	t.Oflag &^= syscall.ONLCR
	t.Lflag &^= syscall.ECHO | syscall.ECHOE | syscall.ECHOK | syscall.ECHONL | syscall.ECHOCTL
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TCSETS, uintptr(unsafe.Pointer(&t))); e != 0 {
		return e
	}
	return nil
}
