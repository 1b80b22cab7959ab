/* One COLLADA <geometry> read without assimp (see mesh_dae.c for why). */
#ifndef KG_MESH_DAE_H
#define KG_MESH_DAE_H

typedef struct kg_dae_mesh {
    double *vert; /* [3 nvert], metres (the file's <unit>) */
    int nvert;
    int *tri;     /* [3 ntri] */
    int ntri;
} kg_dae_mesh;

/* The triangles of <geometry id="id"> in the COLLADA file at path (positions;
 * <triangles> and <polylist>). 0 with malloc'd arrays, -1 when there are none
 * (the file or the geometry cannot be read), -2 when memory runs out. */
int kg_dae_geometry(const char *path, const char *id, kg_dae_mesh *out);

#endif
