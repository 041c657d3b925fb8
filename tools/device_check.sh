#!/usr/bin/env bash
# The device check: what train.py makes of a machine with a GPU and many cores, unattended, in
# under 8 minutes. Run it from the repository's root on that machine:
#
#     bash tools/device_check.sh [OUT_DIR]                 # default OUT_DIR: runs/device_check
#
# It prints, and writes to OUT_DIR (check.log, learner.json, cycles.json, determinism.txt):
#   1. the machine: GPU, CPU model, cores, torch and numba;
#   2. learner steps/s of the default network, PPO's update alone, on the CPU (2 torch threads,
#      the config's, and every core) and on the GPU, side by side (tools/device_speed.py);
#   3. whole rollout-plus-update cycles, the learner on the GPU, the engine on 1, 2, 4, 8 and all
#      cores (and the config's auto), beside the same cycles all on 2 CPU cores;
#   4. `allfives speed vector` (the batched engine alone) at those thread counts;
#   5. a short train.py run on the GPU (the default config at 1.5M learner steps: 0.5M of
#      imitation, 1M of PPO, evaluated every 250k) and its learning curve;
#   6. determinism: a small run trained twice on the GPU with the same seed gives the same
#      weights; its resume point goes on on the CPU.
#
# What it needs: Python with torch (a CUDA build), numba, numpy, PyYAML, tqdm, tensorboard and
# matplotlib, as ML images have them; the rest (gymnasium, pettingzoo, tyro and their
# dependencies, a few MB) it installs from the network with pip, or, on a machine with no
# network, from the wheels in .whl/ that `bash tools/device_check.sh --fetch-wheels` saved
# there beforehand on a machine with one (for the Python version in PYVER, default 3.12).
# The package itself is run from the checkout (PYTHONPATH), not installed. PYTHON names the
# interpreter (default python3); SMOKE=1 runs every step at a toy size (the script's own test).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
NEEDED="gymnasium pettingzoo tyro openskill"
# pure-Python wheels the check needs beyond an ML image, their dependencies named one by one
WHEELS="gymnasium farama-notifications pettingzoo tyro docstring-parser typeguard shtab
openskill typing-extensions cloudpickle"

if [[ "${1:-}" == "--fetch-wheels" ]]; then
    mkdir -p .whl
    # shellcheck disable=SC2086
    "$PY" -m pip download -q --no-deps --only-binary=:all: --python-version "${PYVER:-3.12}" \
        --implementation cp --platform manylinux2014_x86_64 -d .whl $WHEELS
    echo "wheels for Python ${PYVER:-3.12} in .whl/: $(ls .whl | wc -l) files"
    exit 0
fi

OUT="${1:-runs/device_check}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
exec > >(tee "$OUT/check.log") 2>&1
export PYTHONUNBUFFERED=1
started=$(date +%s)
say() { echo; echo "== $* ($(( $(date +%s) - started )) s)"; }

say "setting up"
SITE="${TMPDIR:-/tmp}/allfives-site"
mkdir -p "$SITE"
if ! "$PY" -c "import ${NEEDED// /, }" 2>/dev/null; then
    if compgen -G ".whl/*.whl" >/dev/null; then
        "$PY" -m pip install -q --no-index --no-deps --no-compile --upgrade --target "$SITE" .whl/*.whl
    else
        # shellcheck disable=SC2086
        "$PY" -m pip install -q --target "$SITE" $NEEDED
    fi
fi
export PYTHONPATH="$ROOT:$SITE${PYTHONPATH:+:$PYTHONPATH}"
# Run from the checkout, the package is not installed: its entry points (how the environments
# make agents by name) are declared to Python by a dist-info made from pyproject.toml.
"$PY" - "$SITE" <<'PYEOF'
import sys, tomllib
from importlib.metadata import entry_points
from pathlib import Path
if not entry_points(group="allfives_env.agents"):
    project = tomllib.loads(Path("pyproject.toml").read_text())["project"]
    info = Path(sys.argv[1]) / f"allfives-{project['version']}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: allfives\nVersion: {project['version']}\n"
    )
    groups = project["entry-points"].items()
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in points.items()) + "\n"
        for group, points in groups
    ))
PYEOF
"$PY" -c "import ${NEEDED// /, }, torch, numba, yaml, tqdm, matplotlib"
CORES=$("$PY" -c "import os; print(len(os.sched_getaffinity(0)))")
GPU=$("$PY" -c "import torch; print(int(torch.cuda.is_available()))")
ALLFIVES=("$PY" -m allfives_env)

say "the machine"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
grep -m1 "model name" /proc/cpuinfo || true
echo "cores: $CORES"
"$PY" -c "import torch, numba, sys; print('python', sys.version.split()[0], '| torch', torch.__version__, '| CUDA', torch.version.cuda, '| GPU seen:', torch.cuda.is_available(), '| numba', numba.__version__)"
DEVICES="cpu"
[[ "$GPU" == 1 ]] && DEVICES="cpu cuda"
[[ "$GPU" == 1 ]] || echo "torch sees no GPU: the GPU rows are left out"

THREADS=""
for n in 1 2 4 8; do (( n <= CORES )) && THREADS="$THREADS $n"; done
(( CORES > 8 )) && THREADS="$THREADS $CORES"

if [[ "${SMOKE:-0}" == 1 ]]; then  # the script's own test: every step at a toy size
    THREADS="1"; UPDATES=(--updates 1 --num_envs 16 --num_steps 32); CYCLES=(--cycles 1 --num_envs 16 --num_steps 32)
    SPEED=(--games 64 --seconds 0.2 --repeat 1)
    tiny=(--config configs/smoke.yaml --num_envs 4 --eval_matches 2 --final_eval_matches 0)
    SHORT=("${tiny[@]}" --total_timesteps 256)
    SMALL=("${tiny[@]}" --total_timesteps 128 --imitation_samples 128 --eval_every 1000000)
    MORE=("${tiny[@]}" --total_timesteps 256 --imitation_samples 128 --eval_every 1000000)
else
    UPDATES=(--updates 5); CYCLES=(--cycles 5); SPEED=(--games 8192 --seconds 1 --repeat 2)
    SHORT=(--imitation_samples 491520 --total_timesteps 999424 --eval_every 245760
           --eval_matches 200 --final_eval_matches 200 --curve_points 4
           --eval_processes "$(( CORES > 8 ? 8 : CORES ))")
    small=(--imitation_samples 16384 --eval_every 1000000 --eval_matches 1 --final_eval_matches 0)
    SMALL=("${small[@]}" --total_timesteps 49152)
    MORE=("${small[@]}" --total_timesteps 65536)
fi

say "the learner alone: PPO's update of one 16,384-step rollout, on each device"
# shellcheck disable=SC2086
"$PY" tools/device_speed.py learner --devices $DEVICES "${UPDATES[@]}" --json "$OUT/learner.json"
if [[ "${SMOKE:-0}" != 1 ]]; then
    "$PY" tools/device_speed.py learner --devices cpu --torch_threads "$CORES" "${UPDATES[@]}" \
        --json "$OUT/learner_all_cores.json"
fi

say "whole cycles: the engine and the actor on the CPU, the learner on the GPU"
if [[ "$GPU" == 1 ]]; then
    # shellcheck disable=SC2086
    "$PY" tools/device_speed.py cycles --device cuda --threads $THREADS 0 "${CYCLES[@]}" \
        --json "$OUT/cycles.json"
fi
echo "the same cycles, all on 2 CPU cores (the 2-core figure):"
"$PY" tools/device_speed.py cycles --device cpu --threads "$(( CORES < 2 ? 1 : 2 ))" "${CYCLES[@]}" \
    --json "$OUT/cycles_cpu.json"

say "the batched engine alone (allfives speed vector)"
# shellcheck disable=SC2046
"${ALLFIVES[@]}" speed vector "${SPEED[@]}" $(for n in $THREADS; do echo --threads "$n"; done)

DEVICE=cuda
[[ "$GPU" == 1 ]] || DEVICE=cpu
say "a short train.py run on $DEVICE and its curve"
"$PY" train.py --runs "$OUT/runs" --name short --fresh --device "$DEVICE" --no_progress "${SHORT[@]}"
"$PY" - "$OUT/runs/short/report.json" <<'PYEOF'
import json, sys
report = json.load(open(sys.argv[1]))
names = list(report["history"][0]["results"])
print("| learner steps (imitation + PPO) | phase | " + " | ".join(f"v {o}" for o in names) + " |")
print("|---:|---|" + "---:|" * len(names))
for row in report["history"]:
    cells = " | ".join(f"{row['results'][o]['win_rate']:.1%}" for o in names)
    print(f"| {row['step']:,} | {row['phase']} | {cells} |")
put = report["throughput"]
print(f"training: {put['training_seconds']:.0f} s, {put['learner_steps_per_second']:,.0f} learner "
      "steps/s; time shares: " + ", ".join(f"{k} {v:.0%}" for k, v in put["time_share"].items()))
PYEOF

say "determinism: the same seed twice on $DEVICE, then its resume point on the CPU"
for run in a b; do
    "$PY" train.py --runs "$OUT/runs" --name "same_$run" --fresh --device "$DEVICE" --no_progress \
        "${SMALL[@]}" >/dev/null
done
"$PY" - "$OUT/runs/same_a/resume.zip" "$OUT/runs/same_b/resume.zip" "$DEVICE" <<'PYEOF' | tee "$OUT/determinism.txt"
import io, sys, zipfile
import numpy as np
def weights(path):
    with zipfile.ZipFile(path) as z:
        data = np.load(io.BytesIO(z.read("allfives_policy.npz")))
        return [data[k] for k in sorted(data.files)]
same = all(np.array_equal(a, b) for a, b in zip(weights(sys.argv[1]), weights(sys.argv[2])))
print(f"two runs, the same seed, on {sys.argv[3]}: {'identical' if same else 'DIFFERENT'} weights")
PYEOF
"$PY" train.py --runs "$OUT/runs" --name same_a --device cpu --no_progress "${MORE[@]}" \
    >"$OUT/resumed.log"
{
    grep -m1 "resuming" "$OUT/resumed.log" || echo "no resume line"
    "$PY" -c "import json,sys; r=json.load(open(sys.argv[1])); print('its PPO steps after the resume on the CPU:', r['steps']['ppo'])" "$OUT/runs/same_a/report.json"
} | tee -a "$OUT/determinism.txt"

say "done: the figures above, and in $OUT"
