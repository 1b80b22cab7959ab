/* diag: declared in include/kinegraph/model.h (the public API). */
#ifndef KG_DIAG_H
#define KG_DIAG_H

#include "kinegraph/model.h"

#endif
