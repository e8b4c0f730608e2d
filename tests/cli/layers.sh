# layers: every #include points down the layers (docs/architecture.md), and
# the check itself catches an upward include and a cycle.
source "$(dirname "$0")/lib.sh"
if bash "$SRC/scripts/layers" "$SRC" >"$T/out" 2>&1; then ok; else bad "layering broken: $(cat "$T/out")"; fi
# a copy with a model that includes the registry, and two modules in a cycle
mkdir -p "$T/src"
cp -r "$SRC/sim" "$SRC/models" "$SRC/traces" "$SRC/real" "$T/src/"
sed -i '0,/#include "/s//#include "..\/..\/sim\/registry.h"\n#include "/' "$T/src/models/cache/lru.c"
echo '#include "idmap.h"' >>"$T/src/sim/base/mem.h"
echo '#include "mem.h"' >>"$T/src/sim/base/idmap.h"
expect_status 1 "broken copy fails" bash "$SRC/scripts/layers" "$T/src"
stdout_has "upward include named" "models/cache/lru.c (models) includes sim/registry.h (wiring)"
stdout_has "cycle named" "include cycle"
finish
