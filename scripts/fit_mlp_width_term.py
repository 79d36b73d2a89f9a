#!/usr/bin/env python3
"""Which extra MLP term explains the H100's narrow stacks (docs/validation/kernels.md, "Whole
stacks")? The fit the H100 presets' MLP figures come from (the "width, b½ held" form: their
mlp_efficiency*, mlp_width_half); nothing in shardsim reads its output.

Fits three forms of the MLP time to the CUDA-graph batch sweep of
tests/data/kernels/h100_mlp_batch_sweep.json (20 layers of width w at batch b, TF32 and BF16),
on batches 128/512/2048/8192, and judges them on batches 256/1024/4096 and on the four stacks of
tests/data/kernels/h100_mlp_stacks.json and the square stacks of widths 64-2048 of
tests/data/kernels/h100_small_kernels.json (none of them fitted):

  batch    the presets' form before the width term: FLOPs / (peak · eff · b/(b + b½)) + 3
           launches a layer;
  layer    batch + a fixed time a layer + k · (bias and ReLU bytes, 6·b·w·s) / HBM bandwidth;
  width    batch with a width factor w/(w + w½), w = min(in, out) of the layer, the efficiencies
           refitted and held at most 1 (an unbounded fit trades them off against w½).

Usage: python3 scripts/fit_mlp_width_term.py   (standard library only; about 10 s)
"""
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEAK = {"tf32": 494.5e12, "bf16": 989.5e12, "fp16": 989.5e12}  # H100 SXM datasheet, dense
ELEMENT_BYTES = {"tf32": 4, "bf16": 2, "fp16": 2}
LAUNCH_S = 4e-6  # the dgx-h100 preset's kernel_launch_us
HBM_BPS = 2.8e12  # the dgx-h100 preset's hbm_achievable_GBps
PRESET_EFF = {"tf32": 0.604, "bf16": 0.695, "fp16": 0.694}  # before the width term
PRESET_BATCH_HALF = 470


def load(name):
    with open(os.path.join(ROOT, "tests", "data", "kernels", name)) as f:
        return json.load(f)


def stack_time_s(precision, widths, batch, eff, batch_half, width_half=0.0, layer_s=0.0, k=0.0):
    t = 0.0
    for a, o in zip(widths, widths[1:]):
        w = min(a, o)
        width_factor = w / (w + width_half) if width_half > 0 else 1.0
        rate = PEAK[precision] * eff[precision] * batch / (batch + batch_half) * width_factor
        t += 3 * 2 * batch * a * o / rate + 3 * LAUNCH_S + layer_s
        t += k * 6 * batch * o * ELEMENT_BYTES[precision] / HBM_BPS
    return t


def sweep_widths(p):
    return [p["width"]] * (p["layers"] + 1)


def errors(points, **form):
    es = sorted(abs(stack_time_s(p["precision"], sweep_widths(p), p["batch"], **form) /
                    p["time_s"] - 1) for p in points)
    return es[len(es) // 2], es[-1]


def fitted_efficiencies(points, batch_half, width_half):
    """Per precision, the efficiency that makes the median ratio 1."""
    eff = {}
    for pr in PEAK:
        ratios = sorted(stack_time_s(pr, sweep_widths(p), p["batch"], {pr: 1.0}, batch_half,
                                     width_half) / p["time_s"]
                        for p in points if p["precision"] == pr)
        eff[pr] = ratios[len(ratios) // 2]
    return eff


def best_width_form(fit, batch_halves, width_halves):
    """The width form with the smallest fitted median error over the grid, its efficiencies
    refitted at each point and held at most 1."""
    best = None
    for batch_half in batch_halves:
        for width_half in width_halves:
            eff = fitted_efficiencies(fit, batch_half, width_half)
            if max(eff.values()) > 1:
                continue
            form = dict(eff=eff, batch_half=batch_half, width_half=width_half)
            e = errors(fit, **form)[0]
            if best is None or e < best[0]:
                best = (e, form)
    return best[1]


def main():
    pts = [p for p in load("h100_mlp_batch_sweep.json")["graph"]["mlp"] if p["precision"] in PEAK]
    fit = [p for p in pts if p["batch"] in (128, 512, 2048, 8192)]
    held = [p for p in pts if p["batch"] in (256, 1024, 4096)]
    stacks = [s for s in load("h100_mlp_stacks.json")["stacks"] if s["precision"] in PEAK]
    # Square stacks of widths 64-2048 at batches 2048-32768 from a later H100 machine, none
    # of them fitted (tests/data/kernels/h100_small_kernels.json).
    squares = [p for p in load("h100_small_kernels.json")["mlp"] if p["precision"] in PEAK]
    forms = {"batch": dict(eff=PRESET_EFF, batch_half=PRESET_BATCH_HALF)}

    best = None
    for layer_us in range(0, 60, 2):
        for k4 in range(0, 17):
            form = dict(eff=PRESET_EFF, batch_half=PRESET_BATCH_HALF, layer_s=layer_us * 1e-6,
                        k=k4 / 4)
            e = errors(fit, **form)[0]
            if best is None or e < best[0]:
                best = (e, form)
    forms["layer"] = best[1]

    forms["width"] = best_width_form(fit, range(200, 900, 20), range(0, 2000, 40))
    # The same with the presets' batch half held (the A100 presets derive theirs from it).
    forms["width, b½ held"] = best_width_form(fit, [PRESET_BATCH_HALF], range(0, 3000, 20))

    for name, form in forms.items():
        shown = {k: (round(v, 6) if isinstance(v, float) else
                     {p: round(x, 3) for p, x in v.items()} if isinstance(v, dict) else v)
                 for k, v in form.items()}
        print(f"{name}: {shown}")
        fm, fw = errors(fit, **form)
        hm, hw = errors(held, **form)
        print(f"  batch sweep: fitted median {fm:.1%} (worst {fw:.1%}), held out median {hm:.1%} "
              f"(worst {hw:.1%})")
        for w in sorted({p["width"] for p in held}):
            m, _ = errors([p for p in held if p["width"] == w], **form)
            print(f"    held out, width {w}: median {m:.1%}")
        cells = []
        for s in stacks:
            r = stack_time_s(s["precision"], s["stack"], s["batch"], **form) / s["time_s"] - 1
            cells.append(f"{s['precision']} {','.join(map(str, s['stack'][:2]))}.. b{s['batch']} "
                         f"{r:+.0%}")
        print("  stacks (model vs measured): " + "; ".join(cells))
        cells = []
        for w in sorted({p["width"] for p in squares}):
            sel = [p for p in squares if p["width"] == w]
            rs = sorted(stack_time_s(p["precision"], sweep_widths(p), p["batch"], **form) /
                        p["time_s"] - 1 for p in sel)
            cells.append(f"w{w} {rs[0]:+.0%}..{rs[-1]:+.0%}")
        print("  later squares, b 2048-32768 (model vs measured): " + "; ".join(cells))


if __name__ == "__main__":
    main()
