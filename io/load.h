/* load (the io layer: reading and writing dispatched to the importers and
 * exporters, above them and never included by them): declared in
 * include/kinegraph/io.h, the public API. */
#ifndef KG_LOAD_H
#define KG_LOAD_H

#include "formats/resolve.h"
#include "kinegraph/io.h"

#endif
