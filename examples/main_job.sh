#!/usr/bin/env bash
# The main job on the embedded default: local Spark builds the pattern index of
# ../shared/lake, then DuckDB serves it to suggest a constraint for a column and
# to validate two batches of a real table: its clean version and its dirty one.
set -euo pipefail
cd "$(dirname "$0")/.."

LAKE=${LAKE:-../shared/lake}
INDEX=${INDEX:-.autovalidate/lake-index}
DATA=${DATA:-../shared/dirty-clean/hospital}
SUITE=${SUITE:-.autovalidate/hospital-zip.json}
mkdir -p .autovalidate "$(dirname "$SUITE")"

# 1. offline: the pattern index of the lake (Spark local[2]; ~6 min on 2 idle cores,
#    longer on a busy machine; progress lines when the output is not a terminal)
if [ -f "$INDEX/_autovalidate_index.json" ]; then
  echo "reusing $INDEX (delete it to rebuild)"
else
  python3 -m autovalidate index build --lake "$LAKE" --out "$INDEX"
fi
python3 -m autovalidate index info "$INDEX"

# 2. online: suggest a validation pattern for a column of a CSV file
python3 -m autovalidate suggest "$DATA/clean.csv" --column ZipCode --index "$INDEX" \
  --out "$SUITE"

# 3. validate batches: the clean table passes (exit 0) ...
python3 -m autovalidate validate "$DATA/clean.csv" --constraints "$SUITE"

# ... and the dirty one, with its real typos, fails (exit 1). Its header names
# the column `zip`: --rename checks the suite's ZipCode there (without it,
# validate would stop at the missing column with exit 2)
set +e
python3 -m autovalidate validate "$DATA/dirty.csv" --constraints "$SUITE" \
  --rename ZipCode=zip
status=$?
set -e
if [ "$status" -ne 1 ]; then
  echo "expected the dirty batch to fail validation (exit 1), got exit $status" >&2
  exit 1
fi
echo "main job done: the dirty batch failed its ZipCode pattern (exit 1 from validate)"
