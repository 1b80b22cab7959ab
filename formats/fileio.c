#define _GNU_SOURCE /* O_CLOEXEC, O_NOFOLLOW, realpath */
#include "formats/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/str.h"

/* A copy of s; NULL with errno ENOMEM when memory is exhausted. */
static char *copy(const char *s) {
    char *c = kg_strdup(s);
    if (!c) errno = ENOMEM;
    return c;
}

char *kg_read_file(const char *path, size_t *len, kg_diags *d) {
    struct stat st;
    if (stat(path, &st) != 0) {
        kg_diag_add(d, KG_ERROR, "io.read", path, 0, NULL, "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        kg_diag_add(d, KG_ERROR, "io.read", path, 0, NULL, "'%s' is not a regular file", path);
        return NULL;
    }
    if ((size_t)st.st_size > KG_MAX_INPUT_SIZE) {
        kg_diag_add(d, KG_ERROR, "io.too_large", path, 0, NULL, "'%s' is larger than %zu bytes", path,
                    KG_MAX_INPUT_SIZE);
        return NULL;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        kg_diag_add(d, KG_ERROR, "io.read", path, 0, NULL, "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (buf && n + 1 >= cap) {
            if (cap > KG_MAX_INPUT_SIZE) {
                kg_diag_add(d, KG_ERROR, "io.too_large", path, 0, NULL, "'%s' is larger than %zu bytes",
                            path, KG_MAX_INPUT_SIZE);
                free(buf);
                fclose(f);
                return NULL;
            }
            char *grown = realloc(buf, cap *= 2);
            if (!grown) free(buf);
            buf = grown;
        }
        if (!buf) {
            kg_diag_add(d, KG_ERROR, "io.memory", path, 0, NULL, "out of memory reading '%s'", path);
            fclose(f);
            return NULL;
        }
        size_t r = fread(buf + n, 1, cap - 1 - n, f);
        n += r;
        if (r == 0) break;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        kg_diag_add(d, KG_ERROR, "io.read", path, 0, NULL, "error reading '%s'", path);
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    if (len) *len = n;
    return buf;
}

char *kg_read_stdin(size_t *len, kg_diags *d) {
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (buf && n + 1 >= cap) {
            if (cap > KG_MAX_INPUT_SIZE) {
                kg_diag_add(d, KG_ERROR, "io.too_large", KG_STDIN_NAME, 0, NULL,
                            "standard input is larger than %zu bytes", KG_MAX_INPUT_SIZE);
                free(buf);
                return NULL;
            }
            char *grown = realloc(buf, cap *= 2);
            if (!grown) free(buf);
            buf = grown;
        }
        if (!buf) {
            kg_diag_add(d, KG_ERROR, "io.memory", KG_STDIN_NAME, 0, NULL, "out of memory reading standard input");
            return NULL;
        }
        size_t r = fread(buf + n, 1, cap - 1 - n, stdin);
        n += r;
        if (r == 0) break;
    }
    if (ferror(stdin)) {
        kg_diag_add(d, KG_ERROR, "io.read", KG_STDIN_NAME, 0, NULL, "error reading standard input");
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    if (len) *len = n;
    return buf;
}

/* ---- temporary files removed by SIGINT, SIGTERM and SIGHUP ----
 * The paths of the temporaries being written live in a small lock-free table
 * the signal handler reads: it unlinks each (async-signal-safe), restores the
 * default action and raises the signal again, so the process still dies of it.
 * SIGKILL cannot be caught: a "<out>.tmp.<pid>.<n>" may then stay behind. */
#define KG_LIVE_TEMPS 64
static char *_Atomic live_temps[KG_LIVE_TEMPS];
static const int caught[] = {SIGINT, SIGTERM, SIGHUP};

static void remove_temps_and_die(int sig) {
    for (int i = 0; i < KG_LIVE_TEMPS; i++) {
        char *p = atomic_load(&live_temps[i]);
        if (p) unlink(p);
    }
    raise(sig); /* SA_RESETHAND: the default action, once this handler returns */
}

/* Once per process; a signal the program already handles or ignores (nohup)
 * is left alone. */
static void install_handlers(void) {
    static atomic_int done;
    if (atomic_exchange(&done, 1)) return;
    for (size_t i = 0; i < sizeof caught / sizeof *caught; i++) {
        struct sigaction old, sa = {.sa_handler = remove_temps_and_die, .sa_flags = SA_RESETHAND};
        sigemptyset(&sa.sa_mask);
        if (sigaction(caught[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO))
            sigaction(caught[i], &sa, NULL);
    }
}

static void track_temp(char *p) {
    for (int i = 0; i < KG_LIVE_TEMPS; i++) {
        char *expected = NULL;
        if (atomic_compare_exchange_strong(&live_temps[i], &expected, p)) return;
    }
}

static void untrack_temp(const char *p) {
    for (int i = 0; i < KG_LIVE_TEMPS; i++) {
        char *expected = (char *)p;
        if (atomic_compare_exchange_strong(&live_temps[i], &expected, NULL)) return;
    }
}

/* Signals held off while a temporary is created and registered, so that none
 * can leave it behind unregistered. */
static void block_caught(sigset_t *old) {
    sigset_t s;
    sigemptyset(&s);
    for (size_t i = 0; i < sizeof caught / sizeof *caught; i++) sigaddset(&s, caught[i]);
    pthread_sigmask(SIG_BLOCK, &s, old);
}

/* ---- opening ---- */

/* "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1" and the like: the descriptor
 * itself (its offset and append mode are the shell's), or -1. */
static int named_descriptor(const char *path) {
    if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout")) return STDOUT_FILENO;
    if (!strcmp(path, "/dev/stderr")) return STDERR_FILENO;
    const char *p = !strncmp(path, "/dev/fd/", 8) ? path + 8 : !strncmp(path, "/proc/self/fd/", 14) ? path + 14 : NULL;
    if (!p || !*p) return -1;
    char *end;
    long fd = strtol(p, &end, 10);
    return *end || fd < 0 || fd > INT_MAX ? -1 : (int)fd;
}

static int open_stream(kg_out *o, int fd) {
    o->f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!o->f) {
        int e = errno;
        if (fd >= 0) close(fd);
        errno = e;
        return -1;
    }
    return 0;
}

/* "<dest>.tmp.<pid>.<n>", created with O_EXCL (never through a link planted
 * there, never over someone else's file) and the mode of the file it replaces. */
static int open_temp(kg_out *o, const struct stat *replaced) {
    static atomic_uint counter;
    size_t n = strlen(o->dest) + 48;
    if (!(o->tmp = malloc(n))) {
        errno = ENOMEM;
        return -1;
    }
    sigset_t old;
    block_caught(&old);
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 100; attempt++) {
        snprintf(o->tmp, n, "%s.tmp.%ld.%u", o->dest, (long)getpid(), atomic_fetch_add(&counter, 1));
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd >= 0) {
        track_temp(o->tmp);
        if (replaced) fchmod(fd, replaced->st_mode & 07777);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (fd < 0) return -1;
    if (open_stream(o, fd) != 0) {
        int e = errno;
        unlink(o->tmp);
        untrack_temp(o->tmp);
        errno = e;
        return -1;
    }
    return 0;
}

/* Where the output goes: a regular file (or none yet) is replaced through a
 * temporary beside it; a link to a regular file has its target replaced, the
 * link kept; a dangling link is replaced itself (not followed to wherever it
 * points); anything else (FIFO, device, socket) is written in place. Out of
 * memory: -1 with errno ENOMEM, nothing created. */
static int open_target(kg_out *o) {
    struct stat st, lst;
    if (lstat(o->path, &lst) != 0) {
        if (errno != ENOENT) return -1;
        return (o->dest = copy(o->path)) ? open_temp(o, NULL) : -1;
    }
    if (S_ISLNK(lst.st_mode)) {
        char *target = realpath(o->path, NULL);
        if (!target && errno == ENOMEM) return -1;
        if (!target) return (o->dest = copy(o->path)) ? open_temp(o, NULL) : -1;
        o->dest = copy(target);
        free(target);
    } else {
        o->dest = copy(o->path);
    }
    if (!o->dest) return -1;
    if (stat(o->dest, &st) == 0 && S_ISREG(st.st_mode)) return open_temp(o, &st);
    if (stat(o->dest, &st) == 0 && S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        return -1;
    }
    o->in_place = 1;
    return open_stream(o, open(o->dest, O_WRONLY | O_CLOEXEC));
}

static void out_free(kg_out *o) {
    free(o->path);
    free(o->tmp);
    free(o->dest);
    memset(o, 0, sizeof *o);
}

int kg_out_open(kg_out *o, const char *path) {
    memset(o, 0, sizeof *o);
    install_handlers();
    if (!(o->path = copy(path))) return -1; /* errno ENOMEM */
    int fd = named_descriptor(path), rc;
    if (fd >= 0) {
        o->in_place = 1;
        fflush(NULL); /* what the program printed first stays first */
        rc = open_stream(o, dup(fd));
    } else {
        rc = open_target(o);
    }
    if (rc != 0) {
        int e = errno;
        out_free(o);
        errno = e;
    }
    return rc;
}

int kg_out_commit(kg_out *o) {
    int e = 0; /* the first failure's errno, for the caller's message */
    if (fflush(o->f) != 0 || ferror(o->f)) e = errno ? errno : EIO;
    if (fclose(o->f) != 0 && !e) e = errno;
    if (o->tmp) {
        if (!e && rename(o->tmp, o->dest) != 0) e = errno;
        if (e) unlink(o->tmp);
        untrack_temp(o->tmp);
    }
    out_free(o);
    errno = e;
    return e ? -1 : 0;
}

void kg_out_abort(kg_out *o) {
    if (!o->f) return;
    fclose(o->f);
    if (o->tmp) {
        unlink(o->tmp);
        untrack_temp(o->tmp);
    }
    out_free(o);
}

int kg_files_add(kg_files *f, const char *path) {
    if (!f) return 0;
    char *p = copy(path), **grown = p ? realloc(f->path, (size_t)(f->n + 1) * sizeof *grown) : NULL;
    if (!grown) { /* nobody could remove it later: now, while its name is at hand */
        free(p);
        if (unlink(path) != 0 && (errno == EISDIR || errno == EPERM)) rmdir(path);
        f->failed = 1;
        return -1;
    }
    f->path = grown;
    f->path[f->n++] = p;
    return 0;
}

void kg_files_remove(kg_files *f) {
    for (int i = f->n - 1; i >= 0; i--) /* newest first: a folder after the files made in it */
        if (unlink(f->path[i]) != 0 && (errno == EISDIR || errno == EPERM)) rmdir(f->path[i]); /* if empty */
}

void kg_files_clear(kg_files *f) {
    for (int i = 0; i < f->n; i++) free(f->path[i]);
    free(f->path);
    f->path = NULL;
    f->n = 0;
    f->failed = 0;
}
