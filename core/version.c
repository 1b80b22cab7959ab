/* kg_version: the version the library was built as (kinegraph/version.h is
 * generated from CMake's project(VERSION)). */
#include "kinegraph/version.h"

const char *kg_version(void) { return KG_VERSION_STRING; }

int kg_version_number(void) { return KG_VERSION_NUMBER; }
