/* motion_file (the io layer: reading and writing dispatched to the importers and
 * exporters, above them and never included by them): declared in
 * include/kinegraph/io.h, the public API. */
#ifndef KG_MOTION_FILE_H
#define KG_MOTION_FILE_H

#include "kinegraph/io.h"

#endif
