#!/usr/bin/python3
"""Random feasible convex QPs and cvxopt's solutions of them: the reference of
tests/test_qp.c (kg_qp_solve), written once and committed, so the tests do not
need cvxopt.

    minimise 1/2 x'Hx + g'x  subject to  C x = d,  A x >= b,  lb <= x <= ub

Each problem is planted: a solution x*, an active set and multipliers are drawn
first, then b, d, the bounds and g are set so that x* satisfies the KKT
conditions (H positive definite: x* is the only solution). Some problems are
degenerate: rows duplicated (an active row twice, its multiplier split or all
on one copy), rows and bounds active at x* with a zero multiplier. Some have
H with condition number ~1e4. The data are rounded to a few decimals (short
numbers in the file), and b, d, g computed from the rounded values, so the
file is the problem exactly.

Run with Debian's interpreter (python3-cvxopt, python3-numpy), not another
python3 on the PATH:
    /usr/bin/python3 tests/peers/qp_reference.py > tests/reference/qp/random.json
(tests/peers/make_references.sh does this.)
"""
import json
import subprocess
import sys

import cvxopt
import numpy as np
from cvxopt import solvers

SEED = 20261122
COMMAND = "/usr/bin/python3 tests/peers/qp_reference.py > tests/reference/qp/random.json"
# Far tighter than cvxopt's defaults (1e-7, 1e-6, 1e-7): it stops when it can
# make no more progress ("unknown" status), which leaves x good to about 1e-7
# here, inside the test's 1e-6 (zero multipliers on active constraints slow an
# interior point's x to the square root of its gap).
OPTIONS = {"show_progress": False, "abstol": 1e-13, "reltol": 1e-13, "feastol": 1e-13, "maxiters": 200}


def debian_version(package):
    try:
        return subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True,
                              text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def hessian(rng, n, cond):
    """M'M / rows + 0.1 I, columns of M scaled so that cond(H) is about cond."""
    m = rng.standard_normal((n + 5, n))
    if cond > 1:
        m = m * np.logspace(0, 0.5 * np.log10(cond), n)[rng.permutation(n)]
    h = m.T @ m / (n + 5) + 0.1 * np.eye(n)
    h = np.round(0.5 * (h + h.T), 6)
    return h


def problem(rng, name, n, neq, nin, bounded, zero_multipliers, duplicates, cond):
    H = hessian(rng, n, cond)
    x = np.round(rng.uniform(-1, 1, n), 4)
    C = np.round(rng.standard_normal((neq, n)), 3)
    A = np.round(rng.standard_normal((nin, n)), 3)
    lam = np.zeros(nin)
    nu = np.round(rng.standard_normal(neq), 3)
    # the active set: rows and bounds, at most n - neq normals in all
    room = n - neq
    nrows = min(nin, int(rng.integers(0, room // 2 + 1)))
    rows = rng.choice(nin, nrows, replace=False)
    b = A @ x - np.round(rng.uniform(0.05, 1.0, nin), 3)  # inactive: slack 0.05 .. 1
    b[rows] = A[rows] @ x
    lam[rows] = np.round(rng.uniform(0.1, 2.0, nrows), 3)
    lb = np.full(n, -np.inf)
    ub = np.full(n, np.inf)
    lam_lb = np.zeros(n)
    lam_ub = np.zeros(n)
    nbound = min(room - nrows, n)
    bvars = rng.choice(n, int(bounded * n), replace=False)
    nb_active = 0
    for i in bvars:
        lo, hi = x[i] - np.round(rng.uniform(0.1, 1.0), 3), x[i] + np.round(rng.uniform(0.1, 1.0), 3)
        kind = rng.integers(0, 3) if nb_active < nbound else 2
        if kind == 0:
            lo = x[i]
            lam_lb[i] = np.round(rng.uniform(0.1, 2.0), 3)
            nb_active += 1
        elif kind == 1:
            hi = x[i]
            lam_ub[i] = np.round(rng.uniform(0.1, 2.0), 3)
            nb_active += 1
        lb[i], ub[i] = lo, hi
    if rng.integers(0, 4) == 0 and len(bvars) > 0:  # one unknown with only an upper bound
        i = bvars[0]
        if lam_lb[i] == 0:
            lb[i] = -np.inf
    dup = []
    if zero_multipliers:  # one active row and one active bound weakly active (more
        # and cvxopt's interior point stalls short of 1e-6 on the larger problems)
        lam[rows[:1]] = 0
        weak = [i for i in bvars if lam_lb[i] > 0 or lam_ub[i] > 0][:1]
        lam_lb[weak] = 0
        lam_ub[weak] = 0
    if duplicates:
        # duplicates: an active row (multiplier split), an active row with a
        # zero-multiplier copy, an inactive row
        inactive = [i for i in range(nin) if i not in set(rows)]
        for src, split in ((rows[-1] if nrows else None, True), (rows[0] if nrows else None, False),
                           (inactive[0] if inactive else None, False)):
            if src is None:
                continue
            A = np.vstack([A, A[src]])
            b = np.append(b, b[src])
            if split:
                half = np.round(lam[src] / 2, 3)
                lam = np.append(lam, lam[src] - half)
                lam[src] = half
            else:
                lam = np.append(lam, 0.0)
            dup.append([int(src), len(b) - 1])
    d = C @ x
    g = -H @ x + C.T @ nu + A.T @ lam + lam_lb - lam_ub
    return {"name": name, "n": n, "H": H, "g": g, "C": C, "d": d, "A": A, "b": b, "lb": lb, "ub": ub,
            "x_planted": x, "duplicates": dup, "zero_multipliers": bool(zero_multipliers), "cond": cond}


def solve(p):
    n = p["n"]
    G, h = [-p["A"]], [-p["b"]]
    for i in range(n):
        e = np.zeros(n)
        if np.isfinite(p["lb"][i]):
            e[i] = -1
            G.append(e[None, :].copy())
            h.append(np.array([-p["lb"][i]]))
        if np.isfinite(p["ub"][i]):
            e[i] = 1
            G.append(e[None, :].copy())
            h.append(np.array([p["ub"][i]]))
    G, h = np.vstack(G), np.concatenate(h)
    m = cvxopt.matrix
    args = [m(p["H"]), m(p["g"])]
    args += [m(G), m(h)] if len(h) else [None, None]
    args += [m(p["C"]), m(p["d"])] if len(p["d"]) else []
    sol = solvers.qp(*args, options=OPTIONS)
    return np.array(sol["x"]).ravel(), sol["status"], sol["iterations"]


def listed(v):
    return [None if not np.isfinite(t) else float(t) for t in np.ravel(v)]


def main():
    rng = np.random.default_rng(SEED)
    cases = []
    for n in (5, 8, 12, 16, 20, 30, 40, 60):
        for variant in ("plain", "degenerate", "conditioned"):
            neq = int(rng.integers(0, min(n // 3, 30) + 1))
            nin = int(rng.integers(n // 2, min(150, 2 * n) + 1)) if n < 60 else 100
            cond = 1e4 if variant == "conditioned" else 1
            cases.append(problem(rng, "n%02d_%s" % (n, variant), n, neq, nin, 0.85, variant == "degenerate",
                                 variant != "plain", cond))
    out = []
    worst = 0
    for p in cases:
        x, status, iters = solve(p)
        err = float(np.max(np.abs(x - p["x_planted"])))
        worst = max(worst, err)
        if status != "optimal" and err > 1e-7:
            print("cvxopt: %s %s, |x - x*| %.2g" % (p["name"], status, err), file=sys.stderr)
        q = {"name": p["name"], "n": p["n"], "neq": len(p["d"]), "nin": len(p["b"]), "zero_multipliers": p["zero_multipliers"],
             "cond": p["cond"], "duplicates": p["duplicates"]}
        for key in ("H", "g", "C", "d", "A", "b", "lb", "ub", "x_planted"):
            q[key] = listed(p[key])
        q.update({"x_cvxopt": listed(x), "cvxopt_status": status, "cvxopt_iterations": iters})
        out.append(q)
    print("cvxopt vs planted: worst |x - x*| %.3g over %d problems" % (worst, len(out)), file=sys.stderr)
    doc = {"peer": "cvxopt %s (Debian python3-cvxopt %s), numpy %s" % (cvxopt.__version__,
                                                                     debian_version("python3-cvxopt"),
                                                                     np.__version__),
           "command": COMMAND, "seed": SEED, "cvxopt_options": OPTIONS,
           "convention": "minimise 1/2 x'Hx + g'x, C x = d, A x >= b, lb <= x <= ub; H, C, A row-major; "
                         "null bounds are absent"}
    head = json.dumps(doc, indent=1)
    # one problem a line: readable diffs when the file is regenerated
    sys.stdout.write(head[:-2] + ',\n "problems": [\n')
    sys.stdout.write(",\n".join(json.dumps(q, separators=(",", ":")) for q in out))
    sys.stdout.write("\n ]\n}\n")


if __name__ == "__main__":
    main()
