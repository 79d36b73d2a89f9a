"""scripts/torchrec_export.py: a TorchRec model and plan, exported without the module, that the
command line simulates (docs/python.md, "Without the module")."""
import json
import subprocess
import sys


def test_exported_plan_runs_in_the_cli(root, cli, tmp_path):
    model = json.loads((root / "tests/data/torchrec/a_criteo26.json").read_text())
    out = json.loads((root / "tests/data/torchrec/a_criteo26.torchrec.json").read_text())
    spec = tmp_path / "spec.py"
    spec.write_text(
        "import json\n"
        f"m = json.loads({json.dumps(json.dumps(model))})\n"
        "tables = [{'name': t['name'], 'num_embeddings': t['rows'], 'embedding_dim': t['dim'],"
        " 'feature_names': t['features']} for t in m['tables']]\n"
        "topology = m['topology']\nbatch_size = m['batch_size']\ndense = m['dense_layers']\n"
        f"plan = json.loads({json.dumps(json.dumps(out['parameter_sharding']))})\n"
        f"shards = json.loads({json.dumps(json.dumps(out['tables']))})\n"
        "for k, ps in plan.items():\n"
        "    ps['shards'] = shards[k.split('.')[-1]].get('shards', [])\n")
    script = root / "scripts/torchrec_export.py"
    done = subprocess.run([sys.executable, str(script), str(spec), str(tmp_path / "m.json"),
                           "--scenario", str(tmp_path / "s.json"), "--torchrec-version",
                           "v0_3_2"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    again = subprocess.run([sys.executable, str(script), str(spec), str(tmp_path / "m.json")],
                           capture_output=True, text=True)
    assert again.returncode == 2 and "--force" in again.stderr
    run = subprocess.run([cli, "run", str(tmp_path / "s.json"), "--format", "json", "--quiet",
                          "--set", "workload.iterations=1"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    reports = json.loads(run.stdout)["reports"]
    assert [r["planner"] for r in reports] == ["torchrec", "file:m.json"]
    # shardsim's v0_3_2 planner and TorchRec v0.3.2's own plan: the same placement.
    assert reports[0]["per_gpu"] == reports[1]["per_gpu"]


def test_a_bad_spec_names_the_table_and_field(root, tmp_path):
    spec = tmp_path / "spec.py"
    spec.write_text("tables = [{'name': 'a', 'num_embeddings': 0, 'embedding_dim': 8}]\n"
                    "topology = {'world_size': 8}\n")
    done = subprocess.run([sys.executable, str(root / "scripts/torchrec_export.py"), str(spec),
                           str(tmp_path / "m.json")], capture_output=True, text=True)
    assert done.returncode == 1
    assert "table 'a': num_embeddings" in done.stderr
