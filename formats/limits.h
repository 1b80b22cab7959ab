/* Limits on what is read and written, named in one place (the README's
 * "Limits" lists them with their defaults). A limit is never silent: passing
 * one is an error diagnostic with its code, file and line. A reader's limit is
 * never below what the writers write: a writer refuses a model it could not
 * read back. The limits read through kg_limit() can be raised at run time by
 * the environment variable of the same name (KG_LIMIT_ZAE_SIZE=4000000000). */
#ifndef KG_LIMITS_H
#define KG_LIMITS_H

/* The value of limit `name`: the environment variable of that name when it is
 * a positive integer, else `value` (its default). */
unsigned long long kg_limit(const char *name, unsigned long long value);
#define KG_LIMIT(name) kg_limit(#name, name)

/* Joints and End Sites of a BVH hierarchy, and so also its nesting depth (each
 * level is a joint). 10^6 nodes are about 100 MB of model. */
#define KG_LIMIT_BVH_NODES 1000000
/* Bytes of a BVH joint name. The BVH writer shortens a longer name (a URDF
 * link's may be any length) and says so in the ledger. */
#define KG_LIMIT_BVH_NAME 512
/* Nesting of a kinematic tree (COLLADA <link>s) or of visual-scene nodes
 * (instance_node included, which is also what stops instancing cycles): 10^5
 * levels, a chain of 10^5 links. The writers refuse a deeper model. */
#define KG_LIMIT_DEPTH 100000
/* Nesting and number of the nodes of a COLLADA visual scene read as a node
 * tree (an animation tool's skeleton, no kinematics model): read by recursion,
 * one small frame a level; instance_node cycles stop here. kinegraph's own
 * writer puts a kinematics model beside its scene, read without this limit. */
#define KG_LIMIT_SCENE_DEPTH 256
#define KG_LIMIT_SCENE_NODES 100000
#define KG_STR_(x) #x
#define KG_STR(x) KG_STR_(x)
/* XML elements nested deeper than this are refused by the parser (libxml2's own
 * default, 256, is below what a 130-link chain written as COLLADA needs: each
 * link is two levels, <attachment_full><link>). */
#define KG_LIMIT_XML_DEPTH (2 * KG_LIMIT_DEPTH + 64)
/* Fatal errors of one XML document before its parse stops (the document is
 * refused at the first; libxml2 would go on to its end, an error every few
 * bytes of garbage). */
#define KG_LIMIT_XML_ERRORS 100
/* Frames of a COLLADA animation, sampled on the keys' time grid (10^6 frames
 * of a 30-joint skeleton are 240 MB of motion); more is an error and the
 * first ones are kept. */
#define KG_LIMIT_COLLADA_FRAMES 1000000
/* Frames of a COLLADA animation times the values each one computes (its
 * nodes placed or its coordinates, whichever is more): 10^8 is 800 MB of
 * motion and about 15 s of sampling (10^5 frames of a 300-node skeleton are
 * 3*10^7). More is the error collada.too_many_frames. Raise with the
 * environment variable. */
#define KG_LIMIT_COLLADA_SAMPLES 100000000ull
/* Values (frames times coordinates and root pose) of a motion resampled with
 * --fps: 10^8 is 800 MB of motion and gigabytes of text; a frame rate typed
 * with zeros too many (--fps 1e7 on a 4 s clip: 4 * 10^7 frames) is refused
 * before any frame is made. Raise with the environment variable. */
#define KG_LIMIT_RESAMPLE_VALUES 100000000ull
/* <animation>s nested in <animation>s (kinegraph writes them flat; read by
 * recursion, one small frame a level). */
#define KG_LIMIT_ANIMATION_DEPTH 256
/* Written files are indented by depth only this far: deeper levels keep this
 * indentation, so a file's size stays linear in the number of links (a
 * 10 000-link chain indented in full is 700 MB of blanks). */
#define KG_LIMIT_INDENT 32

/* Bytes of a document unpacked from a .zae archive (the COLLADA inside and
 * its manifest). Raise with the environment variable. */
#define KG_LIMIT_ZAE_SIZE (256ull << 20)
/* Unpacked size over packed size of an archive entry, checked once the entry
 * is over 1 MB: COLLADA text packs 5 to 20 times; 1 MB unpacking to 3 GB is a
 * zip bomb. Raise with the environment variable. */
#define KG_LIMIT_ZAE_RATIO 200ull
/* Characters that XML entity references may expand to in a whole document
 * (attribute values and text together): a DTD's internal entities nested
 * in each other or used many times ("billion laughs", and the quadratic
 * variant: one large entity referenced many times) would otherwise take
 * minutes and gigabytes. Raise with the environment variable. */
#define KG_LIMIT_XML_ENTITY_EXPANSION (16ull << 20)

#endif
