#!/usr/bin/env bash
# test_output_peers (issue 26): every file kinegraph writes re-parses with
# kinegraph and with its peer reader:
#   URDF   check_urdf (urdfdom, Debian liburdfdom-tools)
#   DAE    libxml2 (xmllint) against the COLLADA 1.5 schema of Debian opencollada-tools
#          (/usr/lib/opencollada/collada_schema_1_5.xsd; its two network imports, xml.xsd
#          and MathML 2, replaced by local stand-ins: the xml: attributes declared, <math>
#          content not checked), and opencolladavalidator
#   BVH    assimp info (Debian assimp-utils)
#   JSON   /usr/bin/python3's json module (.json motion, ledgers, .gltf, info/fk/mass/check/collisions/
#          workspace/jacobian --json)
#   CSV    /usr/bin/python3's csv module (one column count for every row)
#   npz    numpy (tests/npz_dump.py, no pickles)
#   glTF   the Khronos glTF validator (npm gltf-validator; KINEGRAPH_GLTF_VALIDATOR, build/npm,
#          or npm root -g), .gltf and .glb
#   MJCF   well-formed XML (xmllint); MuJoCo reads it in test_mjcf
#   JUnit, SRDF (collisions --srdf), SVG (workspace --svg)  well-formed XML (xmllint)
# Models: samples/humanoid.urdf, samples/walk.bvh, two corpus robots (KINEGRAPH_DATA or
# ../shared/data; left out with a notice when absent) and three hostile-name models
# (tests/peers/hostile_models.py). A peer that is not installed is
# skipped with a notice, never passed silently. Usage: output_peers.sh KINEGRAPH SOURCE_DIR BINARY_DIR
set -uo pipefail
KG=$1
SRC=$2
BIN=${3:-$SRC/build}
PY=/usr/bin/python3
T=$(mktemp -d /tmp/kg_output_peers_XXXXXX)
trap 'rm -rf "$T"' EXIT
failures=0
checks=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}
ok() { checks=$((checks + 1)); }
have() { command -v "$1" >/dev/null 2>&1; }
dpkg_v() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo "?"; }

# ---- the peers and their versions ----
echo "peers:"
HAVE_CHECK_URDF=0 HAVE_XMLLINT=0 HAVE_OCV=0 HAVE_ASSIMP=0 HAVE_PY=0 HAVE_NUMPY=0 GLTF_MOD=
if have check_urdf; then HAVE_CHECK_URDF=1; echo "  check_urdf: urdfdom $(dpkg_v liburdfdom-tools) (Debian liburdfdom-tools)"
else echo "SKIPPED (URDF peer): check_urdf is not installed (Debian liburdfdom-tools)"; fi
SCHEMA=/usr/lib/opencollada/collada_schema_1_5.xsd
if have xmllint; then HAVE_XMLLINT=1; echo "  xmllint: $(xmllint --version 2>&1 | head -1)"
else echo "SKIPPED (XML peer): xmllint is not installed (Debian libxml2-utils)"; fi
if [ ! -r "$SCHEMA" ]; then echo "SKIPPED (DAE schema): $SCHEMA is absent (Debian opencollada-tools)"
elif [ $HAVE_XMLLINT = 1 ]; then echo "  COLLADA schema: $SCHEMA (opencollada-tools $(dpkg_v opencollada-tools))"; fi
if have opencolladavalidator; then HAVE_OCV=1; echo "  opencolladavalidator: opencollada-tools $(dpkg_v opencollada-tools)"
else echo "SKIPPED (DAE peer): opencolladavalidator is not installed (Debian opencollada-tools)"; fi
if have assimp; then HAVE_ASSIMP=1; echo "  assimp: $(assimp version 2>&1 | grep -i -m1 'version') (assimp-utils $(dpkg_v assimp-utils))"
else echo "SKIPPED (BVH peer): assimp is not installed (Debian assimp-utils)"; fi
if [ -x $PY ]; then HAVE_PY=1; echo "  python3: $($PY --version 2>&1) (json, csv)"
    if $PY -c 'import numpy' 2>/dev/null; then HAVE_NUMPY=1; echo "  numpy: $($PY -c 'import numpy; print(numpy.__version__)')"
    else echo "SKIPPED (npz peer): numpy is not installed for $PY (Debian python3-numpy)"; fi
else echo "SKIPPED (JSON, CSV and npz peers): $PY is absent"; fi
for d in "${KINEGRAPH_GLTF_VALIDATOR:-}" "$BIN/npm/node_modules" "$(npm root -g 2>/dev/null)"; do
    if [ -n "$d" ] && [ -r "$d/gltf-validator/package.json" ]; then GLTF_MOD=$d; break; fi
done
if [ -n "$GLTF_MOD" ] && have node; then
    echo "  gltf-validator: $($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$GLTF_MOD/gltf-validator/package.json" 2>/dev/null) (node $(node --version))"
else GLTF_MOD=; echo "SKIPPED (glTF peer): the Khronos glTF validator is not installed (npm install gltf-validator; set KINEGRAPH_GLTF_VALIDATOR to its node_modules folder)"; fi
echo "SKIPPED (MJCF peer): no MuJoCo reader here; test_mjcf loads the MJCF export with libmujoco (this checks it is well-formed XML)"

# The COLLADA 1.5 schema without the network: local stand-ins for its two imports.
SCHEMA_OK=0
if [ $HAVE_XMLLINT = 1 ] && [ -r "$SCHEMA" ]; then
    cat >"$T/xml.xsd" <<'EOF'
<?xml version="1.0"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="http://www.w3.org/XML/1998/namespace" xml:lang="en">
  <xs:attribute name="lang" type="xs:language"/>
  <xs:attribute name="space"><xs:simpleType><xs:restriction base="xs:NCName"><xs:enumeration value="default"/><xs:enumeration value="preserve"/></xs:restriction></xs:simpleType></xs:attribute>
  <xs:attribute name="base" type="xs:anyURI"/>
  <xs:attribute name="id" type="xs:ID"/>
</xs:schema>
EOF
    cat >"$T/mathml.xsd" <<'EOF'
<?xml version="1.0"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="http://www.w3.org/1998/Math/MathML" elementFormDefault="qualified">
  <xs:element name="math"><xs:complexType mixed="true"><xs:sequence>
    <xs:any minOccurs="0" maxOccurs="unbounded" processContents="skip"/></xs:sequence>
    <xs:anyAttribute processContents="skip"/></xs:complexType></xs:element>
</xs:schema>
EOF
    sed -e "s|http://www.w3.org/2001/xml.xsd|$T/xml.xsd|" \
        -e "s|http://www.w3.org/Math/XMLSchema/mathml2/mathml2.xsd|$T/mathml.xsd|" "$SCHEMA" >"$T/collada_1_5.xsd"
    echo '<COLLADA xmlns="http://www.collada.org/2008/03/COLLADASchema" version="1.5.0"/>' >"$T/probe.dae"
    if xmllint --nonet --noout --schema "$T/collada_1_5.xsd" "$T/probe.dae" 2>&1 | grep -q "failed to compile"; then
        echo "SKIPPED (DAE schema): the COLLADA 1.5 schema does not compile with libxml2 here"
    else SCHEMA_OK=1; fi
fi

# ---- the checks ----
kg_reads() { # FILE: kinegraph reads the model back without errors
    if "$KG" info "$1" >"$T/kg.out" 2>&1; then ok; else fail "kinegraph does not read $1 back: $(tail -3 "$T/kg.out")"; fi
}
peer_urdf() {
    [ $HAVE_CHECK_URDF = 1 ] || return 0
    if check_urdf "$1" >"$T/p.out" 2>&1; then ok; else fail "check_urdf $1: $(grep -v '^$' "$T/p.out" | tail -3)"; fi
}
peer_dae() {
    if [ $SCHEMA_OK = 1 ]; then
        if xmllint --nonet --noout --schema "$T/collada_1_5.xsd" "$1" >"$T/p.out" 2>&1; then ok
        else fail "$1 is not valid against the COLLADA 1.5 schema: $(head -5 "$T/p.out")"; fi
    fi
    if [ $HAVE_OCV = 1 ]; then
        # opencolladavalidator exits 0 even on errors; its verdict is the "is valid" line
        opencolladavalidator "$1" >"$T/p.out" 2>&1
        if grep -q "is valid against" "$T/p.out" && ! grep -qi "error" "$T/p.out"; then ok
        else fail "opencolladavalidator $1: $(head -5 "$T/p.out")"; fi
    fi
}
peer_bvh() {
    [ $HAVE_ASSIMP = 1 ] || return 0
    if assimp info "$1" >"$T/p.out" 2>&1 && grep -q "Nodes" "$T/p.out"; then ok
    else fail "assimp info $1: $(grep -i -m3 'error\|fail' "$T/p.out")"; fi
}
peer_json() {
    [ $HAVE_PY = 1 ] || return 0
    if $PY -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$1" >"$T/p.out" 2>&1; then ok
    else fail "python3 json $1: $(tail -1 "$T/p.out")"; fi
}
peer_csv() {
    [ $HAVE_PY = 1 ] || return 0
    if $PY - "$1" >"$T/p.out" 2>&1 <<'EOF'; then ok; else fail "python3 csv $1: $(tail -1 "$T/p.out")"; fi
import csv, sys
rows = list(csv.reader(open(sys.argv[1], encoding="utf-8", newline="")))
widths = {len(r) for r in rows}
assert rows and len(widths) == 1, "rows of %s columns" % sorted(widths)
EOF
}
peer_npz() {
    [ $HAVE_NUMPY = 1 ] || return 0
    if $PY "$SRC/tests/npz_dump.py" "$1" "$T/npz.json" >"$T/p.out" 2>&1; then ok
    else fail "numpy $1: $(tail -1 "$T/p.out")"; fi
}
peer_xml() {
    [ $HAVE_XMLLINT = 1 ] || return 0
    if xmllint --nonet --noout "$1" >"$T/p.out" 2>&1; then ok; else fail "xmllint $1: $(head -3 "$T/p.out")"; fi
}
GLTF_FILES=()

# write_all MODEL STEM WITH_MOTION: every format and every report, each read back
write_all() {
    local model=$1 stem=$2 motion=$3 ext out
    local kinds=(urdf dae xml gltf glb bvh) # BVH from any model: one frame at rest without a motion
    [ "$motion" = 1 ] && kinds+=(csv json npz)
    for ext in "${kinds[@]}"; do
        out=$T/${stem}_out.$ext
        if ! "$KG" convert "$model" "$out" --ledger "$T/${stem}_${ext}_ledger.json" >"$T/kg.out" 2>&1; then
            fail "kinegraph convert $model $out: $(tail -3 "$T/kg.out")"
            continue
        fi
        peer_json "$T/${stem}_${ext}_ledger.json"
        case $ext in
        urdf) kg_reads "$out"; peer_urdf "$out" ;;
        dae) kg_reads "$out"; peer_dae "$out" ;;
        bvh) kg_reads "$out"; peer_bvh "$out" ;;
        xml) peer_xml "$out" ;;
        gltf) peer_json "$out"; GLTF_FILES+=("$out") ;;
        glb) GLTF_FILES+=("$out") ;;
        csv) peer_csv "$out" ;;
        json) peer_json "$out" ;;
        npz) peer_npz "$out" ;;
        esac
    done
    local r
    for r in info fk mass; do
        "$KG" $r "$model" --json >"$T/${stem}_$r.json" 2>"$T/kg.err"
        peer_json "$T/${stem}_$r.json"
    done
    "$KG" check "$model" --json "$T/${stem}_check.json" --junit "$T/${stem}_check.xml" >/dev/null 2>&1
    peer_json "$T/${stem}_check.json"
    peer_xml "$T/${stem}_check.xml"
    # the reports that name links: collisions (SRDF, JSON); workspace (SVG, JSON) and
    # jacobian of the link farthest from the root at rest (the end of a chain)
    "$KG" collisions "$model" --samples 200 --min-samples 200 --srdf "$T/${stem}.srdf" --json \
        >"$T/${stem}_collisions.json" 2>"$T/kg.err"
    peer_xml "$T/${stem}.srdf"
    peer_json "$T/${stem}_collisions.json"
    [ $HAVE_PY = 1 ] || return 0
    local tip
    tip=$($PY -c '
import json, sys
links = json.load(open(sys.argv[1], encoding="utf-8"))["links"]
root = next(iter(links.values()))["position"]
print(max(links, key=lambda n: sum((a - b) ** 2 for a, b in zip(links[n]["position"], root))), end="")' \
        "$T/${stem}_fk.json" 2>/dev/null) || { fail "no link in $T/${stem}_fk.json"; return 0; }
    "$KG" workspace "$model" --tip "$tip" --samples 500 --svg "$T/${stem}_ws.svg" --json >"$T/${stem}_ws.json" 2>"$T/kg.err"
    peer_xml "$T/${stem}_ws.svg"
    peer_json "$T/${stem}_ws.json"
    "$KG" jacobian "$model" --tip "$tip" --json >"$T/${stem}_jacobian.json" 2>"$T/kg.err"
    peer_json "$T/${stem}_jacobian.json"
}

models=("$SRC/samples/humanoid.urdf:humanoid:0" "$SRC/samples/walk.bvh:walk:1")
DATA=${KINEGRAPH_DATA:-$SRC/../shared/data}
if [ -d "$DATA" ]; then
    for r in ur5/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf \
        unitree_g1/g1_description/g1_29dof_rev_1_0.urdf; do
        if [ -r "$DATA/urdf/$r" ]; then models+=("$DATA/urdf/$r:${r%%/*}:0")
        else echo "SKIPPED (in part): corpus robot $DATA/urdf/$r is absent"; fi
    done
else
    echo "SKIPPED (in part): the shared corpus is absent ($DATA; set KINEGRAPH_DATA): its robots are left out"
fi
# Hostile names (tests/peers/hostile_models.py): Latin-1, broken UTF-8, U+FFFE, control
# characters, XML/JSON/CSV specials, spaces and braces, 512 and 5000 characters, duplicates,
# under file names that are hostile too
if [ $HAVE_PY = 1 ]; then
    mkdir -p "$T/hostile"
    while IFS= read -r line; do models+=("$line"); done < <($PY "$SRC/tests/peers/hostile_models.py" "$T/hostile")
    [ ${#models[@]} -ge 5 ] || fail "tests/peers/hostile_models.py wrote no models"
else
    echo "SKIPPED (in part): the hostile-name models need $PY"
fi
for m in "${models[@]}"; do
    IFS=: read -r path stem motion <<<"$m"
    echo "model: $path"
    write_all "$path" "$stem" "$motion"
done

if [ -n "$GLTF_MOD" ] && [ ${#GLTF_FILES[@]} -gt 0 ]; then
    (cd "$T" && NODE_PATH=$GLTF_MOD node "$SRC/tests/gltf_validate.js" "${GLTF_FILES[@]}" >"$T/gltf.jsonl" 2>&1)
    while IFS= read -r line; do
        if $PY -c 'import json,sys; sys.exit(json.loads(sys.argv[1])["errors"] != 0)' "$line" 2>/dev/null; then ok
        else fail "gltf-validator: $line"; fi
    done <"$T/gltf.jsonl"
    [ "$(wc -l <"$T/gltf.jsonl")" -eq ${#GLTF_FILES[@]} ] || fail "gltf-validator reported on $(wc -l <"$T/gltf.jsonl") of ${#GLTF_FILES[@]} files"
fi

echo "output_peers: $checks checks passed, $failures failed"
[ $failures -eq 0 ]
