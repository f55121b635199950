"""`--torch` for real: a managed environment made offline from the torch wheel in pip's find-links (this machine's
pip configuration, as a user's), `compare --torch` run through it, and the environment reused the second time."""

import glob
import json
import os
import time

import pytest

from conftest import run_cli
from inspector import envs

def test_compare_through_an_environment_made_once_and_reused(tmp_path):
    # pip's configuration read here, not where pytest collects the module (each worker collects all)
    wheels = [w for folder in envs.pip_config().get("find-links", "").split()
              for w in glob.glob(os.path.join(folder, "torch-2.13.0*.whl"))]
    if not wheels:
        pytest.skip("no torch 2.13.0 wheel in pip's find-links")
    root, out = tmp_path / "envs", tmp_path / "out"
    # eager torch only: the environment is what is tested here, compiling is elsewhere
    proc = run_cli("compare", "samples/poly.py", "--torch", wheels[0], "--envs", root, "-n", 2000, "--budget", 0.05,
                   "--rounds", 0, "-v", "torch", "-o", out)
    assert proc.returncode == 0, proc.stderr
    (env,) = envs.environments(root)
    assert env.torch.startswith("2.13.0") and env.numpy and env.size_bytes > 10**8
    assert f"making an environment in {env.path}" in proc.stderr
    assert f"installed torch {env.torch} and NumPy {env.numpy}" in proc.stderr
    records = [json.loads(p.read_text()) for p in sorted(out.glob("poly-torch-*.json"))]
    assert sorted(r["env"]["executable"] for r in records)[-1].startswith(str(root))
    assert (out / "poly-compare.html").exists()
    # the second time: found, not made
    start, said = time.perf_counter(), []
    assert envs.interpreter(envs.parse(wheels[0]), root, say=said.append) == str(env.python)
    assert time.perf_counter() - start < 5 and said == [f"torch {wheels[0]}: {env.torch} in {env.path}"]
