/* kinegraph-doc DIR: the man pages (DIR/man1/kinegraph.1 and
 * kinegraph-COMMAND.1) and the shell completions (DIR/completion/kinegraph for
 * bash, DIR/completion/_kinegraph for zsh), written at build time from the
 * commands' tables, the same that `kinegraph COMMAND --help` prints. Not
 * installed: only what it writes is. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/man.h"
#include "kinegraph/version.h"

/* DIR/NAME written by fn (with cmd for a command's page); 0, or -1 said. */
static int write_file(const char *dir, const char *name, void (*fn)(FILE *, const kg_cli_command *),
                 const kg_cli_command *cmd) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) return fprintf(stderr, "kinegraph-doc: cannot write %s: %s\n", path, strerror(errno)), -1;
    fn(f, cmd);
    if (fclose(f) != 0) return fprintf(stderr, "kinegraph-doc: cannot write %s\n", path), -1;
    return 0;
}

static void man_command(FILE *f, const kg_cli_command *cmd) { kg_man_command(f, cmd, KG_VERSION_STRING); }
static void man_top(FILE *f, const kg_cli_command *cmd) { (void)cmd, kg_man_top(f, KG_VERSION_STRING); }
static void bash(FILE *f, const kg_cli_command *cmd) { (void)cmd, kg_completion_bash(f); }
static void zsh(FILE *f, const kg_cli_command *cmd) { (void)cmd, kg_completion_zsh(f); }

static int folder(const char *path) {
    if (mkdir(path, 0777) == 0 || errno == EEXIST) return 0;
    return fprintf(stderr, "kinegraph-doc: cannot make %s: %s\n", path, strerror(errno)), -1;
}

int main(int argc, char **argv) {
    if (argc != 2) return fprintf(stderr, "usage: kinegraph-doc DIR\n"), 2;
    char man[4096], completion[4096];
    snprintf(man, sizeof man, "%s/man1", argv[1]);
    snprintf(completion, sizeof completion, "%s/completion", argv[1]);
    if (folder(argv[1]) || folder(man) || folder(completion)) return 1;
    int rc = write_file(man, "kinegraph.1", man_top, NULL);
    for (int i = 0; i < kg_cli_ncommands; i++) {
        char name[64];
        snprintf(name, sizeof name, "kinegraph-%s.1", kg_cli_commands[i]->name);
        rc |= write_file(man, name, man_command, kg_cli_commands[i]);
    }
    rc |= write_file(completion, "kinegraph", bash, NULL) | write_file(completion, "_kinegraph", zsh, NULL);
    return rc ? 1 : 0;
}
