/* gen.c — running a generator into a file; see gen.h. */
#include "gen.h"

int rs_gen_to_file(const rs_gen_ops *gen, const rs_config *opts, const char *data_dir,
                   const char *path, const char *format, char *r_summary, size_t cap,
                   rs_err *err)
{
    rs_trace_writer *w;
    int rc = rs_trace_writer_open(&w, path, format, gen->daemon, err);

    if (rc)
        return rc;
    if (r_summary && cap)
        r_summary[0] = '\0';
    if ((rc = gen->generate(opts, data_dir, w, r_summary, cap, err))) {
        rs_trace_writer_abort(w);
        return rc;
    }
    return rs_trace_writer_close(w, err);
}
