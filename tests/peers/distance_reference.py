#!/usr/bin/python3
"""Reference distances between convex hulls of point clouds, for
tests/test_collision.c, computed independently of kinegraph's GJK: the
minimum-norm point of the Minkowski difference as a quadratic program solved
by cvxopt (Debian python3-cvxopt),

    min |x|^2  over  x = sum_i u_i a_i - sum_j v_j b_j,  u, v >= 0,  sum u = sum v = 1,

then polished: on the points the QP leaves active, the same problem with the
equality constraints only (a linear KKT system, numpy), kept when its weights
are non-negative and the plane it implies separates the clouds by exactly that
distance (every point checked): the interior-point QP alone is good to about
1e-6 m, the polished answer to about 1e-13 m.

usage:
  distance_reference.py clouds OUT          random clouds at random poses (seed 20261122)
  distance_reference.py export IN OUT       hull vertices that test_collision exports
                                            (KG_DISTANCE_EXPORT=IN) for robot link pairs

Run with /usr/bin/python3 (Debian's, which has cvxopt). Files are plain text:
'#' lines, then records of whitespace-separated numbers (see write_clouds and
write_export).
"""
import math
import sys

import cvxopt
import numpy as np
from cvxopt import matrix, solvers, spmatrix

SEED = 20261122
NCASES = 120
ACTIVE = 1e-5      # a QP weight above this fraction of the largest is active
CERTIFY = 1e-11    # m: the polished distance and its separating plane's gap agree to this
AMBIGUOUS = (1e-8, 1e-4)  # m: QP distances between these are neither clearly 0 nor clear
MIN_ANGLE = 0.35   # rad between surface points: each sticks out of its neighbours' hull by
                   # at least r (1 - cos(angle / 2)), far beyond qhull's tolerance (1e-4 m)


def qp_distance(A, B):
    """The minimum-norm point of conv(A) - conv(B): (distance, u, v) from cvxopt.
    Variables [u, v, x]; the objective 1/2 |x|^2 is diagonal, so the KKT systems
    are diagonal plus five equality rows (fast for thousands of points)."""
    na, nb = len(A), len(B)
    n = na + nb + 3
    P = spmatrix([1.0, 1.0, 1.0], [na + nb, na + nb + 1, na + nb + 2], [na + nb, na + nb + 1, na + nb + 2], (n, n))
    q = matrix(0.0, (n, 1))
    G = spmatrix(-1.0, range(na + nb), range(na + nb), (na + nb, n))
    h = matrix(0.0, (na + nb, 1))
    E = np.zeros((5, n))
    E[0:3, 0:na] = A.T
    E[0:3, na:na + nb] = -B.T
    E[0:3, na + nb:] = -np.eye(3)
    E[3, 0:na] = 1
    E[4, na:na + nb] = 1
    b = matrix([0.0, 0.0, 0.0, 1.0, 1.0])
    sol = None
    for tol in (1e-10, 1e-8, 1e-7):  # tighter first; a tolerance below what the steps can
        solvers.options.update({"show_progress": False, "abstol": tol, "reltol": tol, "feastol": tol,
                                "maxiters": 200})  # reach ends in a domain error
        try:
            sol = solvers.qp(P, q, G, h, matrix(E), b)
            break
        except ValueError:
            continue
    z = np.array(sol["x"]).ravel()
    return float(np.linalg.norm(z[na + nb:])), z[:na], z[na:na + nb]


def polish(A, B, u, v):
    """The closest points of the affine hulls of the active points; None unless
    they are a certified answer for the whole clouds."""
    ia = np.flatnonzero(u > ACTIVE * u.max())
    ib = np.flatnonzero(v > ACTIVE * v.max())
    M = np.hstack([A[ia].T, -B[ib].T])  # 3 x k
    k = M.shape[1]
    E = np.zeros((2, k))
    E[0, :len(ia)] = 1
    E[1, len(ia):] = 1
    K = np.block([[M.T @ M, E.T], [E, np.zeros((2, 2))]])
    rhs = np.concatenate([np.zeros(k), [1.0, 1.0]])
    z = np.linalg.lstsq(K, rhs, rcond=None)[0][:k]
    if z.min() < -1e-12:
        return None
    x, y = A[ia].T @ z[:len(ia)], B[ib].T @ z[len(ia):]
    d = float(np.linalg.norm(y - x))
    if d <= 0:
        return None
    n = (y - x) / d
    gap = float((B @ n).min() - (A @ n).max())
    return d if abs(gap - d) < CERTIFY else None


def distance(A, B):
    """(distance, how): 0 for clouds whose hulls meet; None when ambiguous."""
    d, u, v = qp_distance(A, B)
    if d < AMBIGUOUS[0]:
        return 0.0, "qp"
    if d < AMBIGUOUS[1]:
        return None, "ambiguous"
    p = polish(A, B, u, v)
    if p is not None and abs(p - d) > 1e-5:  # the polish moved it farther than the QP's accuracy
        p = None
    return (p, "polished") if p is not None else (None, "uncertified")


def random_rotation(rng):
    q = rng.normal(size=4)
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def spread_directions(rng, n, dim=3):
    """n unit vectors at least MIN_ANGLE apart (rejection)."""
    out = []
    while len(out) < n:
        d = rng.normal(size=dim)
        d /= np.linalg.norm(d)
        if all(math.acos(min(1.0, float(d @ e))) > MIN_ANGLE for e in out):
            out.append(d)
    return np.array(out)


def cloud(rng, kind):
    """(points in the shape's frame, how many are hull vertices: kinegraph's
    kg_convex_hull must find exactly those)."""
    if kind == "ellipsoid":  # surface points (all extreme), then interior ones
        axes = rng.uniform(0.03, 0.15, size=3)
        ns = int(rng.integers(4, 40))
        surf = spread_directions(rng, ns) * axes
        ni = int(rng.integers(0, 20))
        mid = surf.mean(axis=0)
        inner = [0.5 * mid + 0.5 * rng.dirichlet(np.ones(ns)) @ surf for _ in range(ni)]
        pts = np.vstack([surf] + ([np.array(inner)] if ni else []))
        return pts[rng.permutation(len(pts))], ns
    if kind == "flat":  # a planar polygon with points inside: kept whole (qhull cannot hull it)
        axes = rng.uniform(0.03, 0.15, size=2)
        n = int(rng.integers(3, 13))
        pts = np.zeros((n, 3))
        pts[:, :2] = rng.uniform(-1, 1, size=(n, 2)) * axes
        return pts, n
    if kind == "point":
        return np.zeros((1, 3)) + rng.uniform(-0.02, 0.02, size=3), 1
    if kind == "segment":
        return np.vstack([rng.uniform(-0.1, 0.1, size=3) for _ in range(2)]), 2
    raise ValueError(kind)


KINDS = ["ellipsoid"] * 6 + ["flat", "point", "segment"]


def write_clouds(path):
    """Records: 'case K NA NB HULL_A HULL_B DISTANCE', NA lines of a's points
    (its frame), a line of its world rotation (9, row-major) and position (3),
    the same for b. DISTANCE 0: the hulls meet."""
    rng = np.random.default_rng(SEED)
    cases, dropped = [], {}
    while len(cases) < NCASES:
        ka, kb = KINDS[int(rng.integers(len(KINDS)))], KINDS[int(rng.integers(len(KINDS)))]
        (A, ha), (B, hb) = cloud(rng, ka), cloud(rng, kb)
        Ra, Rb = random_rotation(rng), random_rotation(rng)
        pa = rng.uniform(-0.5, 0.5, size=3)
        reach = np.abs(A).max() + np.abs(B).max()
        d = rng.normal(size=3)
        pb = pa + d / np.linalg.norm(d) * reach * rng.uniform(0.2, 1.6)
        dist, how = distance(A @ Ra.T + pa, B @ Rb.T + pb)
        if dist is None:
            dropped[how] = dropped.get(how, 0) + 1
            continue
        cases.append((A, ha, Ra, pa, B, hb, Rb, pb, dist))
    with open(path, "w") as f:
        f.write("# kinegraph reference: distances between convex hulls of point clouds\n")
        f.write(f"# by tests/peers/distance_reference.py: cvxopt {cvxopt.__version__} QP, numpy {np.__version__} polish;"
                f" seed {SEED}\n")
        f.write(f"# {len(cases)} cases, {sum(c[8] == 0 for c in cases)} meeting; dropped: {dropped}\n")
        for k, (A, ha, Ra, pa, B, hb, Rb, pb, dist) in enumerate(cases):
            f.write(f"case {k} {len(A)} {len(B)} {ha} {hb} {dist:.17g}\n")
            for P, R, p in ((A, Ra, pa), (B, Rb, pb)):
                for x in P:
                    f.write(" ".join(f"{c:.17g}" for c in x) + "\n")
                f.write(" ".join(f"{c:.17g}" for c in list(R.ravel()) + list(p)) + "\n")
    print(f"wrote {len(cases)} cases to {path} (dropped {dropped})")


def write_export(src, path):
    """Reads test_collision's export: records 'pair LINK_A LINK_B NA NB', a line
    'q NQ' and NQ values, NA then NB world hull vertices. Writes per record
    'pair LINK_A LINK_B NA NB DISTANCE' and the q line (no vertices: the test
    rebuilds them)."""
    toks = open(src).read().split()
    i, out = 0, []
    while i < len(toks):
        assert toks[i] == "pair"
        la, lb, na, nb = toks[i + 1], toks[i + 2], int(toks[i + 3]), int(toks[i + 4])
        assert toks[i + 5] == "q"
        nq = int(toks[i + 6])
        q = toks[i + 7:i + 7 + nq]
        i += 7 + nq
        pts = np.array([float(t) for t in toks[i:i + 3 * (na + nb)]]).reshape(-1, 3)
        i += 3 * (na + nb)
        dist, how = distance(pts[:na], pts[na:])
        if dist is None:
            print(f"{la}-{lb}: {how}, left out", file=sys.stderr)
            continue
        out.append((la, lb, na, nb, q, dist))
    with open(path, "w") as f:
        f.write("# kinegraph reference: distances between robot links' convex hulls (world vertices exported by\n")
        f.write(f"# test_collision) by tests/peers/distance_reference.py: cvxopt {cvxopt.__version__} QP, numpy"
                f" {np.__version__} polish\n")
        for la, lb, na, nb, q, dist in out:
            f.write(f"pair {la} {lb} {na} {nb} {dist:.17g}\nq {len(q)} {' '.join(q)}\n")
    print(f"wrote {len(out)} pairs to {path}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "clouds":
        write_clouds(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "export":
        write_export(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
