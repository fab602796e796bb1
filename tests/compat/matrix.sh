#!/usr/bin/env bash
# The compatibility matrix (README "Versions"): each row is a fresh venv with one Python, one torch and the newest
# (or the lowest) releases of everything else pyproject.toml allows, running the suite. Not part of the default CI
# run (.ci/run tests what a new user gets today); pytest does not collect this folder (norecursedirs).
#
#   bash tests/compat/matrix.sh [ROWS...]        rows: py311-torch2.13 py312-torch2.14 py313-torch2.14 py310-lowest
#
# Environment:
#   CX_MATRIX_DIR    where the venvs, logs, the shared download cache and results.md go (default /tmp/cx-matrix;
#                    inside the clone only under an ignored path such as /out/)
#   CX_MATRIX_TESTS  the pytest arguments (default: the README's "--nbval-lax tests notebooks"); a named subset,
#                    e.g. "tests -m 'not slow'", when the whole suite does not fit the time
#   CX_PYENV         where the Pythons are (default /root/.pyenv/versions; 3.10.13 3.11.7 3.12.1 3.13.0)
# Per row it prints python, torch and ipython versions, the pytest summary line and the wall time, and appends a
# markdown table row to $CX_MATRIX_DIR/results.md. Exit status: 1 when any row failed to install or had failures.
set -uo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
DIR=${CX_MATRIX_DIR:-/tmp/cx-matrix}
TESTS=${CX_MATRIX_TESTS:---nbval-lax tests notebooks}
PYENV=${CX_PYENV:-/root/.pyenv/versions}
ALL_ROWS=(py311-torch2.13 py312-torch2.14 py313-torch2.14 py310-lowest)
ROWS=("$@")
[ ${#ROWS[@]} -eq 0 ] && ROWS=("${ALL_ROWS[@]}")
mkdir -p "$DIR/cache/pip" "$DIR/cache/uv" "$DIR/logs"
DIR=$(cd "$DIR" && pwd)
RESULTS=$DIR/results.md
# one download cache shared by every row, so a re-run downloads nothing
export PIP_CACHE_DIR=$DIR/cache/pip UV_CACHE_DIR=$DIR/cache/uv PIP_DISABLE_PIP_VERSION_CHECK=1
unset VIRTUAL_ENV PYTHONPATH PYTHONHOME
BASE_PATH=$PATH

row_spec() {  # ROW -> "PYTHON TORCH RESOLUTION"
    case $1 in
        py311-torch2.13) echo "3.11.7 2.13.0 newest" ;;   # +cpu, from local disk (pip's find-links)
        py312-torch2.14) echo "3.12.1 2.14.1 newest" ;;   # PyPI's CUDA build; runs on CPU
        py313-torch2.14) echo "3.13.0 2.14.1 newest" ;;
        py310-lowest) echo "3.10.13 2.11.0 lowest" ;;     # lowest-direct: every direct dependency at its lower bound
        *) return 1 ;;
    esac
}

uv_bin() {  # uv (PyPI's `uv`) in its own venv: it installs every row, from one download cache
    if [ ! -x "$DIR/uv/bin/uv" ]; then
        "$PYENV/3.11.7/bin/python" -m venv "$DIR/uv" && "$DIR/uv/bin/pip" install -q uv >&2 || return 1
    fi
    echo "$DIR/uv/bin/uv"
}

install_row() {  # VENV TORCH RESOLUTION: the row's torch and the package with its test extra into VENV
    local venv=$1 torch=$2 resolution=$3 uv links
    uv=$(uv_bin) || return 1
    # uv, not pip: pip's download cache stays empty behind a proxy that sends no caching headers, and the CUDA builds
    # of torch are GBs. uv does not read pip's config: pip's find-links (where a local torch build lies, e.g. the
    # CPU build of 2.13.0) are passed on; the index is PyPI, as for pip.
    links=$(pip config get global.find-links 2>/dev/null || echo "${PIP_FIND_LINKS:-}")
    # newest: what a new user gets (README "Two commands"), with this row's torch. lowest: every direct dependency
    # (the package's and the test extra's) at the lowest release pyproject.toml allows; theirs at the newest that fit
    [ "$resolution" = lowest ] && resolution=lowest-direct || resolution=highest
    "$uv" pip install --python "$venv/bin/python" --resolution "$resolution" ${links:+--find-links "$links"} \
        "torch==$torch" -e ".[test]"
}

versions() {  # VENV -> "name=version ..." of the notable packages
    "$1/bin/python" - <<'EOF'
import platform
from importlib.metadata import PackageNotFoundError, version

names = ["torch", "ipython", "depyf", "ipywidgets", "anywidget", "pygments", "triton", "pytest", "jupyterlab"]
out = ["python=" + platform.python_version()]
for name in names:
    try:
        out.append(f"{name}={version(name)}")
    except PackageNotFoundError:
        out.append(f"{name}=-")
print(" ".join(out))
EOF
}

run_row() {  # ROW: install, run the tests, print and record the result; fails when either did
    local row=$1 spec pyver torch resolution venv log start install_s wall rc summary others kv
    local -A v=()
    spec=$(row_spec "$row") || { echo "unknown row '$row' (rows: ${ALL_ROWS[*]})" >&2; return 1; }
    read -r pyver torch resolution <<<"$spec"
    venv=$DIR/venvs/$row
    log=$DIR/logs/$row
    echo "=== $row: Python $pyver, torch $torch, $resolution releases of the rest"
    rm -rf "$venv"
    start=$SECONDS
    if ! { "$PYENV/$pyver/bin/python" -m venv "$venv" && install_row "$venv" "$torch" "$resolution"; } \
        >"$log.install.log" 2>&1; then
        echo "    install FAILED (see $log.install.log):"
        tail -5 "$log.install.log" | sed 's/^/    /'
        record "$row" "$pyver" "$torch" "" "" "" "install failed" $((SECONDS - start))
        return 1
    fi
    install_s=$((SECONDS - start))
    for kv in $(versions "$venv"); do v[${kv%%=*}]=${kv#*=}; done
    echo "    python ${v[python]}, torch ${v[torch]}, ipython ${v[ipython]}, depyf ${v[depyf]}" \
        "(installed in ${install_s} s)"
    # the venv first on PATH: the notebook tests start kernels and subprocesses by name. Inductor's cache of the row's
    # own, empty as a new user's: no kernels built by another torch, no tmp* folders of other processes' compiles
    rm -rf "$DIR/inductor/$row"
    start=$SECONDS
    (export VIRTUAL_ENV=$venv PATH=$venv/bin:$BASE_PATH TORCHINDUCTOR_CACHE_DIR=$DIR/inductor/$row \
        && eval "python -m pytest -q -p no:cacheprovider $TESTS") >"$log.pytest.log" 2>&1
    rc=$?
    wall=$((SECONDS - start))
    summary=$(grep -E '^=*.*[0-9] (passed|failed|errors?|skipped|no tests ran)\b.* in [0-9.]+s' "$log.pytest.log" \
        | tail -1 | sed -E 's/^=+ //; s/ =+$//; s/ in [0-9.]+s.*$//')
    [ -n "$summary" ] || summary="pytest exit $rc, no summary (see $log.pytest.log)"
    echo "    $summary; tests ${wall} s (log: $log.pytest.log)"
    others="ipywidgets ${v[ipywidgets]}, anywidget ${v[anywidget]}, pygments ${v[pygments]}, triton ${v[triton]}"
    others+=", pytest ${v[pytest]}, jupyterlab ${v[jupyterlab]}"
    record "$row" "${v[python]}" "${v[torch]}" "${v[ipython]}" "${v[depyf]}" "$others" "$summary" "$wall"
    return $rc
}

record() {  # ROW PYTHON TORCH IPYTHON DEPYF OTHERS RESULT SECONDS: one markdown table row into results.md
    echo "| $1 | $2 | $3 | $4 | $5 | $6 | \`$TESTS\` | $7 | $(($8 / 60)) min $(($8 % 60)) s | $(date +%F) |" >>"$RESULTS"
}

main() {
    local status=0 row
    [ -f "$RESULTS" ] || {
        echo "| Row | Python | torch | IPython | depyf | others | tests | result | wall (tests) | date |"
        echo "|---|---|---|---|---|---|---|---|---|---|"
    } >"$RESULTS"
    for row in "${ROWS[@]}"; do
        run_row "$row" || status=1
    done
    echo "results: $RESULTS"
    return $status
}

main  # last: bash has read the whole script before it runs, so editing it during a run is safe
exit $?
