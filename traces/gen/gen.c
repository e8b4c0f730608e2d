/* gen.c — running a generator into a file; see gen.h. */
#include "gen.h"

#include <stdio.h>

int rs_gen_to_file(const rs_gen_ops *gen, const rs_config *opts, const char *data_dir,
                   const char *path, const char *format, uint64_t max_records, char *r_summary,
                   size_t cap, rs_err *err)
{
    rs_trace_writer *w;
    char how[96];
    int rc = rs_trace_writer_open(&w, path, format, gen->daemon, err);

    if (rc)
        return rc;
    snprintf(how, sizeof how, "--max-records %llu; --max-records N raises it",
             (unsigned long long)max_records);
    rs_trace_writer_limit(w, max_records, how);
    if (r_summary && cap)
        r_summary[0] = '\0';
    if ((rc = gen->generate(opts, data_dir, w, r_summary, cap, err))) {
        rs_trace_writer_abort(w);
        return rc;
    }
    return rs_trace_writer_close(w, err);
}
