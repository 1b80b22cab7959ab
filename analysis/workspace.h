/* workspace: declared in include/kinegraph/analysis.h (the public API). */
#ifndef KG_WORKSPACE_H
#define KG_WORKSPACE_H

#include "analysis/sampling.h"
#include "kinegraph/analysis.h"

#endif
