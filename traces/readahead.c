/* readahead.c — a trace decoded on a second thread; see readahead.h. */
#include "readahead.h"

#include <pthread.h>
#include <stdlib.h>

#define NBLOCKS 4 /* blocks in flight: one being read, the rest decoded ahead */

typedef struct block {
    rs_rec rec[RS_READAHEAD_BLOCK];
    uint64_t line[RS_READAHEAD_BLOCK];
    size_t n;
    int last;   /* the trace ends after this block: rc says how */
    int rc;     /* 0 = end of trace, < 0 = the error in err */
    rs_err err;
} block;

struct rs_readahead {
    rs_trace *tr;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t filled, emptied;
    block *blocks;
    unsigned nfull;      /* blocks decoded and not yet consumed */
    int stop;            /* the consumer is gone: the thread exits */
    unsigned head;       /* block the consumer reads */
    size_t pos;          /* next record in it */
    int holding;         /* the consumer holds blocks[head] */
    uint64_t line;       /* line of the record returned last */
};

static void *reader(void *arg)
{
    rs_readahead *ra = arg;
    for (unsigned i = 0;; i = (i + 1) % NBLOCKS) {
        pthread_mutex_lock(&ra->mu);
        while (ra->nfull == NBLOCKS && !ra->stop)
            pthread_cond_wait(&ra->emptied, &ra->mu);
        int stop = ra->stop;
        pthread_mutex_unlock(&ra->mu);
        if (stop)
            return NULL;
        block *b = &ra->blocks[i];
        int rc = 1;
        b->n = 0;
        while (b->n < RS_READAHEAD_BLOCK && (rc = rs_trace_next(ra->tr, &b->rec[b->n], &b->err)) == 1)
            b->line[b->n++] = rs_trace_line(ra->tr);
        b->last = rc != 1;
        b->rc = rc < 0 ? rc : 0;
        pthread_mutex_lock(&ra->mu);
        ra->nfull++;
        pthread_cond_signal(&ra->filled);
        pthread_mutex_unlock(&ra->mu);
        if (b->last)
            return NULL;
    }
}

int rs_readahead_start(rs_readahead **r_ra, rs_trace *tr, rs_err *err)
{
    rs_readahead *ra = calloc(1, sizeof *ra);
    if (!ra || !(ra->blocks = malloc(NBLOCKS * sizeof *ra->blocks))) {
        free(ra);
        return rs_fail(err, RS_ENOMEM, "out of memory for the trace readahead");
    }
    ra->tr = tr;
    ra->line = 1;
    pthread_mutex_init(&ra->mu, NULL);
    pthread_cond_init(&ra->filled, NULL);
    pthread_cond_init(&ra->emptied, NULL);
    if (pthread_create(&ra->thread, NULL, reader, ra) != 0) {
        pthread_cond_destroy(&ra->emptied);
        pthread_cond_destroy(&ra->filled);
        pthread_mutex_destroy(&ra->mu);
        free(ra->blocks);
        free(ra);
        return rs_fail(err, RS_EIO, "cannot start the trace readahead thread");
    }
    *r_ra = ra;
    return 0;
}

/* Give the block being read back to the reader and wait for the next. */
static block *next_block(rs_readahead *ra)
{
    pthread_mutex_lock(&ra->mu);
    if (ra->holding) {
        ra->nfull--;
        ra->head = (ra->head + 1) % NBLOCKS;
        pthread_cond_signal(&ra->emptied);
    }
    while (ra->nfull == 0)
        pthread_cond_wait(&ra->filled, &ra->mu);
    ra->holding = 1;
    pthread_mutex_unlock(&ra->mu);
    ra->pos = 0;
    return &ra->blocks[ra->head];
}

int rs_readahead_next(rs_readahead *ra, rs_rec *r_rec, rs_err *err)
{
    block *b = &ra->blocks[ra->head];
    if (__builtin_expect(!ra->holding || ra->pos == b->n, 0)) {
        if (ra->holding && b->last)
            goto end;
        b = next_block(ra);
        if (b->n == 0 && b->last)
            goto end;
    }
    *r_rec = b->rec[ra->pos];
    ra->line = b->line[ra->pos++];
    return 1;
end:
    if (b->rc && err)
        *err = b->err;
    return b->rc;
}

uint64_t rs_readahead_line(const rs_readahead *ra)
{
    return ra->line;
}

void rs_readahead_stop(rs_readahead *ra)
{
    if (!ra)
        return;
    pthread_mutex_lock(&ra->mu);
    ra->stop = 1;
    pthread_cond_signal(&ra->emptied);
    pthread_mutex_unlock(&ra->mu);
    pthread_join(ra->thread, NULL);
    pthread_cond_destroy(&ra->emptied);
    pthread_cond_destroy(&ra->filled);
    pthread_mutex_destroy(&ra->mu);
    free(ra->blocks);
    free(ra);
}

static int source_next(void *ctx, rs_rec *r_rec, rs_err *err)
{
    return rs_readahead_next(ctx, r_rec, err);
}

static uint64_t source_line(const void *ctx)
{
    return rs_readahead_line(ctx);
}

void rs_readahead_source(rs_readahead *ra, rs_rec_source *r_src)
{
    *r_src = (rs_rec_source){ .ctx = ra, .next = source_next, .line = source_line,
                              .path = rs_trace_path(ra->tr) };
}
