/*
 * import_strace.h — `strace -f -tt` output of a real program as an mds trace
 * (`rssim trace import --from strace`, the codec rs_trace_codec_strace).
 *
 * docs/trace-format.md §13 is the normative description: which system calls
 * become which MDS ops, how paths are resolved (per-process cwd, fd table,
 * fork/clone inheritance, `<unfinished ...>`/`<... resumed>` pairs), which
 * failed calls still reach the MDS, the root folder (only paths under it are
 * on CephFS), inode numbering, clients and the limits below.  Every limit is
 * named in the error that refuses more.
 */
#ifndef RS_IMPORT_STRACE_H
#define RS_IMPORT_STRACE_H

/* Longest input line, bytes including its end (a path is at most 4096 bytes,
 * printed escaped up to 4 bytes per byte, and a call names at most two). */
#define RS_STRACE_MAX_LINE 65536
/* Processes alive at once (pids with a line and no `+++` end yet). */
#define RS_STRACE_MAX_PIDS 65536
/* Highest file descriptor number a process may use. */
#define RS_STRACE_MAX_FD 1048575
/* Distinct paths (every folder and file named, inside the root or not). */
#define RS_STRACE_MAX_PATHS (1u << 24)
/* Bytes of all path component names together. */
#define RS_STRACE_MAX_NAME_BYTES (1u << 30)
/* Clients: thread ids are 16 bits. */
#define RS_STRACE_MAX_CLIENTS 65535

#endif
