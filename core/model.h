/* The model (include/kinegraph/model.h holds its declarations: the public API). */
#ifndef KG_MODEL_H
#define KG_MODEL_H

#include "kinegraph/model.h"

#endif
