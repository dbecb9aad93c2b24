# Sourced by the scripts: tool paths in the order that matters (npm's wasm-opt before Debian's).
SCOREBENCH_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$SCOREBENCH_ROOT/tools/node_modules/.bin:$HOME/.cargo/bin:$PATH"
