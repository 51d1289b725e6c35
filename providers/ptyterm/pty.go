package ptyterm

import (
	"os"
	"os/exec"
	"syscall"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// The size every PTY starts at, until a pane resizes it.
const (
	Cols = 120
	Rows = 40
)

// Start starts cmd as the leader of a new session (so also of its own
// process group, whose id is its pid) on a fresh PTY of Cols x Rows, as
// pty.StartWithSize does, and returns the PTY's terminal. The master is
// non-blocking, so write deadlines bound typing into a program that reads
// nothing. (creack/pty's ioctls go through Fd, which makes a file
// blocking for good: the PTY is sized through its other end, and the
// master re-opened non-blocking with a dup.) cmd's Stdin, Stdout, Stderr
// and SysProcAttr are set here; the caller sets Path, Args, Dir and Env,
// TERM included.
func Start(cmd *exec.Cmd) (*Term, error) {
	blocking, tty, err := pty.Open()
	if err != nil {
		return nil, err
	}
	defer tty.Close() // the child has its copies
	ptmx, err := nonBlocking(blocking)
	if err != nil {
		return nil, err
	}
	if err := pty.Setsize(tty, &pty.Winsize{Rows: Rows, Cols: Cols}); err != nil {
		ptmx.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		ptmx.Close()
		return nil, err
	}
	return newTerm(ptmx, Cols, Rows), nil
}

// nonBlocking returns a pollable duplicate of f and closes f.
func nonBlocking(f *os.File) (*os.File, error) {
	defer f.Close()
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}

// setSize sets a PTY's size (the child gets SIGWINCH). It is
// pty.Setsize's ioctl, made through SyscallConn: pty.Setsize calls Fd,
// which turns the file blocking for good, so deadlines and Close would no
// longer interrupt a read or a write.
func setSize(tty *os.File, cols, rows int) error {
	rc, err := tty.SyscallConn()
	if err != nil {
		return err
	}
	var ierr error
	if err := rc.Control(func(fd uintptr) {
		ierr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Row: uint16(rows), Col: uint16(cols)})
	}); err != nil {
		return err
	}
	return ierr
}
