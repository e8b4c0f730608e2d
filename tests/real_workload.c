/*
 * real_workload.c — rssim-real-workload: a small real program for
 * tests/cli/real.sh to record with librssim-record.so.  Each of THREADS
 * threads (argv[1], default 3) allocates with every interposed entry point
 * (malloc, calloc, realloc grow/shrink/NULL/0, posix_memalign,
 * aligned_alloc, memalign), keeps some blocks and frees the rest; the main
 * thread then forks a child that allocates and exits (the recorder must
 * neither crash nor write the child's records), and exits with status 0.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BLOCKS 2000

static void *work(void *arg)
{
    unsigned seed = (unsigned)(size_t)arg * 7919u + 1;
    void **keep = calloc(BLOCKS, sizeof *keep);
    if (!keep)
        return (void *)1;
    for (int i = 0; i < BLOCKS; i++) {
        size_t n = 16 + (size_t)(rand_r(&seed) % 4000);
        void *p = NULL;
        switch (i % 6) {
        case 0: p = malloc(n); break;
        case 1: p = calloc(1, n); break;
        case 2: p = realloc(NULL, n); p = realloc(p, 2 * n); p = realloc(p, n / 2 + 1); break;
        case 3: if (posix_memalign(&p, 64, n)) p = NULL; break;
        case 4: p = aligned_alloc(256, (n + 255) & ~(size_t)255); break;
        case 5: p = memalign(128, n); break;
        }
        if (!p)
            return (void *)1;
        memset(p, 1, n / 2 + 1);
        keep[i] = p;
    }
    for (int i = 0; i < BLOCKS; i++)
        if (i % 4) {
            free(keep[i]);
            keep[i] = NULL;
        }
    void *z = malloc(100);
    z = realloc(z, 0); /* glibc: frees, returns NULL */
    free(z);
    for (int i = 0; i < BLOCKS; i++)
        free(keep[i]);
    free(keep);
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 3;
    pthread_t th[64];
    if (threads < 1 || threads > 64)
        return 2;
    for (int t = 0; t < threads; t++)
        if (pthread_create(&th[t], NULL, work, (void *)(size_t)t))
            return 1;
    int bad = 0;
    for (int t = 0; t < threads; t++) {
        void *r;
        pthread_join(th[t], &r);
        bad |= r != NULL;
    }
    pid_t pid = fork();
    if (pid == 0) {
        for (int i = 0; i < 1000; i++)
            free(malloc(64 + (size_t)i));
        _exit(0);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
        bad = 1;
    char *s = malloc(32);
    if (!s)
        return 1;
    snprintf(s, 32, "done %d", threads);
    puts(s);
    free(s);
    return bad;
}
