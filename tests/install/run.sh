#!/bin/sh
# Installs the build into a temporary prefix, as a user's `cmake --install`
# would, and checks what a consumer of the installed tree gets:
#   - the shared library exports the KG_API declarations and nothing else
#     (check_symbols.py; nm -D);
#   - every public header compiles on its own, as C and as C++;
#   - a small program (consumer/) builds against the installed tree four
#     times: on the shared library and on libkinegraph.a, each through
#     pkg-config (--static for the archive) and through find_package(kinegraph)
#     (kinegraph::kinegraph, kinegraph::kinegraph_static); every build runs,
#     reading MODEL and printing what the installed command prints for it
#     (kinegraph info --json and mass --json: links, joints, dof, mass, COM);
#   - kinegraph.pc needs no other module's .pc (as with the .deb alone);
#   - the man pages (man finds kinegraph-convert under the prefix) and the bash
#     and zsh completions are installed, and the .deb (cpack) holds them: its
#     zsh completion where Debian's zsh looks for packaged ones.
# Usage: run.sh BUILD_DIR SOURCE_DIR MODEL
set -eu
build=$1 src=$2 model=$3
py=/usr/bin/python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kg_install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log"
lib=$(dirname "$(find "$prefix" -name libkinegraph.so -print | head -n 1)")
[ -n "$lib" ] || { echo "no libkinegraph.so installed under $prefix"; exit 1; }
for f in "$lib/libkinegraph.a" "$lib/pkgconfig/kinegraph.pc" "$lib/cmake/kinegraph/kinegraphConfig.cmake" \
         "$prefix/bin/kinegraph" "$prefix/include/kinegraph/kinegraph.h" "$prefix/include/kinegraph/version.h"; do
    [ -e "$f" ] || { echo "not installed: $f"; exit 1; }
done
for f in "$prefix/share/man/man1/kinegraph.1" "$prefix/share/man/man1/kinegraph-convert.1" \
         "$prefix/share/bash-completion/completions/kinegraph" "$prefix/share/zsh/site-functions/_kinegraph"; do
    [ -e "$f" ] || { echo "not installed: $f"; exit 1; }
done
[ "$(ls "$prefix/share/man/man1" | wc -l)" -eq "$(($("$prefix/bin/kinegraph" --help | sed -n '/^commands:/,/^$/p' | grep -c '^  ') + 1))" ] ||
    { echo "not one man page per command: $(ls "$prefix/share/man/man1")"; exit 1; }
if command -v man >/dev/null; then
    page=$(MANPATH="$prefix/share/man" man -w kinegraph-convert)
    [ "$page" = "$prefix/share/man/man1/kinegraph-convert.1" ] || { echo "man -w kinegraph-convert: $page"; exit 1; }
fi
soname=$(readelf -d "$lib/libkinegraph.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ -e "$lib/$soname" ] || { echo "SONAME $soname not installed"; exit 1; }

$py "$src/tests/install/check_symbols.py" "$lib/libkinegraph.so" "$prefix/include"

for h in "$prefix"/include/kinegraph/*.h; do
    echo "#include <kinegraph/$(basename "$h")>" >"$tmp/h.c"
    cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$prefix/include" "$tmp/h.c" ||
        { echo "$h does not compile alone (C)"; exit 1; }
    c++ -std=c++17 -Wall -Werror -fsyntax-only -x c++ -I"$prefix/include" "$tmp/h.c" ||
        { echo "$h does not compile alone (C++)"; exit 1; }
done

# pkg-config (the .pc is relocatable: its prefix is its own folder's). With
# kinegraph.pc the only .pc in sight, as on a machine with the .deb and none of
# the dependencies' -dev packages, the shared library's flags still come.
PKG_CONFIG_LIBDIR="$lib/pkgconfig" pkg-config --cflags --libs kinegraph >/dev/null ||
    { echo "kinegraph.pc needs other modules' .pc files"; exit 1; }
export PKG_CONFIG_PATH="$lib/pkgconfig"
cc -std=c11 -Wall -Wextra -Werror "$src/tests/install/consumer/consumer.c" -o "$tmp/consumer_pc" \
    $(pkg-config --cflags --libs kinegraph) -Wl,-rpath,"$lib"
# libkinegraph.a with its dependencies shared, as the README says: --static adds
# what the archive links, and -l:libkinegraph.a stands for -lkinegraph, which
# the linker would resolve to the .so beside it
static_libs=$(pkg-config --static --libs kinegraph | sed 's/-lkinegraph /-l:libkinegraph.a /')
case " $static_libs " in *" -l:libkinegraph.a "*) ;; *) echo "no -lkinegraph in: $static_libs"; exit 1 ;; esac
cc -std=c11 -Wall -Wextra -Werror "$src/tests/install/consumer/consumer.c" -o "$tmp/consumer_pc_static" \
    $(pkg-config --cflags kinegraph) $static_libs
# CMake package (consumer on kinegraph::kinegraph, consumer_static on kinegraph::kinegraph_static)
(cmake -S "$src/tests/install/consumer" -B "$tmp/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_RPATH="$lib" &&
    cmake --build "$tmp/cmake") >"$tmp/cmake.log" 2>&1 || { cat "$tmp/cmake.log"; exit 1; }

"$prefix/bin/kinegraph" info "$model" --json >"$tmp/info.json"
"$prefix/bin/kinegraph" mass "$model" --json >"$tmp/mass.json"
"$prefix/bin/kinegraph" --version >"$tmp/version.txt"
for c in "$tmp/consumer_pc" "$tmp/cmake/consumer" "$tmp/consumer_pc_static" "$tmp/cmake/consumer_static"; do
    "$c" "$model" >"$tmp/out.json"
    # a consumer runs against the installed library, not the build's; a static one against none
    case "$c" in
    *_static) ! ldd "$c" | grep -q libkinegraph || { echo "$c uses a shared libkinegraph"; ldd "$c"; exit 1; } ;;
    *) ldd "$c" | grep -q "$lib/libkinegraph.so" || { echo "$c does not use $lib"; ldd "$c"; exit 1; } ;;
    esac
    $py - "$tmp" "$c" <<'PY'
import json, sys
tmp, prog = sys.argv[1], sys.argv[2]
out = json.load(open(tmp + "/out.json"))
info = json.load(open(tmp + "/info.json"))
mass = json.load(open(tmp + "/mass.json"))
version = open(tmp + "/version.txt").read().split()[1]
want = {"version": version, "links": info["links"], "joints": info["joints"], "dof": info["dof"],
        "mass": mass["mass"], "com": mass["com"]}
bad = [k for k in want if out[k] != want[k]]
if bad:
    sys.exit("%s: %s differ: %s against the command's %s" % (prog, bad, [out[k] for k in bad], [want[k] for k in bad]))
print("%s: %s" % (prog, out))
PY
done
# the .deb: what it installs under /usr, the man pages and completions among it
(cd "$build" && cpack -G DEB -B "$tmp/deb" >"$tmp/cpack.log" 2>&1) || { cat "$tmp/cpack.log"; exit 1; }
deb=$(ls "$tmp"/deb/kinegraph_*.deb)
dpkg-deb -c "$deb" >"$tmp/deb.txt"
for f in ./usr/bin/kinegraph ./usr/share/man/man1/kinegraph.1 ./usr/share/man/man1/kinegraph-convert.1 \
         ./usr/share/bash-completion/completions/kinegraph ./usr/share/zsh/vendor-completions/_kinegraph; do
    grep -q " $f\$" "$tmp/deb.txt" || { echo "$deb does not hold $f"; cat "$tmp/deb.txt"; exit 1; }
done
echo "install: ok ($(ls "$lib" | tr '\n' ' '))"
