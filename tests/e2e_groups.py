"""Which end-to-end test classes may run beside others (tests/e2e_pool.py),
and in which order they start.

A class runs alone when what it asserts depends on more than its own
processes: the machine's tracefs, or the CPU time its processes get.
"""

# module (or module.Class): why it must have the machine to itself; they
# run first, in this order, before any other recording's probes are
# leaving (tests/run.py)
ALONE = {
    # durations at full speed against ETDumpGen's, each side on one CPU:
    # failed 2 runs in 3 beside others or after them (symbol mode 771-892
    # ns against ETDumpGen's 80), never first on a quiet machine
    "test_executorch_symbol_durations": "durations against ETDumpGen's",
    # an operator that only computes has all of the wall time as its
    # thread's CPU time (task-clock): a neighbour's CPU takes from that
    "test_counters": "an operator's CPU share of its wall time",
    # the slow runs kept are those slower than a percentile of the others:
    # a neighbour's load makes more of them slow
    "test_long_recording": "runs kept by their speed",
    # every recorder's tracefs uprobe group, machine-wide: the next record
    # must be the one that removes a killed recorder's (another recorder
    # starting anywhere removes it too) and doctor must list it meanwhile
    "test_killed_recorder": "reads every recorder's tracefs group",
    # doctor lists every killed recorder's tracefs group on the machine
    # (test_killed_recorder's, when beside it)
    "test_doctor": "lists the machine's tracefs leftovers",
    # 5.10's and 6.1's ways forced: a perf event a probe, which the kernel
    # makes and lets go one at a time under one machine-wide lock
    # (event_mutex); --duty's windows put them back each time, and beside
    # another class's recordings a window took 10 s and the ring filled
    "test_executorch_symbol_fallbacks": "a perf event a probe, and --duty",
}

# the longest classes first, so that none of them is the pool's tail
# (measured: tests/run.py prints the slowest tests); the rest in name order
FIRST = [
    "test_loss_property",
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


def alone_rank(class_id):
    names = list(ALONE)
    module = class_id.split(".")[0]
    return names.index(class_id if class_id in ALONE else module)


def split(class_ids):
    """(those run alone, those run side by side), each in starting order."""
    ordered = sorted(class_ids, key=rank)  # stable: name order kept
    return (sorted([c for c in ordered if alone(c)], key=alone_rank),
            [c for c in ordered if not alone(c)])
