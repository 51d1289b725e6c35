// Package powerloss is a test file system that can lose power. It mounts
// a backing directory through FUSE (go-fuse's loopback file system, with
// its own node and file handle types) and keeps, for every file, an undo
// log of the changes made since that file's last fsync: before each
// write, truncate or fallocate it records the bytes the change replaces
// and the old size. fsync and fdatasync of the file drop its log. It
// also keeps, for every directory whose entries change, the entries it
// held at its last fsync (entries.go). Cut is the power failure: after
// the test has killed every process that used the mount, Cut unmounts,
// puts every changed directory back to its durable entries and applies
// the file logs newest first, so the backing directory holds exactly
// what had been made durable, and the test opens it directly to check
// what survived.
//
// Only tests import it (the root package's TestPowerLoss runs the crash
// workload with the host's state dir on the mount). The heavier
// dependency, github.com/hanwen/go-fuse/v2, is there for this package
// alone and never reaches the nexus binary.
//
// # Requirements
//
// /dev/fuse and the right to mount: root (or CAP_SYS_ADMIN), which
// mounts with mount(2) directly, or the setuid fusermount3 helper. Check
// says which is missing and what to do. Tests fail, never skip, when it
// is missing. The FUSE server runs on goroutines of the test process, so
// that process must not itself touch the mount through mmap: a page fault
// on the mount can deadlock against the garbage collector, which stops
// the goroutines that would serve it. Tests do mmap work in a child.
//
// # mmap
//
// bbolt reads its file through a shared read-only mmap and writes with
// pwrite. Over this mount that works: files are opened without direct
// I/O, so the kernel serves the mapping from the FUSE page cache, and
// without the writeback cache a pwrite goes to the server at once (where
// it is recorded) and updates the cached pages the mapping shows; the
// package tests check both, before and after the file grows. The mount
// turns off passthrough (the kernel would write to the backing file
// without asking the server) and the writeback cache (writes would reach
// the server late, as page flushes); the file handle offers no
// passthrough fd, no ioctl and no copy_file_range, so every change to
// file contents goes through the recorded Write.
//
// # What it covers
//
//   - Lost data writes: any write, truncate or fallocate not followed by
//     an fsync or fdatasync of the same file is undone, whether it came
//     through the handle that fsyncs or another one.
//   - Lost size changes: a file grown or shrunk since its last fsync gets
//     its old size back; a file created and never fsynced is empty.
//   - Lost directory entries, strictly as POSIX has them: a create,
//     mknod, mkdir, symlink, link, unlink, rmdir or rename is durable
//     only once every directory it changed (for a rename across
//     directories, both) is fsynced afterwards. fsync of a file does not
//     make its own name durable. After a cut a new name not made durable
//     is gone (with everything under it); an unlinked or renamed-over
//     file comes back with its durable contents (its inode is kept alive
//     by a hard link in a stash dir, and its undo log applies to it
//     through our own descriptor, whatever its name); a rename goes back
//     to the old name; a removed directory comes back with its durable
//     entries (rmdir moves it into the stash rather than deleting it).
//     A rename across two directories of which only the target was
//     fsynced leaves a file under both names, and one of which only the
//     source was fsynced loses it. The directory model and the stash are
//     kept under one lock, so namespace changes through the mount are
//     serialized.
//   - The cut can land anywhere between two system calls of the host:
//     OnWrite lets a test kill the writer from inside a chosen write,
//     before its fsync could follow.
//
// # What it does not cover
//
//   - Reordering and tearing inside an fsync interval: a real disk may
//     persist any subset of the unsynced writes, in any order, and tear a
//     write at a sector boundary. Cut drops all of them, so it only
//     proves that what was acknowledged after an fsync survives, not that
//     a file recovers from an arbitrary mix of old and new pages (bbolt's
//     torn meta page case is left to bbolt's own tests and to store's
//     corruption tests).
//   - Orderings a journaling file system gives beyond POSIX: ext4 and
//     xfs make a rename atomic and usually persist a new file's name
//     with its first fsync; here neither holds, so the layer may lose
//     more than a real disk would, never less.
//   - A directory renamed across two directories of which only the
//     target was fsynced is durable in two places; the cut leaves it at
//     the new one. RENAME_WHITEOUT is refused; O_TMPFILE is refused.
//   - The stash lives next to the backing dir (.powerloss-stash-*), so
//     the backing dir's parent must be writable and on the same file
//     system; Mount says so otherwise. Cut and Unmount delete it. While
//     mounted, a file whose name was unlinked or renamed over has one
//     more link than the program expects (st_nlink).
//   - Metadata other than size (mode, owner, times, xattrs) is kept.
//   - Writes through a shared writable mmap (nexus has none) would reach
//     the server as page flushes, at the kernel's pace, and are recorded
//     only then.
//   - Anything outside the mount: the workspace, git objects and worker
//     files stay on a normal directory, which a killed process leaves in
//     the page cache and a cut does not touch.
//   - Losing the backing disk's own cache: the backing file is never
//     fsynced (the model decides what survives, not the machine), so the
//     layer says nothing about the host machine's durability.
package powerloss
