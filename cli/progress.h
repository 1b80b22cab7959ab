/* A progress line on standard error for the commands' long computations
 * (workspace and collision sampling): shown only when standard error is a
 * terminal and the CI variable is not set (never in pipes, logs or CI),
 * redrawn over itself at most four times a second, erased at the end. */
#ifndef KG_CLI_PROGRESS_H
#define KG_CLI_PROGRESS_H

typedef struct kg_cli_progress {
    int on;
    const char *what;  /* "workspace: 42 % of 1000000 samples" */
    const char *unit;
    double t0, last;   /* s, monotonic */
    int drawn;
} kg_cli_progress;

/* Decides whether to show it (terminal, not CI) and starts its clock. */
void kg_cli_progress_start(kg_cli_progress *p, const char *what, const char *unit);
/* A kg_progress_fn: user is the kg_cli_progress. */
void kg_cli_progress_update(void *user, long done, long total);
/* Erases the line, when drawn. */
void kg_cli_progress_end(kg_cli_progress *p);

#endif
