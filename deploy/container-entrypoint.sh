#!/bin/sh
# The container's entrypoint: before `serve`, fetch the embedding model and ONNX Runtime's library
# into the data directory once (unless PAPERTIDE_EMBED_MODEL_DIR names another model, or
# PAPERTIDE_FETCH_MODEL=no); then run papertide with the given arguments, as PID 1 so it gets
# SIGTERM itself.
set -eu

data_dir=${PAPERTIDE_DATA_DIR:-/data}
model_weights="$data_dir/models/all-minilm-l6-v2/model.safetensors"
runtime_library="$data_dir/runtime/libonnxruntime.so.1.32.0"

if [ "${1:-}" = serve ] && [ -z "${PAPERTIDE_EMBED_MODEL_DIR:-}" ] \
    && [ "${PAPERTIDE_FETCH_MODEL:-yes}" != no ] && { [ ! -s "$model_weights" ] || [ ! -s "$runtime_library" ]; }; then
    echo "papertide-entrypoint: fetching the embedding model and its runtime into $data_dir (once; PAPERTIDE_FETCH_MODEL=no skips it)" >&2
    papertide model fetch \
        || echo "papertide-entrypoint: the embedding model could not be fetched: papers are ranked by their words" >&2
fi

exec papertide "$@"
