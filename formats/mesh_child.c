/* assimp crashes on some malformed files (5.2.5: the COLLADA skin of Khronos'
 * skin_4_influence.dae), and a crash in a library must not take kinegraph
 * down. So files whose readers are large (everything but STL, a flat list of
 * triangles) are read in a child process, which hands each scene back in
 * assimp's own binary dump (assbin: everything kept, quick to read).
 *
 * One child reads all the files asked for together, one after another: a
 * child per file cost a fork of the whole process each (35 COLLADA meshes of a
 * humanoid: 0.11-0.20 s read so, 0.04 s in the process itself). Before each
 * file it says which it starts, so when it crashes, or takes more than the
 * time allowed, the file it was reading is known: that file gets the error
 * (a crash after other files, once it crashed a fresh child too) and a fresh
 * child reads the rest. */
#define _POSIX_C_SOURCE 200809L /* kill */
#include "formats/mesh_child.h"

#include <assimp/cexport.h>
#include <assimp/cimport.h>
#include <assimp/scene.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/str.h"

pthread_mutex_t kg_assimp_errors = PTHREAD_MUTEX_INITIALIZER;

/* A fork copies every descriptor open in the process: a child forked by one
 * thread between another's pipe() and its closing of the write end would
 * hold that pipe open, and the other's reader would wait for this child's
 * end to see its own child's (check --jobs). Pipes are made and forked under
 * this lock, so each child holds its own pipe only. */
static pthread_mutex_t forking = PTHREAD_MUTEX_INITIALIZER;

/* A fork copies the memory of a thread caught inside assimp, with whatever
 * lock it holds there (a C++ static's guard, a logger's mutex): the child,
 * reading a file, waits for it forever (its alarm ends it, and the file is
 * reported unreadable). Calls into assimp in this process hold this lock
 * shared; a fork holds it alone. */
static pthread_rwlock_t inside = PTHREAD_RWLOCK_INITIALIZER;

void kg_assimp_enter(void) { pthread_rwlock_rdlock(&inside); }

void kg_assimp_leave(void) { pthread_rwlock_unlock(&inside); }

/* What the child sends, each record a tag and its payload's length (uint64)
 * first: START (no payload) before it reads a file; then DUMP (the dump's size,
 * the dump, then each mesh's name as a uint32 length and its bytes: assbin
 * 5.2.5 drops mesh names, which name COLLADA parts) or ERROR (why, as text). */
enum { START = 'S', DUMP = 'B', ERROR = 'E' };

const struct aiScene *kg_mesh_read_here(const char *path, unsigned flags, char **error) {
    pthread_mutex_lock(&kg_assimp_errors);
    kg_assimp_enter();
    const struct aiScene *s = aiImportFile(path, flags);
    if ((!s || !s->mRootNode) && !*error) *error = kg_strdup(aiGetErrorString());
    kg_assimp_leave();
    pthread_mutex_unlock(&kg_assimp_errors);
    return s;
}

static int write_all(int fd, const void *p, size_t n) {
    for (const char *c = p; n;) {
        ssize_t k = write(fd, c, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        c += k, n -= (size_t)k;
    }
    return 0;
}

static int read_all(int fd, void *p, size_t n) {
    for (char *c = p; n;) {
        ssize_t k = read(fd, c, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        c += k, n -= (size_t)k;
    }
    return 0;
}

static int header(int fd, char tag, uint64_t len) { return write_all(fd, &tag, 1) || write_all(fd, &len, sizeof len); }

/* The child's record of scene s, dumped as b. */
static int send_dump(int fd, const struct aiScene *s, const struct aiExportDataBlob *b) {
    uint64_t size = b->size, len = sizeof size + size;
    for (unsigned i = 0; i < s->mNumMeshes; i++) len += sizeof(uint32_t) + s->mMeshes[i]->mName.length;
    int bad = header(fd, DUMP, len) || write_all(fd, &size, sizeof size) || write_all(fd, b->data, b->size);
    for (unsigned i = 0; i < s->mNumMeshes && !bad; i++) {
        uint32_t n = s->mMeshes[i]->mName.length;
        bad = write_all(fd, &n, sizeof n) || write_all(fd, s->mMeshes[i]->mName.data, n);
    }
    return bad;
}

/* The child: paths[0 .. n) read in turn, a record each; then it exits. The
 * alarm times the reading only: sending waits for the parent, which may wait
 * for the lock (kg_assimp_errors) another thread holds. */
static void child(int fd, const char *const *paths, int n, unsigned flags, unsigned seconds) {
    sigset_t alarm_set;
    sigemptyset(&alarm_set), sigaddset(&alarm_set, SIGALRM);
    signal(SIGALRM, SIG_DFL); /* whatever the program using the library made of it */
    sigprocmask(SIG_UNBLOCK, &alarm_set, NULL);
    for (int k = 0; k < n; k++) {
        if (header(fd, START, 0)) _exit(1);
        alarm(seconds);
        const struct aiScene *s = aiImportFile(paths[k], flags);
        const struct aiExportDataBlob *b = s && s->mRootNode ? aiExportSceneToBlob(s, "assbin", 0) : NULL;
        alarm(0);
        const char *why = b ? NULL
                        : s ? (s->mRootNode ? "assimp could not pass the scene on" : "the file has no scene")
                            : aiGetErrorString();
        int bad = b ? send_dump(fd, s, b) : header(fd, ERROR, strlen(why)) || write_all(fd, why, strlen(why));
        /* released although _exit would: a leak checker following the fork (valgrind does)
         * then finds the child clean too */
        if (b) aiReleaseExportBlob(b);
        if (s) aiReleaseImport(s);
        if (bad) _exit(1);
    }
    close(fd);
    _exit(0);
}

/* The scene in a DUMP record's payload p[0 .. len), its mesh names put back;
 * NULL with *error set. */
static const struct aiScene *undump(const char *p, uint64_t len, char **error) {
    uint64_t size;
    if (len < sizeof size) return *error = kg_strdup("assimp's reader gave a short answer"), NULL;
    memcpy(&size, p, sizeof size);
    const struct aiScene *s = NULL;
    pthread_mutex_lock(&kg_assimp_errors);
    kg_assimp_enter();
    if (size <= len - sizeof size && size <= UINT32_MAX) s = aiImportFileFromMemory(p + sizeof size, (unsigned)size, 0, "assbin");
    if (!s) *error = kg_strdup(size <= len - sizeof size ? aiGetErrorString() : "assimp's reader gave a short answer");
    kg_assimp_leave();
    pthread_mutex_unlock(&kg_assimp_errors);
    uint64_t at = sizeof size + size;
    for (unsigned i = 0; s && i < s->mNumMeshes; i++) {
        uint32_t n;
        if (at + sizeof n > len) break;
        memcpy(&n, p + at, sizeof n);
        at += sizeof n;
        if (n >= MAXLEN || at + n > len) break;
        struct aiString *name = &((struct aiMesh *)s->mMeshes[i])->mName; /* ours until released */
        memcpy(name->data, p + at, n);
        name->data[n] = 0;
        name->length = n;
        at += n;
    }
    return s;
}

/* One record read into scenes[k] / errors[k]: 1 when it answered file k, 0 for
 * START, -1 when the pipe ended or memory ran out (*oom). */
static int take_record(int fd, const struct aiScene **scene, char **error, int *oom) {
    char tag;
    uint64_t len;
    if (read_all(fd, &tag, 1) || read_all(fd, &len, sizeof len)) return -1;
    if (tag == START) return 0;
    char *p = len < SIZE_MAX ? malloc((size_t)len + 1) : NULL;
    if (!p) return *oom = 1, -1;
    if (read_all(fd, p, (size_t)len)) return free(p), -1;
    if (tag == DUMP) *scene = undump(p, len, error);
    else p[len] = 0, *error = kg_strdup(tag == ERROR ? p : "assimp's reader gave an answer it does not give");
    free(p);
    return 1;
}

/* Why a child that did not answer the file it started stopped. */
static char *why_stopped(int status, unsigned seconds) {
    char buf[96];
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        snprintf(buf, sizeof buf, "assimp did not finish reading it in %u s", seconds);
    else if (WIFSIGNALED(status))
        snprintf(buf, sizeof buf, "assimp crashed reading it (a malformed file, or an assimp bug)");
    else
        snprintf(buf, sizeof buf, "assimp's reader stopped without an answer");
    return kg_strdup(buf);
}

/* A child reading paths[from .. n): returns the index of the first file it
 * left without an answer (n when none). A file it stopped in gets the error
 * when it was the child's first, or when its alarm went; one it crashed in
 * after others is read again first by a fresh child, as a file before it
 * may have left assimp's state broken. */
static int run_child(const char *const *paths, int from, int n, unsigned flags, unsigned seconds,
                     const struct aiScene **scenes, char **errors) {
    int fds[2] = {-1, -1};
    pthread_mutex_lock(&forking);
    pthread_rwlock_wrlock(&inside);
    fflush(NULL);
    pid_t pid = pipe(fds) == 0 ? fork() : -1;
    if (pid == 0) {
        close(fds[0]);
        child(fds[1], paths + from, n - from, flags, seconds);
    }
    if (fds[1] >= 0) close(fds[1]);
    pthread_rwlock_unlock(&inside);
    pthread_mutex_unlock(&forking);
    if (pid < 0) { /* cannot isolate them: read them here */
        if (fds[0] >= 0) close(fds[0]);
        for (int k = from; k < n; k++) scenes[k] = kg_mesh_read_here(paths[k], flags, &errors[k]);
        return n;
    }
    int k = from, started = -1, oom = 0, r;
    while (k < n && (r = take_record(fds[0], &scenes[k], &errors[k], &oom)) >= 0) {
        if (r == 0) started = k;
        else started = -1, k++;
    }
    if (oom) kill(pid, SIGKILL); /* and read the rest in a fresh one */
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (oom) errors[k] = kg_strdup("out of memory reading it"), started = -1, k++;
    else if (started > from && !(WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)) k = started;
    else if (started >= 0) errors[started] = why_stopped(status, seconds), k = started + 1;
    return k;
}

void kg_mesh_read_isolated(const char *const *paths, int n, unsigned flags, unsigned seconds,
                           const struct aiScene **scenes, char **errors) {
    for (int k = 0; k < n; k++) scenes[k] = NULL, errors[k] = NULL;
    for (int from = 0; from < n;) {
        int next = run_child(paths, from, n, flags, seconds, scenes, errors);
        if (next <= from) { /* a child that started nothing: not tried again */
            errors[from] = kg_strdup("assimp's reader stopped without an answer");
            next = from + 1;
        }
        from = next;
    }
}
