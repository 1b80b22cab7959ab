/* The one option parser of the kinegraph commands: argv read by the command's
 * option table (cli/options.h). */
#include <string.h>

#include "cli/common.h"

static const kg_cli_option *in_table(const kg_cli_option *t, const char *name) {
    for (; t && t->name; t++)
        if (!strcmp(t->name, name) || (t->alias && !strcmp(t->alias, name))) return t;
    return NULL;
}

const kg_cli_option *kg_cli_find(const kg_cli_command *cmd, const char *name, int *own) {
    const kg_cli_option *o = in_table(cmd->options, name);
    *own = o != NULL;
    for (int k = 0; !o && kg_cli_group(k, cmd->common); k++) o = in_table(kg_cli_group(k, cmd->common), name);
    return o;
}

int kg_cli_alias_hidden(const kg_cli_command *cmd, const kg_cli_option *o, int own) {
    return !own && o->alias && in_table(cmd->options, o->alias);
}

void kg_cli_each_option(const kg_cli_command *cmd,
                        void (*fn)(const kg_cli_command *cmd, const kg_cli_option *o, int own, void *arg), void *arg) {
    for (const kg_cli_option *o = cmd->options; o && o->name; o++) fn(cmd, o, 1, arg);
    const kg_cli_option *g;
    for (int k = 0; (g = kg_cli_group(k, cmd->common)); k++)
        for (; g->name; g++) fn(cmd, g, 0, arg);
    fn(cmd, &kg_cli_help_option, 0, arg);
}

/* Stores or hands over option o's value; 0, or -1 after a usage error. */
static int apply(kg_cli *c, const kg_cli_option *o, int own, const char *value) {
    char *fields = own ? (char *)c->ctx : (char *)c;
    switch (o->kind) {
    case KG_OPT_TEXT: *(const char **)(fields + o->at) = value; return 0;
    case KG_OPT_FLAG: *(int *)(fields + o->at) = o->flag; return 0;
    case KG_OPT_CALL: return o->call(c, o, value);
    }
    return -1;
}

static int operand(kg_cli *c, char *word) {
    if (c->operand) return c->operand(c, word);
    if (c->model_path) return kg_cli_usage_error(c->command, "only one MODEL, please"), -1;
    c->model_path = word;
    return 0;
}

int kg_cli_parse(kg_cli *c, const kg_cli_command *cmd, int argc, char **argv) {
    c->command = cmd->name;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, kg_cli_help_option.name) || !strcmp(a, kg_cli_help_option.alias)) {
            kg_cli_print_help(stdout, cmd);
            return KG_EXIT_OK;
        }
        int own;
        const kg_cli_option *o = a[0] == '-' && a[1] ? kg_cli_find(cmd, a, &own) : NULL;
        if (!o && a[0] == '-' && a[1]) return kg_cli_usage_error(c->command, "unknown option %s", a);
        if (!o) {
            if (operand(c, argv[i]) != 0) return KG_EXIT_USAGE;
            continue;
        }
        const char *value = NULL;
        if (o->value && i + 1 >= argc) return kg_cli_usage_error(c->command, "option %s needs a value", a);
        if (o->value) value = argv[++i];
        if (apply(c, o, own, value) != 0) return KG_EXIT_USAGE;
    }
    if (!c->operand && !c->model_path) return kg_cli_usage_error(c->command, "which MODEL?");
    return -1;
}
