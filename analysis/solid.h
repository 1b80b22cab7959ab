/* Mass properties of solid geometry at unit density: volume, centroid and the
 * inertia tensor about the centroid, for the primitives and for closed triangle
 * meshes (a sum of signed tetrahedra, exact for any closed, consistently
 * oriented mesh). Multiply volume and inertia by a density to get kilograms.
 *
 * Solids add as if they did not overlap: two overlapping geometries of one link
 * count their common volume twice (MuJoCo does the same with its geoms). */
#ifndef KG_SOLID_H
#define KG_SOLID_H

typedef struct kg_solid {
    double volume;      /* m^3 */
    double centroid[3]; /* m; zero when the volume is zero */
    double inertia[9];  /* about the centroid, at density 1 (m^5), row-major */
} kg_solid;

/* Primitives in their own frame, centred at the origin. Sizes as in kg_geom:
 * box full extents; sphere radius; cylinder radius and length along z; capsule
 * radius and the length of its cylindrical part along z. */
void kg_solid_box(kg_solid *s, const double size[3]);
void kg_solid_sphere(kg_solid *s, double radius);
void kg_solid_cylinder(kg_solid *s, double radius, double length);
void kg_solid_capsule(kg_solid *s, double radius, double length);

/* A triangle mesh scaled per axis. A closed mesh gives its exact properties
 * whatever its orientation: an inside-out mesh (negative signed volume) is
 * turned the right way and *inside_out set. *open_edges receives the number of
 * edges the triangles do not run along as often in one direction as in the
 * other (a hole's rim, or a flipped triangle): when it is not zero the mesh is
 * not a closed surface and the result is not a volume (it depends on where the
 * mesh sits); *uncertainty receives how uncertain the volume is then, relative
 * to it (CAD exports often leave cracks of a few nanometres: their uncertainty
 * is negligible). Returns 0, or -1 when out of memory. */
int kg_solid_mesh(kg_solid *s, const double *vert, int nvert, const int *tri, int ntri, const double scale[3],
                  int *open_edges, int *inside_out, double *uncertainty);

/* s in a frame where its own frame sits at (rot, pos). */
void kg_solid_transform(kg_solid *s, const double rot[9], const double pos[3]);

/* acc += s (acc may start zeroed). */
void kg_solid_add(kg_solid *acc, const kg_solid *s);

#endif
