/* save: declared in include/kinegraph/io.h (the public API). */
#ifndef KG_SAVE_H
#define KG_SAVE_H

#include "kinegraph/io.h"

#endif
