"""Reads a kinegraph .npz (RL motion file) with numpy and writes its arrays as
JSON for test_npz: {name: {"dtype": str, "shape": [...], "data": [flat values]}}.
Loads without pickles, as trainers do; floats are written exactly (a float32's
double value, shortest form)."""
import json
import sys

import numpy as np

with np.load(sys.argv[1], allow_pickle=False) as z:
    out = {}
    for name in z.files:
        a = z[name]
        data = a.reshape(-1).tolist()  # float32 -> the same number as a Python float
        out[name] = {"dtype": a.dtype.str, "shape": list(a.shape), "data": data}
with open(sys.argv[2], "w", encoding="utf-8") as f:
    json.dump(out, f, ensure_ascii=False)
