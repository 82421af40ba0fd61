"""The system calls that change a file's bytes, size or name where strace does not look, and what a step gets for
each: the one list of them. strace stops only at fs_trace.TRACED, so student code that wrote a checkpoint through
any other call would leave no trace, and the grader would judge the file as never written (probe 11: a checkpoint
saved with os.splice, pipe to file, passed the check that reconcile saves nothing, 23/23 for 22/23).

Traced and modelled (fs_trace.TRACED; an honest answer may use them):
  write, pwrite64, writev, pwritev, pwritev2, ftruncate, truncate, open/openat/creat (O_TRUNC, O_CREAT), rename*,
  link*, unlink*, mkdir*; sendfile and copy_file_range (shutil.copyfile, Python 3.8-3.14); rmdir (os.rmdir,
  TemporaryDirectory's cleanup); symlink, symlinkat, mknod, mknodat (os.symlink, os.mkfifo: a new name).
Answered by the step's seccomp filter (DENIED), as on a kernel or file system without them:
  openat2                      opens (and truncates) with no traced open; the zygote's own imports use it
  io_uring_setup/enter/register  file I/O with no system call per operation (Docker's default profile blocks it)
  splice                       pipe to file: writes bytes strace does not see (vmsplice and tee reach pipes only,
                               so they stay: without splice nothing they fill reaches a file)
  io_setup, io_submit          Linux AIO writes (IOCB_CMD_PWRITE); kernels built without CONFIG_AIO answer ENOSYS
  fallocate                    PUNCH_HOLE, ZERO_RANGE, COLLAPSE_RANGE, INSERT_RANGE change bytes, mode 0 the size;
                               EOPNOTSUPP, a file system without it: glibc's posix_fallocate (os.posix_fallocate)
                               then writes the zeros itself with pwrite64, which is traced
  name_to_handle_at, open_by_handle_at  opening by handle is no traced open (CONFIG_FHANDLE; it also needs
                               CAP_DAC_READ_SEARCH, which the step has dropped)
  process_vm_readv/writev      another process's memory (CONFIG_CROSS_MEMORY_ATTACH)
  pidfd_getfd                  another process's descriptors (kernels before 5.6)
  any call of another ABI      x32 and 32-bit numbers differ from the native ones
Left alone, with the reason:
  mmap, msync, mremap, madvise(MADV_REMOVE), remap_file_pages: writes through a shared mapping are not seen
      (docs/grading.md section 2: a save that writes through mmap is judged on zeros; the file's open, ftruncate,
      fsync and rename are seen); remap_file_pages only moves pages of such a mapping
  sync_file_range: makes nothing durable in the model, as its man page says it does not (no metadata, no cache flush)
  ioctl FICLONE, FICLONERANGE, FIDEDUPERANGE: tmpfs (the working folder, /tmp, /dev/shm) has no shared extents
  bind of a Unix socket: a name with no bytes; the grader lists regular files only
  mount, open_tree, move_mount, fsopen: need capabilities the step has dropped
  ptrace: writes no file; PTRACE_TRACEME answers 0 as in a notebook (filter_program), the rest as under strace
"""
import errno
import os

# A call's number on each architecture the grader runs on: x86_64's own table, and the generic one (aarch64,
# riscv64). Every call here exists on both.
_NUMBERS = {  # name: (x86_64, generic)
    "openat2": (437, 437), "io_uring_setup": (425, 425), "io_uring_enter": (426, 426),
    "io_uring_register": (427, 427), "splice": (275, 76), "io_setup": (206, 0), "io_submit": (209, 2),
    "fallocate": (285, 47), "name_to_handle_at": (303, 264), "open_by_handle_at": (304, 265),
    "process_vm_readv": (310, 270), "process_vm_writev": (311, 271), "pidfd_getfd": (438, 438),
    "ptrace": (101, 117),
}
DENIED = {name: errno.ENOSYS for name in _NUMBERS if name != "ptrace"} | {"fallocate": errno.EOPNOTSUPP}
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7, "riscv64": 0xC00000F3}
X32_SYSCALL_BIT = 0x40000000
PTRACE_TRACEME = 0
SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO = 0x7FFF0000, 0x00050000
BPF_LD_ABS, BPF_JEQ, BPF_JGE, BPF_RET = 0x20, 0x15, 0x35, 0x06  # ld [k]; jeq/jge #k, jt, jf; ret #k
NR, ARCH, FIRST_ARGUMENT = 0, 4, 16  # offsets in struct seccomp_data (the argument's low half: little-endian)


def number(name: str, machine: str | None = None) -> int:
    """The call's number on `machine` (os.uname().machine by default)."""
    return _NUMBERS[name][(machine or os.uname().machine) != "x86_64"]


def filter_program(machine: str) -> list | None:
    """The seccomp filter of a step, as (code, jt, jf, k) instructions: the DENIED calls fail with their errno, as
    does any call of another ABI; ptrace(PTRACE_TRACEME) returns 0 without doing anything. In a notebook a child
    of the kernel may ask to be traced and succeeds; under strace -f it is traced already and gets EPERM, which
    told the grader apart (probe 11, tamper_detect_ptrace, 23/23 for 20/23). The tracer it asked for is its parent,
    which in a notebook does not trace it either: nothing else changes. None where the architecture is unknown."""
    native = AUDIT_ARCH.get(machine)
    if native is None:
        return None
    no_such_call = SECCOMP_RET_ERRNO | errno.ENOSYS
    program = [(BPF_LD_ABS, 0, 0, ARCH), (BPF_JEQ, 1, 0, native), (BPF_RET, 0, 0, no_such_call),
               (BPF_LD_ABS, 0, 0, NR), (BPF_JGE, 0, 1, X32_SYSCALL_BIT), (BPF_RET, 0, 0, no_such_call)]
    for name, answer in DENIED.items():
        program += [(BPF_JEQ, 0, 1, number(name, machine)), (BPF_RET, 0, 0, SECCOMP_RET_ERRNO | answer)]
    program += [(BPF_JEQ, 0, 3, number("ptrace", machine)), (BPF_LD_ABS, 0, 0, FIRST_ARGUMENT),
                (BPF_JEQ, 0, 1, PTRACE_TRACEME), (BPF_RET, 0, 0, SECCOMP_RET_ERRNO | 0),
                (BPF_RET, 0, 0, SECCOMP_RET_ALLOW)]
    return program
