/* Man pages and shell completions, written from the commands' tables
 * (cli/options.h) by kinegraph-doc at build time. */
#ifndef KG_CLI_MAN_H
#define KG_CLI_MAN_H

#include <stdio.h>

#include "cli/options.h"

/* kinegraph-COMMAND(1) in roff. */
void kg_man_command(FILE *f, const kg_cli_command *cmd, const char *version);
/* kinegraph(1): the commands, the top level's options and exit status. */
void kg_man_top(FILE *f, const char *version);
/* The bash completion script (complete -F _kinegraph kinegraph). */
void kg_completion_bash(FILE *f);
/* The zsh completion function (#compdef kinegraph), for a file named _kinegraph. */
void kg_completion_zsh(FILE *f);

#endif
