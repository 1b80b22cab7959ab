/* motion_file: declared in include/kinegraph/io.h (the public API). */
#ifndef KG_MOTION_FILE_H
#define KG_MOTION_FILE_H

#include "kinegraph/io.h"

#endif
