/*
 * osd_io.h — one client I/O on an RBD image or file as osd trace records.
 *
 * The image is striped over RADOS objects of object_bytes each (RBD's
 * default layout: object k holds image bytes [k·object_bytes, (k+1)·object_bytes)),
 * so an I/O of len_bytes at image offset off_bytes becomes one READ/WRITE
 * record per object it touches, in offset order, all at t_ns: key = object
 * number, aux = offset inside the object, size_bytes = the piece's length.
 * Used by `rssim gen fio` and `rssim trace import`.
 */
#ifndef RS_OSD_IO_H
#define RS_OSD_IO_H

#include <stdint.h>

#include "trace.h"

/* Write the records of one I/O (op RS_OP_READ or RS_OP_WRITE, len_bytes > 0,
 * 1 <= object_bytes <= 2^32, off_bytes + len_bytes <= 2^64 - 1).  Adds the
 * number of records written to *r_records when r_records is not NULL. */
int rs_osd_io_write(rs_trace_writer *w, uint64_t t_ns, uint16_t thread, rs_op op,
                    uint64_t off_bytes, uint64_t len_bytes, uint64_t object_bytes,
                    uint64_t *r_records, rs_err *err);

#endif
