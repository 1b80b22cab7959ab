/* The command line of every kinegraph command, as data: each command's options
 * in one table (names, value, help text, where the value goes, how to complete
 * it) and the command's texts. One parser reads argv by the table (parse.c);
 * --help (help.c), the man pages (man.c) and the bash and zsh completions
 * (completion_*.c) are printed from the same tables, so they cannot drift
 * apart. */
#ifndef KG_CLI_OPTIONS_H
#define KG_CLI_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

struct kg_cli;

typedef enum kg_cli_kind {
    KG_OPT_TEXT, /* the value is kept as it is, in a const char * field */
    KG_OPT_FLAG, /* no value: an int field is set to .flag */
    KG_OPT_CALL, /* .call takes the value (or NULL, for an option without one) */
} kg_cli_kind;

/* Value completions (kg_cli_option.complete), besides a list of words. */
#define KG_COMPLETE_FILE "<file>"
#define KG_COMPLETE_DIR "<dir>"

typedef struct kg_cli_option {
    const char *name;  /* "--output" */
    const char *alias; /* its other name ("-o", "-j", "--base"), or NULL */
    const char *value; /* the value's name in help ("FILE"); NULL: the option takes none */
    const char *help;  /* what it does: lines of --help, '\n' between them */
    kg_cli_kind kind;
    size_t at;         /* TEXT, FLAG: the field's offset in the options struct */
    int flag;          /* FLAG: what is stored */
    /* CALL: 0, or -1 after printing the usage error */
    int (*call)(struct kg_cli *c, const struct kg_cli_option *o, const char *value);
    const char *complete; /* the value's completion: KG_COMPLETE_FILE, KG_COMPLETE_DIR,
                           * words separated by spaces, or NULL (nothing to offer) */
    int many;             /* may be given more than once, each adding (--package-path) */
} kg_cli_option;

/* Initialisers of the three kinds. The field's type is checked at compile time
 * (a pointer difference of unlike types does not compile), so a flag can never
 * be written over a string field. */
#define KG_TEXT(S, f) .kind = KG_OPT_TEXT, .at = offsetof(S, f) + 0 * sizeof(&((S *)0)->f - (const char **)0)
#define KG_FLAG(S, f, v) .kind = KG_OPT_FLAG, .at = offsetof(S, f) + 0 * sizeof(&((S *)0)->f - (int *)0), .flag = (v)
#define KG_CALL(fn) .kind = KG_OPT_CALL, .call = (fn)

/* The shared groups of options a command takes (kg_cli_command.common). */
enum {
    KG_CLI_JSON = 1,  /* --json: print JSON */
    KG_CLI_MODEL = 2, /* --package-path, --format, --scale, --verbose */
    KG_CLI_POSE = 4,  /* --q, --q-file, --root-pose, --frame */
};

typedef struct kg_cli_command {
    const char *name;        /* "convert" */
    const char *summary;     /* one line: kinegraph --help, the man page's NAME */
    const char *usage;       /* the synopsis: lines from "kinegraph NAME", '\n' between them */
    const char *description; /* paragraphs (blank lines between them) */
    const kg_cli_option *options; /* the command's own, ended by {0}; NULL: none */
    unsigned common;              /* KG_CLI_* groups */
    const char *exit_status;      /* its own exit-status text, or NULL (kg_cli_exit_status) */
    const char *operands;         /* completion of the words that are not options
                                   * (KG_COMPLETE_FILE), or NULL (none taken) */
    int (*run)(int argc, char **argv);
} kg_cli_command;

/* Every command, in the order of kinegraph --help (commands.c). */
extern const kg_cli_command *const kg_cli_commands[];
extern const int kg_cli_ncommands;
/* The top level: what kinegraph is, and its exit statuses. */
extern const char kg_cli_about[];
extern const char kg_cli_exit_status[];
/* kinegraph's own options (--version, --help), {0}-ended. */
extern const kg_cli_option kg_cli_top_options[];

/* The shared groups' tables ({0}-ended), in the order --help lists them; NULL
 * past the last. The options they set live in struct kg_cli itself. */
const kg_cli_option *kg_cli_group(int k, unsigned common);
/* --help, listed last by every command (the parser knows it by itself). */
extern const kg_cli_option kg_cli_help_option;

/* Option `name` of cmd, its own first (a command's own --base hides the
 * shared --base, the first name of --root-pose); *own says whose. NULL when
 * the command has no such option. */
const kg_cli_option *kg_cli_find(const kg_cli_command *cmd, const char *name, int *own);
/* Whether name, an alias of a shared option, is hidden by one of cmd's own. */
int kg_cli_alias_hidden(const kg_cli_command *cmd, const kg_cli_option *o, int own);
/* Calls fn for every option cmd takes, in --help's order (its own, the
 * groups', --help); own says whose. */
void kg_cli_each_option(const kg_cli_command *cmd,
                        void (*fn)(const kg_cli_command *cmd, const kg_cli_option *o, int own, void *arg), void *arg);

/* Parses argv by cmd's tables: values go where the options say (the shared
 * ones into c, the command's own into c->ctx), words that are not options to
 * c->operand, or, without one, to c->model_path (one, required). Returns -1 to
 * go on, or the exit status when done: 0 after --help, 2 after a usage error. */
int kg_cli_parse(struct kg_cli *c, const kg_cli_command *cmd, int argc, char **argv);
/* cmd's --help text. */
void kg_cli_print_help(FILE *f, const kg_cli_command *cmd);
/* A table's options as --help lists them (the top level's). */
void kg_cli_print_options(FILE *f, const kg_cli_option *table);
/* An option's names as --help shows them ("-o, --output"). */
void kg_cli_option_names(const kg_cli_command *cmd, const kg_cli_option *o, int own, char *buf, size_t size);

#endif
