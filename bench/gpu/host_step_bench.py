#!/usr/bin/env python3
"""Measures, on one NVIDIA GPU with PyTorch, the host time of one DLRM training step: what
shardsim's cost file fits `host_eager_step_s` and `host_embedding_op_s` to (one EmbeddingBag vs 26;
docs/model.md, "Host overhead"). Runs on a lent GPU machine, never in CI.

The model is DLRM's reference shape (Criteo Kaggle: 13 dense features, 26 tables of dim 64,
bottom MLP 13-512-256-64, dot interaction, top MLP 415-512-256-1, BCE loss) with small tables,
trained by SGD. The tables are small (--rows 1000) because nn.EmbeddingBag's gradient is dense:
every step writes and updates every row, which at 100K rows a table is 0.7 GB of GPU work and
hides the host. At a tiny batch the GPU's own work is a few microseconds a kernel, so the step's
wall time is the host's: PyTorch dispatching each operation, the loss read back at the end. Two
embedding layouts: 26 separate nn.EmbeddingBag (the reference code) and one EmbeddingBag over
the 26 tables' rows (one kernel, as FBGEMM's TBE fuses them). Each step is timed eagerly and as
the replay of a CUDA graph captured once (with the loss read back both times), median of --reps
steps after --warmup. One process on one GPU: no AlltoAll, no input distribution, no
DistributedDataParallel, so a distributed step's host time is at least this.

Writes --out/host_step.json and prints one line per point.
"""
import argparse
import json
import os
import subprocess
import time

import torch

DENSE = 13
TABLES = 26
DIM = 64
BOTTOM = [512, 256, DIM]
TOP = [512, 256, 1]


def mlp(widths, sigmoid_last=False):
    layers = []
    for a, b in zip(widths, widths[1:]):
        layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
    if sigmoid_last:
        layers[-1] = torch.nn.Sigmoid()
    return torch.nn.Sequential(*layers)


class Dlrm(torch.nn.Module):
    def __init__(self, rows, fused):
        super().__init__()
        self.fused = fused
        self.bottom = mlp([DENSE] + BOTTOM)
        vectors = TABLES + 1
        self.top = mlp([DIM + vectors * (vectors - 1) // 2] + TOP, sigmoid_last=True)
        if fused:
            self.emb = torch.nn.EmbeddingBag(TABLES * rows, DIM, mode="sum")
        else:
            self.embs = torch.nn.ModuleList(
                torch.nn.EmbeddingBag(rows, DIM, mode="sum") for _ in range(TABLES))
        li, lj = torch.tril_indices(vectors, vectors, offset=-1)
        self.register_buffer("lower", li * vectors + lj)

    def forward(self, dense, indices, offsets):
        x = self.bottom(dense)
        batch = dense.shape[0]
        if self.fused:  # indices already offset by table; one bag per (table, sample)
            pooled = self.emb(indices, offsets).view(TABLES, batch, DIM).transpose(0, 1)
        else:
            per = indices.numel() // TABLES
            pooled = torch.stack([self.embs[t](indices[t * per:(t + 1) * per],
                                               offsets[:batch]) for t in range(TABLES)], 1)
        t = torch.cat([x.unsqueeze(1), pooled], 1)
        z = torch.bmm(t, t.transpose(1, 2)).reshape(batch, -1)
        r = torch.cat([x, torch.index_select(z, 1, self.lower)], 1)
        return self.top(r).squeeze(1)


def median(xs):
    s = sorted(xs)
    return s[len(s) // 2]


def run_point(batch, pooling, rows, fused, graph, reps, warmup):
    torch.manual_seed(1)
    model = Dlrm(rows, fused).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.BCELoss()
    dense = torch.randn(batch, DENSE, device="cuda")
    label = torch.randint(0, 2, (batch,), device="cuda").float()
    ids = torch.randint(0, rows, (TABLES, batch * pooling), device="cuda")
    if fused:
        ids = ids + torch.arange(TABLES, device="cuda").view(TABLES, 1) * rows
    indices = ids.reshape(-1).contiguous()
    offsets = torch.arange(0, TABLES * batch * pooling, pooling, device="cuda")

    def step():
        opt.zero_grad(set_to_none=False)
        loss = loss_fn(model(dense, indices, offsets), label)
        loss.backward()
        opt.step()
        return loss

    if graph:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                step()
        torch.cuda.current_stream().wait_stream(side)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            static_loss = step()

        def timed():
            g.replay()
            return static_loss.item()
    else:
        def timed():
            return step().item()

    for _ in range(warmup):
        timed()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        timed()
        times.append(time.perf_counter() - t0)
    return median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--batches", type=int, nargs="+", default=[16, 256, 4096])
    ap.add_argument("--pooling", type=int, default=4)
    ap.add_argument("--rows", type=int, default=1000,
                    help="rows a table: small, so the dense gradients of the tables (written and "
                    "stepped whole every step) stay small next to the host's time")
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                              "--format=csv,noheader"], capture_output=True, text=True,
                             timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError) as e:
        smi = f"unavailable: {e}"
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), cpu)
    except OSError:
        pass
    result = {"device": torch.cuda.get_device_name(0), "nvidia_smi": smi, "cpu": cpu,
              "cpus": os.cpu_count(),
              "torch": torch.__version__, "settings": vars(args), "points": []}
    for graph in (False, True):  # every eager point first: a failed capture cannot spoil them
        for fused in (False, True):
            for batch in args.batches:
                try:
                    t = run_point(batch, args.pooling, args.rows, fused, graph, args.reps,
                                  args.warmup)
                    err = None
                except Exception as e:  # noqa: BLE001 - recorded, the run goes on
                    t, err = None, repr(e)
                    torch.cuda.synchronize()
                result["points"].append({"fused_tables": fused, "cuda_graph": graph,
                                         "batch": batch, "step_s": t, "error": err})
                shown = f"{t * 1e6:.0f} us" if t is not None else f"FAILED {err}"
                print(f"  {'one bag' if fused else '26 bags'} {'graph' if graph else 'eager'} "
                      f"batch {batch}: {shown}", flush=True)
                with open(os.path.join(args.out, "host_step.json"), "w") as f:
                    json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
