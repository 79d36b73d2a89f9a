#!/usr/bin/env python3
"""Measures, on one NVIDIA GPU, the kernel figures shardsim's presets and cost file take as
GUESSes: the embedding-lookup forward over power-law and uniform indices (for
`repeat_lookup_hbm_fraction` and `gpu.hbm_achievable_GBps`), MLP forward + backward throughput
(`gpu.mlp_efficiency*`, `gpu.mlp_batch_half`; eagerly, or as CUDA-graph replays with
--mlp-graph; whole DLRM-shaped stacks with --mlp-stacks), a device-to-device copy (the HBM
ceiling) and the cost of a tiny kernel (`gpu.kernel_launch_us`). Needs PyTorch with CUDA; it
runs on a lent GPU machine, never in CI.

Writes under --out:
  embedding_forward_<precision>.log  the lookups, one line per point in the line format of
      FBGEMM's split_table_batched_embeddings_benchmark (what `shardsim calibrate --kernels`
      reads), headed by `# key: value` lines saying what ran them;
  kernel_bench.json  every measurement, the device and the settings.

FBGEMM is not on the GPU machine, so PyTorch's torch.nn.functional.embedding_bag (mode sum)
runs the lookups: not FBGEMM's TBE. T tables are one weight of T*E rows, so one kernel serves
them all, as TBE fuses its tables. Row ids are drawn as FBGEMM's generate_requests draws them
(uniform for alpha <= 1, Zipf p(k) ~ k^-alpha over k = 1..E otherwise), then scattered by a
fixed permutation of each table's rows. Each timed pass runs after a 256 MiB write that evicts
the L2, so only the reuse inside one batch counts; times are CUDA-event medians.
docs/validation/kernels.md says what one H100 gave.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import torch


# The tensor type of each precision name (tf32: fp32 tensors, TF32 math where allowed).
DTYPES = {"fp32": torch.float32, "tf32": torch.float32, "bf16": torch.bfloat16,
          "fp16": torch.float16}


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def timed_s(fn, reps, flush=None):
    """CUDA-event median of fn(i) over reps passes; the L2 is evicted before each when flush."""
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    fn(0)  # warm-up
    for i in range(reps):
        if flush is not None:
            flush.zero_()
        starts[i].record()
        fn(i)
        ends[i].record()
    torch.cuda.synchronize()
    return median([s.elapsed_time(e) * 1e-3 for s, e in zip(starts, ends)])


def graph_timed_s(step, reps):
    """Captures step(0) once as a CUDA graph and times its replays: the GPU's time alone, without
    eager PyTorch's host work per operation (warm-up passes on a side stream first, as capture
    needs)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            step(0)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step(0)
    return timed_s(lambda i: graph.replay(), reps)


def device_info():
    p = torch.cuda.get_device_properties(0)
    info = {"name": p.name, "multiprocessors": p.multi_processor_count,
            "memory_bytes": p.total_memory, "l2_bytes": getattr(p, "L2_cache_size", None),
            "torch": torch.__version__, "cuda": torch.version.cuda}
    try:
        info["nvidia_smi"] = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem",
             "--format=csv,noheader"], capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError) as e:
        info["nvidia_smi"] = f"unavailable: {e}"
    return info


def copy_bandwidth(gib=4, reps=20):
    n = gib * (1 << 30) // 4
    a = torch.randn(n, device="cuda")
    b = torch.empty_like(a)
    t = timed_s(lambda i: b.copy_(a), reps)
    del a, b
    return {"bytes_read_plus_written": 2 * n * 4, "time_s": t, "GBps": 2 * n * 4 / t / 1e9}


def launch_cost(n=2000):
    x = torch.zeros(1, device="cuda")
    for _ in range(100):
        x.add_(1)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        x.add_(1)
    torch.cuda.synchronize()
    eager = (time.perf_counter() - t0) / n
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            x.add_(1)
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(g):
        for _ in range(n):
            x.add_(1)
    g.replay()
    torch.cuda.synchronize()
    t = timed_s(lambda i: g.replay(), 10)
    return {"eager_op_s": eager, "graph_kernel_s": t / n, "ops": n}


def draw_ranks(E, alpha, n, gen, cdf_cache):
    """n row ranks in 0..E-1: uniform for alpha <= 1, else Zipf p(k) ~ k^-alpha, k = 1..E."""
    if alpha <= 1.0:
        return torch.randint(0, E, (n,), device="cuda", generator=gen)
    cdf = cdf_cache.get((E, alpha))
    if cdf is None:
        k = torch.arange(1, E + 1, device="cuda", dtype=torch.float64)
        cdf = torch.cumsum(k.pow(-alpha), 0)
        cdf /= cdf[-1].clone()
        cdf_cache[(E, alpha)] = cdf
    u = torch.rand(n, device="cuda", dtype=torch.float64, generator=gen)
    return torch.searchsorted(cdf, u).clamp_(max=E - 1)


def embedding_points(args, out_dir):
    gen = torch.Generator(device="cuda")
    gen.manual_seed(args.seed)
    flush = torch.empty(256 * (1 << 20) // 4, device="cuda")
    T, E, B = args.tables, args.rows, args.batch
    perm = torch.randperm(E, device="cuda", generator=gen)
    table_base = (torch.arange(T, device="cuda", dtype=torch.int64) * E).view(T, 1)
    cdf_cache = {}
    rows = []
    for precision in args.precisions:
        dtype = DTYPES[precision]
        elem = 4 if precision == "fp32" else 2
        lines = [f"# source: bench/gpu/kernel_bench.py on {torch.cuda.get_device_name(0)}, "
                 f"{time.strftime('%Y-%m-%d')} (torch {torch.__version__})",
                 "# kernel: torch.nn.functional.embedding_bag, mode sum, T tables as one weight "
                 "(one kernel), not FBGEMM's TBE",
                 "# timing: CUDA-event median, L2 evicted (256 MiB write) before every pass",
                 f"# weights-precision: {precision}",
                 "# BW: (lookups x D x element bytes + outputs) / time, not FBGEMM's formula"]
        for D in args.dims:
            weight = torch.randn(T * E, D, device="cuda", dtype=torch.float32).to(dtype)
            for L in args.bags:
                n = B * L
                offsets = torch.arange(0, T * n, L, device="cuda", dtype=torch.int64)
                for alpha in args.alphas:
                    sets, distinct = [], []
                    for s in range(args.index_sets):
                        ranks = draw_ranks(E, alpha, T * n, gen, cdf_cache).view(T, n)
                        if s == 0:
                            distinct = [int(torch.unique(ranks[t]).numel()) for t in range(T)]
                        sets.append((perm[ranks] + table_base).reshape(-1).contiguous())
                        del ranks

                    def run(i):
                        torch.nn.functional.embedding_bag(sets[i % len(sets)], weight, offsets,
                                                          mode="sum")

                    with torch.no_grad():
                        t = timed_s(run, args.reps, flush)
                    lookups = T * n
                    moved = lookups * D * elem + T * B * D * elem
                    bw = moved / t / 1e9
                    lines.append(f"INFO:root:Forward, B: {B}, E: {E}, T: {T}, D: {D}, L: {L}, "
                                 f"a: {alpha:g}, W: False, BW: {bw:.2f} GB/s, T: {t * 1e6:.1f}us")
                    rows.append({"kernel": "torch.embedding_bag", "precision": precision,
                                 "B": B, "E": E, "T": T, "D": D, "L": L, "alpha": alpha, "time_s": t, "GBps": bw,
                                 "distinct_rows_per_table": sum(distinct) / len(distinct)})
                    print(f"  {precision} D {D:4d} L {L:3d} a {alpha:4g}: {t * 1e6:9.1f} us "
                          f"{bw:8.1f} GB/s, distinct/lookups "
                          f"{rows[-1]['distinct_rows_per_table'] / n:.3f}", flush=True)
                    del sets
                del offsets
            del weight
            torch.cuda.empty_cache()
        path = os.path.join(out_dir, f"embedding_forward_{precision}.log")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
    return rows


def mlp_points(args):
    torch.backends.cudnn.allow_tf32 = True
    out = []
    for precision in args.mlp_precisions:
        # fp32: CUDA-core GEMMs (TF32 off); tf32: fp32 tensors on the tensor cores.
        torch.backends.cuda.matmul.allow_tf32 = precision != "fp32"
        dtype = DTYPES[precision]
        for width in args.mlp_widths:
            layers = []
            for _ in range(args.mlp_layers):
                layers += [torch.nn.Linear(width, width), torch.nn.ReLU()]
            net = torch.nn.Sequential(*layers).to(device="cuda", dtype=dtype)
            for batch in args.mlp_batches:
                x = torch.randn(batch, width, device="cuda", dtype=dtype, requires_grad=True)

                def step(i):
                    net(x).sum().backward()

                t = graph_timed_s(step, args.reps) if args.mlp_graph else timed_s(step, args.reps)
                flops = 3 * 2 * batch * width * width * args.mlp_layers
                out.append({"precision": precision, "width": width, "batch": batch,
                            "graph": bool(args.mlp_graph), "layers": args.mlp_layers, "time_s": t, "flops": flops,
                            "TFLOPps": flops / t / 1e12})
                print(f"  MLP{' graph' if args.mlp_graph else ''} {precision} width {width} "
                      f"batch {batch}: {t * 1e3:.3f} ms "
                      f"{flops / t / 1e12:.1f} TFLOP/s", flush=True)
                del x
            del net
            torch.cuda.empty_cache()
    return out


def stack_points(args):
    """DLRM-shaped MLP stacks (input width, then each layer's output), forward + backward as
    CUDA-graph replays, at each of --mlp-batches."""
    out = []
    for precision in args.mlp_precisions:
        torch.backends.cuda.matmul.allow_tf32 = precision != "fp32"
        dtype = DTYPES[precision]
        for spec in args.mlp_stacks:
            widths = [int(w) for w in spec.split(",")]
            layers = []
            for a, b in zip(widths, widths[1:]):
                layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
            net = torch.nn.Sequential(*layers).to(device="cuda", dtype=dtype)
            for batch in args.mlp_batches:
                x = torch.randn(batch, widths[0], device="cuda", dtype=dtype, requires_grad=True)

                def step(i):
                    net(x).sum().backward()

                t = graph_timed_s(step, args.reps)
                flops = 3 * 2 * batch * sum(a * b for a, b in zip(widths, widths[1:]))
                out.append({"precision": precision, "stack": widths, "batch": batch,
                            "graph": True, "time_s": t, "flops": flops,
                            "TFLOPps": flops / t / 1e12})
                print(f"  stack {precision} {spec} batch {batch}: {t * 1e3:.3f} ms "
                      f"{flops / t / 1e12:.1f} TFLOP/s", flush=True)
                del x
            del net
            torch.cuda.empty_cache()
    return out


# Bytes of HBM traffic per fp32 parameter that shardsim prices for one optimizer step
# (docs/model.md, "Dense optimizer step"): 4 * (3 + 2 * states).
OPTIMIZER_BYTES = {"adam": 28, "adagrad": 20, "momentum": 20, "sgd": 12}


def make_optimizer(kind, params):
    """torch.optim's optimizer for `kind`, fused where this PyTorch runs it on CUDA, else
    foreach. A fused optimizer PyTorch lacks on CUDA (Adagrad's is CPU-only) is accepted by the
    constructor and refused only by step(), so one trial step decides."""
    ctor = {"adam": lambda **kw: torch.optim.Adam(params, lr=1e-3, **kw),
            "adagrad": lambda **kw: torch.optim.Adagrad(params, lr=1e-3, **kw),
            "momentum": lambda **kw: torch.optim.SGD(params, lr=1e-3, momentum=0.9, **kw),
            "sgd": lambda **kw: torch.optim.SGD(params, lr=1e-3, **kw)}[kind]
    try:
        opt = ctor(fused=True)
        opt.step()
        return opt, "fused"
    except (RuntimeError, TypeError, ValueError):
        return ctor(foreach=True), "foreach"


def optimizer_points(args):
    """One optimizer.step() over fp32 dense parameters held as 4096 x 4096 tensors (the MLP
    layers of Neo's model-A are about that size), per optimizer and parameter count: the time
    shardsim's dense optimizer step predicts as params x OPTIMIZER_BYTES / HBM bandwidth. NOT YET
    RUN on a GPU (added without one); check the printed GB/s against the copy bandwidth."""
    out = []
    side = 4096
    for kind in args.optimizers:
        for total in args.optimizer_params:
            n = max(1, round(total / (side * side)))
            params = [torch.zeros(side, side, device="cuda", requires_grad=True) for _ in range(n)]
            for q in params:
                q.grad = torch.randn_like(q)
            opt, impl = make_optimizer(kind, params)
            t = timed_s(lambda i: opt.step(), args.reps)
            count = n * side * side
            gbps = count * OPTIMIZER_BYTES[kind] / t / 1e9
            out.append({"optimizer": kind, "implementation": impl, "parameters": count,
                        "time_s": t, "modelled_bytes": count * OPTIMIZER_BYTES[kind],
                        "GBps_at_modelled_bytes": gbps})
            print(f"  optimizer {kind} ({impl}) {count / 1e6:.0f}M params: {t * 1e3:.3f} ms, "
                  f"{gbps:.0f} GB/s at {OPTIMIZER_BYTES[kind]} B a parameter", flush=True)
            del opt, params
            torch.cuda.empty_cache()
    return out


def interaction_points(args):
    """DLRM's dot interaction as DLRM's reference code runs it: the V vectors of width d of each
    sample (the dense vector and the pooled embeddings) as one (B, V, d) tensor, Z = X.Xt by
    batched GEMM, the strictly lower triangle of Z gathered, the dense vector concatenated.
    Forward alone (no grad) and forward + backward, as CUDA-graph replays; backward = the
    difference. Modelled bytes as src/cost/interaction_cost.cpp counts them:
    forward B(Vd + V(V-1)/2 + d)e, backward B(V(V-1)/2 + d + 2Vd)e."""
    torch.backends.cuda.matmul.allow_tf32 = True
    out = []
    for precision in args.interaction_precisions:
        dtype = DTYPES[precision]
        e = 4 if precision == "fp32" else 2
        for V in args.interaction_vectors:
            li, lj = torch.tril_indices(V, V, offset=-1, device="cuda")
            lower = (li * V + lj).contiguous()  # index_select: capture-safe, atomic backward
            for d in args.interaction_dims:
                for B in args.interaction_batches:
                    x = torch.randn(B, V, d, device="cuda", dtype=dtype, requires_grad=True)

                    def forward():
                        z = torch.bmm(x, x.transpose(1, 2))
                        pairs = torch.index_select(z.reshape(B, V * V), 1, lower)
                        return torch.cat([x[:, 0, :], pairs], dim=1)

                    def fwd(i):
                        with torch.no_grad():
                            forward()

                    def fwd_bwd(i):
                        forward().sum().backward()

                    t_f = graph_timed_s(fwd, args.reps)
                    t_fb = graph_timed_s(fwd_bwd, args.reps)
                    pairs = V * (V - 1) // 2
                    bytes_f = B * (V * d + pairs + d) * e
                    bytes_b = B * (pairs + d + 2 * V * d) * e
                    t_b = max(t_fb - t_f, 1e-9)
                    out.append({"precision": precision, "vectors": V, "dim": d, "batch": B,
                                "forward_s": t_f, "forward_backward_s": t_fb,
                                "backward_s": t_b, "modelled_forward_bytes": bytes_f,
                                "modelled_backward_bytes": bytes_b,
                                "forward_GBps": bytes_f / t_f / 1e9,
                                "backward_GBps": bytes_b / t_b / 1e9,
                                "flops_each": 2 * B * V * V * d})
                    print(f"  interaction {precision} V {V} d {d} B {B}: fwd {t_f * 1e6:.1f} us "
                          f"({bytes_f / t_f / 1e9:.0f} GB/s), bwd {t_b * 1e6:.1f} us "
                          f"({bytes_b / t_b / 1e9:.0f} GB/s)", flush=True)
                    del x
            torch.cuda.empty_cache()
    return out


def sort_points(args):
    """The index work of an embedding backward before its fused update (Neo 5.1, gradient
    sorting by rows), as PyTorch can run it: a sort of n row ids that also returns their
    positions, then the segments of equal ids (unique_consecutive with counts). A proxy: TBE
    radix-sorts (key, position) pairs with cub over only the key bits it needs, which
    torch.sort does not expose; int32 keys bound that from below. Reported as bytes per
    lookup at the measured time and a bandwidth the caller divides by."""
    gen = torch.Generator(device="cuda")
    gen.manual_seed(args.seed)
    out = []
    for key_dtype in (torch.int64, torch.int32):
        for n in args.sort_lookups:
            n = int(n)
            keys = torch.randint(0, args.sort_rows, (n,), device="cuda", generator=gen,
                                 dtype=torch.int64).to(key_dtype)

            def sort(i):
                torch.sort(keys)

            def sort_segments(i):
                s, _ = torch.sort(keys)
                torch.unique_consecutive(s, return_counts=True)

            t_sort = timed_s(sort, args.reps)
            t_all = timed_s(sort_segments, args.reps)
            name = "int64" if key_dtype == torch.int64 else "int32"
            out.append({"keys": name, "lookups": n, "rows": args.sort_rows, "sort_s": t_sort,
                        "sort_and_segments_s": t_all})
            print(f"  sort {name} n {n / 1e6:.1f}M: sort {t_sort * 1e6:.1f} us "
                  f"({t_sort / n * 1e12:.1f} ps/lookup), + segments {t_all * 1e6:.1f} us",
                  flush=True)
            del keys
            torch.cuda.empty_cache()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--tables", type=int, default=16)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--batch", type=int, default=8192)
    ap.add_argument("--dims", type=int, nargs="+", default=[64, 128, 256])
    ap.add_argument("--bags", type=int, nargs="+", default=[4, 16, 64])
    ap.add_argument("--alphas", type=float, nargs="+", default=[1.0, 1.05, 1.15, 1.3])
    ap.add_argument("--precisions", nargs="+", default=["fp32", "fp16"])
    ap.add_argument("--index-sets", type=int, default=3)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--mlp-widths", type=int, nargs="+", default=[1024, 2048, 3840, 4096])
    ap.add_argument("--mlp-batches", type=int, nargs="+", default=[512, 2048, 8192])
    ap.add_argument("--mlp-layers", type=int, default=20)
    ap.add_argument("--mlp-stacks", nargs="*", default=[],
                    help="DLRM-shaped stacks to time as graph replays, each 'in,out1,out2,...'")
    ap.add_argument("--mlp-graph", action="store_true",
                    help="time the MLPs as CUDA-graph replays (GPU time alone)")
    ap.add_argument("--mlp-precisions", nargs="+", default=["tf32", "bf16", "fp16"],
                    choices=["fp32", "tf32", "bf16", "fp16"])
    ap.add_argument("--optimizers", nargs="*", default=[],
                    choices=sorted(OPTIMIZER_BYTES),
                    help="time torch.optim steps over fp32 parameters (docs/model.md, "
                    "'Dense optimizer step')")
    ap.add_argument("--optimizer-params", type=float, nargs="+", default=[33.5e6, 335e6])
    ap.add_argument("--interaction", action="store_true",
                    help="time DLRM's dot interaction forward and backward (cost file: "
                    "interaction_hbm_efficiency)")
    ap.add_argument("--interaction-vectors", type=int, nargs="+", default=[27, 64, 128])
    ap.add_argument("--interaction-dims", type=int, nargs="+", default=[64, 128])
    ap.add_argument("--interaction-batches", type=int, nargs="+", default=[2048, 16384])
    ap.add_argument("--interaction-precisions", nargs="+", default=["fp32", "fp16"],
                    choices=["fp32", "bf16", "fp16"])
    ap.add_argument("--sort", action="store_true",
                    help="time the sort and segmenting of an embedding backward's row ids "
                    "(cost file: backward_index_bytes_per_lookup)")
    ap.add_argument("--sort-lookups", type=float, nargs="+", default=[1e6, 8e6, 64e6])
    ap.add_argument("--sort-rows", type=int, default=100_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--skip", nargs="*", default=[], choices=["copy", "launch", "embedding", "mlp"])
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("kernel_bench.py: no CUDA device")
    os.makedirs(args.out, exist_ok=True)
    result = {"device": device_info(), "settings": vars(args)}
    print(json.dumps(result["device"]), flush=True)
    t0 = time.perf_counter()
    path = os.path.join(args.out, "kernel_bench.json")

    def section(key, fn):
        """Runs one section; a failure is recorded and the others still run. The JSON is
        rewritten after every section, so a run cut short keeps what it measured."""
        try:
            result[key] = fn()
        except Exception as e:  # noqa: BLE001 - recorded, the run goes on
            result.setdefault("errors", {})[key] = repr(e)
            print(f"{key}: FAILED {e!r}", flush=True)
            torch.cuda.synchronize()
        result["wall_s"] = time.perf_counter() - t0
        with open(path, "w") as f:
            json.dump(result, f, indent=1)

    if "copy" not in args.skip:
        section("copy", copy_bandwidth)
        if "copy" in result:
            print(f"copy: {result['copy']['GBps']:.0f} GB/s (read + written)", flush=True)
    if "launch" not in args.skip:
        section("launch", launch_cost)
        if "launch" in result:
            print(f"launch: eager {result['launch']['eager_op_s'] * 1e6:.2f} us/op, graph "
                  f"{result['launch']['graph_kernel_s'] * 1e6:.2f} us/kernel", flush=True)
    if "mlp" not in args.skip:
        section("mlp", lambda: mlp_points(args))
    if "embedding" not in args.skip:
        section("embedding_forward", lambda: embedding_points(args, args.out))
    if args.mlp_stacks:
        section("stacks", lambda: stack_points(args))
    if args.optimizers:
        section("optimizer", lambda: optimizer_points(args))
    if args.interaction:
        section("interaction", lambda: interaction_points(args))
    if args.sort:
        section("sort", lambda: sort_points(args))
    print(f"done in {result['wall_s']:.1f} s", flush=True)


if __name__ == "__main__":
    main()
