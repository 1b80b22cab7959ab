/* ledger: declared in include/kinegraph/io.h (the public API). */
#ifndef KG_LEDGER_H
#define KG_LEDGER_H

#include "kinegraph/io.h"

#endif
