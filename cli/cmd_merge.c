#include "cli/common.h"
int kg_cmd_merge(int argc, char **argv);
int kg_cmd_merge(int argc, char **argv) { (void)argc; (void)argv; return 2; }
