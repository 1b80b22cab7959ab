/* Resolution of the file references inside a model (meshes, textures).
 *
 *   package://NAME/rest  searched, in this order, in
 *       1. every --package-path DIR: DIR/NAME/rest, or DIR/rest when DIR is named NAME;
 *       2. every entry of ROS_PACKAGE_PATH (colon-separated), the same way;
 *       3. the model file's folder and its ancestors A: A/rest when A is named NAME,
 *          or A/NAME/rest.
 *   package:///rest      (empty package name) is read as package://rest with a
 *                        warning: the first path segment becomes the package name.
 *   file://PATH          PATH.
 *   anything else        a path, relative to the model file's folder.
 * Only existing regular files count as resolved. */
#ifndef KG_RESOLVE_H
#define KG_RESOLVE_H

#include "kinegraph/io.h" /* kg_resolver */

/* Returns the resolved path (malloc'd) or NULL. Warnings about the form of the
 * reference (package:///) go to d with the given file and line; the caller
 * reports a reference that does not resolve. *oom is set to 1 when memory
 * ran out (NULL then says nothing of the reference: the caller fails), else 0. */
char *kg_resolve_uri(const kg_resolver *r, const char *model_file, const char *uri, kg_diags *d,
                     int line, int *oom);

#endif
