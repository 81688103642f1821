#!/usr/bin/env bash
# Runs ceph/s3-tests (https://github.com/ceph/s3-tests) against a Stratus started for the run, from a local
# checkout of the suite (not vendored; CI's is ../shared/third_party/s3-tests beside the clone, run by .ci/s3-tests
# on both backends; the claim was made at the commit in PINNED_COMMIT below).
#
#   test/s3/conformance/run.sh /path/to/s3-tests            # the claimed tests (claimed.txt)
#   test/s3/conformance/run.sh /path/to/s3-tests --all      # every test of test_s3.py and test_headers.py
#   test/s3/conformance/run.sh /path/to/s3-tests --list F   # the test ids listed in F
#   STRATUS_ARGS='--log-level debug' test/s3/conformance/run.sh ...   # extra `stratus serve` flags
#   BACKEND=postgres-s3 test/s3/conformance/run.sh ...   # metadata in a fresh PostgreSQL database (POSTGRES_ADMIN_URL,
#                                                        # else STRATUS_TEST_POSTGRES, else
#                                                        # postgres://postgres@127.0.0.1:5432/postgres) and
#                                                        # object bodies in an S3 store (a second Stratus started for it)
#
# Needs `npm run build` first, and Python 3 with boto3, pytest, munch, gevent, isodate, requests, httplib2, lxml,
# pytz and PyYAML (Debian: python3-boto3 python3-pytest python3-munch python3-gevent python3-isodate
# python3-requests python3-httplib2 python3-lxml python3-tz python3-yaml). PYTHON picks the interpreter
# (default /usr/bin/python3). Results: a JUnit file and a summary line under $OUT (default a temporary folder).
set -euo pipefail
PINNED_COMMIT=8f0ae7b
SUITE=${1:?usage: run.sh S3TESTS_DIR [--all] [pytest args...]}
shift
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
# The project's own Node.js (the `node` devDependency, as `npm test` and `npx stratus` use), else the PATH's.
NODE=${NODE:-$ROOT/node_modules/.bin/node}
[[ -x "$NODE" ]] || NODE=node
OUT=${OUT:-$(mktemp -d /tmp/stratus-s3-tests.XXXXXX)}
mkdir -p "$OUT"
SELECT=()
if [[ "${1:-}" == "--all" ]]; then
  shift
  SELECT=(s3tests/functional/test_s3.py s3tests/functional/test_headers.py)
elif [[ "${1:-}" == "--list" ]]; then
  mapfile -t SELECT < <(grep -v '^\s*#' "${2:?--list FILE}" | sed '/^\s*$/d')
  shift 2
else
  mapfile -t SELECT < <(grep -v '^\s*#' "$HERE/claimed.txt" | sed '/^\s*$/d')
fi
# An empty selection would make pytest collect every test under the suite's folder.
[[ ${#SELECT[@]} -gt 0 ]] || { echo "run.sh: no tests selected" >&2; exit 2; }
if [[ -d "$SUITE/.git" ]]; then
  at=$(git -C "$SUITE" rev-parse --short HEAD)
  [[ "$at" == "$PINNED_COMMIT"* ]] || echo "note: s3-tests at $at, the claim was made at $PINNED_COMMIT" >&2
fi

# A port nothing listens on now (the kernel's pick).
free_port() { "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT=${PORT:-$(free_port)}
KEY=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
SECRET=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
PIDS=()
DROP_DB=
# Runs one SQL statement on the administrative database (with the project's own PostgreSQL client: no psql needed).
postgres_admin() {
  (cd "$ROOT" && "$NODE" -e 'const c = new (require("pg").Client)({ connectionString: process.argv[1] });
    c.connect().then(() => c.query(process.argv[2])).finally(() => c.end()).catch((e) => { console.error(e.message); process.exitCode = 1; });' "$POSTGRES_ADMIN_URL" "$1")
}
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [[ -n "$DROP_DB" ]]; then postgres_admin "DROP DATABASE IF EXISTS $DROP_DB WITH (FORCE)" >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

# Starts `stratus serve` with S3 on $1, the v4 API on $2 (0: any free port), data in $3, log $4, extra flags
# after; waits until it answers.
serve() {
  local port=$1 http=$2 data=$3 log=$4
  shift 4
  "$NODE" "$ROOT/dist/cli.js" serve --data-dir "$data" --http "127.0.0.1:$http" --dns 127.0.0.1:0 --dns-workers 0 --edge off --admin 127.0.0.1:0 \
    --s3 "127.0.0.1:$port" --s3-access-key-id "$KEY" --s3-secret-access-key "$SECRET" --log-level warn "$@" >"$log" 2>&1 &
  local pid=$!
  PIDS+=("$pid")
  for _ in $(seq 1 150); do
    if curl -s -o /dev/null "http://127.0.0.1:$port/"; then return 0; fi
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; exit 1; }
    sleep 0.2
  done
}

EXTRA=()
if [[ "${BACKEND:-sqlite}" == "postgres-s3" ]]; then
  POSTGRES_ADMIN_URL=${POSTGRES_ADMIN_URL:-${STRATUS_TEST_POSTGRES:-postgres://postgres@127.0.0.1:5432/postgres}}
  DROP_DB="s3tests_$(head -c 6 /dev/urandom | od -An -tx1 | tr -d ' \n')"
  postgres_admin "CREATE DATABASE $DROP_DB"
  BLOB_PORT=$(free_port)
  serve "$BLOB_PORT" 0 "$OUT/blob-provider" "$OUT/blob-provider.log"
  S3TEST_KEY=$KEY S3TEST_SECRET=$SECRET "$PYTHON" - "$BLOB_PORT" <<'PY'
import os, sys, boto3
boto3.client('s3', endpoint_url=f'http://127.0.0.1:{sys.argv[1]}', region_name='auto',
             aws_access_key_id=os.environ['S3TEST_KEY'], aws_secret_access_key=os.environ['S3TEST_SECRET']).create_bucket(Bucket='stratus-blobs')
PY
  EXTRA=(--database-url "${POSTGRES_ADMIN_URL%/*}/$DROP_DB" --blobs-s3-bucket stratus-blobs --blobs-s3-endpoint "http://127.0.0.1:$BLOB_PORT"
    --blobs-s3-access-key-id "$KEY" --blobs-s3-secret-access-key "$SECRET")
fi
HTTP_PORT=$(free_port)
# shellcheck disable=SC2086
serve "$PORT" "$HTTP_PORT" "$OUT/data" "$OUT/stratus.log" "${EXTRA[@]}" ${STRATUS_ARGS:-}

# The suite's "alt" user is a second Stratus user with an account of its own (`stratus user add`) and an S3 key
# pair from an API token with Workers R2 Storage Write on that account (as production derives key pairs from
# tokens). Each user is the owner its account id names (ListBuckets Owner/ID). The "tenant" and IAM users of
# the suite are the main user (Stratus has no RGW tenants and no IAM; their tests are outside the claim).
DB_FLAGS=()
if [[ ${#EXTRA[@]} -gt 0 ]]; then DB_FLAGS=(--database-url "${EXTRA[1]}"); fi
ALT_OUT=$("$NODE" "$ROOT/dist/cli.js" user add --email alt@example.com --data-dir "$OUT/data" "${DB_FLAGS[@]}")
ALT_API_KEY=$(sed -n 's/^ *X-Auth-Key: //p' <<<"$ALT_OUT")
ALT_ACCOUNT=$(sed -n 's/^ *account id: //p' <<<"$ALT_OUT")
read -r ALT_KEY ALT_SECRET < <(curl -sf -X POST "http://127.0.0.1:$HTTP_PORT/client/v4/user/tokens" \
  -H 'X-Auth-Email: alt@example.com' -H "X-Auth-Key: $ALT_API_KEY" -H 'content-type: application/json' \
  -d "{\"name\":\"s3-tests alt\",\"policies\":[{\"effect\":\"allow\",\"permission_groups\":[{\"id\":\"bf7481a1826f439697cb59a20b22293e\"}],\"resources\":{\"com.cloudflare.api.account.$ALT_ACCOUNT\":\"*\"}}]}" |
  "$PYTHON" -c 'import hashlib, json, sys; t = json.load(sys.stdin)["result"]; print(t["id"], hashlib.sha256(t["value"].encode()).hexdigest())')
MAIN_ACCOUNT=$(S3TEST_KEY=$KEY S3TEST_SECRET=$SECRET "$PYTHON" -c '
import os, sys, boto3
s3 = boto3.client("s3", endpoint_url=f"http://127.0.0.1:{sys.argv[1]}", region_name="auto",
                  aws_access_key_id=os.environ["S3TEST_KEY"], aws_secret_access_key=os.environ["S3TEST_SECRET"])
print(s3.list_buckets()["Owner"]["ID"])' "$PORT")

cat >"$OUT/s3tests.conf" <<CONF
[DEFAULT]
host = 127.0.0.1
port = $PORT
is_secure = False
ssl_verify = False
[fixtures]
bucket prefix = s3t-{random}-
[s3 main]
display_name = $MAIN_ACCOUNT
user_id = $MAIN_ACCOUNT
email = main@example.com
api_name = auto
access_key = $KEY
secret_key = $SECRET
[s3 alt]
display_name = $ALT_ACCOUNT
email = alt@example.com
user_id = $ALT_ACCOUNT
access_key = $ALT_KEY
secret_key = $ALT_SECRET
[s3 tenant]
display_name = tenant
user_id = tenant
access_key = $KEY
secret_key = $SECRET
email = tenant@example.com
tenant = testx
[iam]
email = iam@example.com
user_id = iam
access_key = $KEY
secret_key = $SECRET
display_name = iam
[iam root]
access_key = $KEY
secret_key = $SECRET
user_id = RGW11111111111111111
email = root@example.com
[iam alt root]
access_key = $KEY
secret_key = $SECRET
user_id = RGW22222222222222222
email = altroot@example.com
CONF

cd "$SUITE"
set +e
S3TEST_CONF="$OUT/s3tests.conf" PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}" "$PYTHON" -m pytest -p no:cacheprovider -p stratus_cleanup -q -rN --junitxml="$OUT/junit.xml" "${SELECT[@]}" "$@" >"$OUT/pytest.log" 2>&1
status=$?
set -e
tail -n 3 "$OUT/pytest.log"
echo "results: $OUT (junit.xml, pytest.log, stratus.log)"
grep -q 'failed unexpectedly' "$OUT/stratus.log" && echo "stratus answered 500 (InternalError): see $OUT/stratus.log" || true
exit $status
