"""Which end-to-end test classes may run beside others (tests/e2e_pool.py),
and in which order they start.

A class runs alone when what it asserts depends on more than its own
processes: the machine's tracefs, or the CPU time its processes get.
"""

# module (or module.Class): why it must have the machine to itself
ALONE = {
    # every recorder's tracefs uprobe group, machine-wide: the next record
    # must be the one that removes a killed recorder's (another recorder
    # starting anywhere removes it too) and doctor must list it meanwhile
    "test_killed_recorder": "reads every recorder's tracefs group",
    # doctor lists every killed recorder's tracefs group on the machine
    # (test_killed_recorder's, when beside it)
    "test_doctor": "lists the machine's tracefs leftovers",
    # an operator that only computes has all of the wall time as its
    # thread's CPU time (task-clock): a neighbour's CPU takes from that
    "test_counters": "an operator's CPU share of its wall time",
    # durations at full speed against ETDumpGen's, each side on one CPU
    "test_executorch_symbol_durations": "durations against ETDumpGen's",
    # the slow runs kept are those slower than a percentile of the others:
    # a neighbour's load makes more of them slow
    "test_long_recording": "runs kept by their speed",
}

# the longest classes first, so that none of them is the pool's tail
# (measured: tests/run.py prints the slowest tests); the rest in name order
FIRST = [
    "test_loss_property",
    "test_executorch_symbol_fallbacks",
    "test_executorch_late_symbols",
    "test_two_recorders",
    "test_kernel_fallbacks",
    "test_executorch_xnn_symbols",
    "test_one_trap",
]


def alone(class_id):
    module = class_id.split(".")[0]
    return module in ALONE or class_id in ALONE


def rank(class_id):
    module = class_id.split(".")[0]
    return FIRST.index(module) if module in FIRST else len(FIRST)


def split(class_ids):
    """(those run alone, those run side by side), each in starting order."""
    ordered = sorted(class_ids, key=rank)  # stable: name order kept
    return ([c for c in ordered if alone(c)],
            [c for c in ordered if not alone(c)])
