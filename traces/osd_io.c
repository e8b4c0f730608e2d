/*
 * osd_io.c — an image I/O split into one osd record per RADOS object
 * (see osd_io.h).
 */
#include "osd_io.h"

int rs_osd_io_write(rs_trace_writer *w, uint64_t t_ns, uint16_t thread, rs_op op,
                    uint64_t off_bytes, uint64_t len_bytes, uint64_t object_bytes,
                    uint64_t *r_records, rs_err *err)
{
    while (len_bytes > 0) {
        uint64_t in_obj = off_bytes % object_bytes, piece = object_bytes - in_obj;
        int rc;
        if (piece > len_bytes)
            piece = len_bytes;
        rs_rec r = { .t_ns = t_ns, .key = off_bytes / object_bytes, .size_bytes = piece,
                     .aux = (uint32_t)in_obj, .thread = thread, .op = (uint8_t)op };
        if ((rc = rs_trace_write(w, &r, err)))
            return rc;
        if (r_records)
            (*r_records)++;
        off_bytes += piece;
        len_bytes -= piece;
    }
    return 0;
}
