/* load: declared in include/kinegraph/io.h (the public API). */
#ifndef KG_LOAD_H
#define KG_LOAD_H

#include "formats/resolve.h"
#include "kinegraph/io.h"

#endif
