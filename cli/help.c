/* A command's --help, printed from its texts and option tables. */
#include <string.h>

#include "cli/options.h"

/* Where the options' descriptions start (as in --help since the first commands). */
#define HELP_COLUMN 25

void kg_cli_option_names(const kg_cli_command *cmd, const kg_cli_option *o, int own, char *buf, size_t size) {
    if (!o->alias || kg_cli_alias_hidden(cmd, o, own)) snprintf(buf, size, "%s", o->name);
    else if (o->alias[1] == '-') snprintf(buf, size, "%s, %s", o->name, o->alias); /* --root-pose, --base */
    else snprintf(buf, size, "%s, %s", o->alias, o->name);                         /* -o, --output */
}

static void print_option(const kg_cli_command *cmd, const kg_cli_option *o, int own, void *arg) {
    FILE *f = arg;
    char names[64];
    kg_cli_option_names(cmd, o, own, names, sizeof names);
    int n = fprintf(f, "  %s%s%s", names, o->value ? " " : "", o->value ? o->value : "");
    /* the description beside the names, or two spaces past names too long for the column */
    fprintf(f, "%*s", n < HELP_COLUMN ? HELP_COLUMN - n : 2, "");
    for (const char *line = o->help; line;) {
        const char *end = strchr(line, '\n');
        fprintf(f, "%.*s\n", end ? (int)(end - line) : (int)strlen(line), line);
        line = end ? end + 1 : NULL;
        if (line) fprintf(f, "%*s", HELP_COLUMN, "");
    }
}

void kg_cli_print_help(FILE *f, const kg_cli_command *cmd) {
    fprintf(f, "usage: %s\n%s\noptions:\n", cmd->usage, cmd->description);
    kg_cli_each_option(cmd, print_option, f);
    if (cmd->exit_status) fprintf(f, "\n%s", cmd->exit_status);
}

void kg_cli_print_options(FILE *f, const kg_cli_option *table) {
    const kg_cli_command none = {0};
    for (const kg_cli_option *o = table; o->name; o++) print_option(&none, o, 1, f);
}
