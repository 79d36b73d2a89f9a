#!/usr/bin/env python3
"""What the NeuroShard driver's tables share (scripts/reproduce/neuroshard.py and
_neuroshard_table4.py): the paper's baselines, NeuroShard's embedding cost of a shardsim report,
and its milliseconds as the tables print them. Python 3 standard library only."""

# The baselines of Tables 1 and 4 (App. E), in the paper's order.
BASELINES = ["Random", "Size-based", "Dim-based", "Lookup-based", "Size-lookup-based",
             "TorchRec"]


def embedding_cost_ms(report):
    """NeuroShard's embedding cost: the slowest GPU's lookups plus its embedding communication
    (the time a collective of its moved data or waited for its peers)."""
    return 1e3 * max(
        g["lookup_s"] + g["comm_transfer_s"] + g["comm_wait_s"] for g in report["per_gpu"]
    )


def fmt_ms(x):
    return "-" if x is None else f"{x:.2f}"
