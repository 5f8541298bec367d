"""make bench, row 8: what recording the values costs (record --values), on
the real ExecuTorch runtime with cnn.pte at debug level
intermediate_outputs (13 values, 5752 tensor bytes per execution), against
ExecuTorch's ETDumpGen logging the same values into its debug buffer.

  ours, per-scope, no values       record -p --precise --no-counters,
                                   the runner at debug level none
  ours, --values=0                 record -p --values=0 --no-counters, the
                                   runner at intermediate_outputs: each
                                   value's descriptor, none of its bytes
  ours, --values                   the same with every byte (--values)
  ETDumpGen, no values             build/executorch-runner-etdumpgen, level none
  ETDumpGen + values               the same at intermediate_outputs with a
                                   debug buffer holding every execution's

Times are the runner's CPU time per execution, as row 7 takes them (two
execution counts, the difference over the difference); our runner is held
while record attaches. Per value: (--values=0 - no values) / values; per
byte: (--values - --values=0) / bytes; ETDumpGen's per value, its bytes
included: (+ values - no values) / values, set beside ours with its bytes
((--values - no values) / values). The runner's time holds what the probes
cost it (the BPF copy runs in its context); the collector's work (the
DebugEvents, the debug buffer, the file) is in another process, not here.
"""
import os
import re

import bench_executorch as bx
import executorch_env as et

FEW, MANY = 200, 5200
VALUE_BYTES = 5824 * (MANY + 1)  # ETDumpGen's buffer: every execution's blobs


def variants(build, tmp):
    cli = os.path.join(build, "etdump-bpf")
    ours = os.path.join(build, "executorch-runner")
    gen = os.path.join(build, "executorch-runner-etdumpgen")
    model = et.model("cnn")
    out = os.path.join(tmp, "out.etdp")
    rec = [cli, "record", "-f", "-o", out, "--ring-size", "64M",
           "--no-counters"]

    def runner(binary, level, *extra):
        return lambda n: [binary, "--model_path", model, "--num_executions",
                          str(n), "--debug_level", level, *extra]

    def held(level, flags):
        return lambda n: bx.timed_held(runner(ours, level)(n), rec + flags)

    def whole(cmd):
        return lambda n: bx.timed(cmd(n))

    return [
        ("ours, per-scope, no values", held("none", ["--precise"])),
        ("ours, record --values=0 (descriptors only)",
         held("intermediate_outputs", ["--values=0"])),
        ("ours, record --values (every byte)",
         held("intermediate_outputs", ["--values"])),
        ("ETDumpGen, no values",
         whole(runner(gen, "none", "--etdump_path", out))),
        ("ETDumpGen + values (debug buffer)",
         whole(runner(gen, "intermediate_outputs", "--etdump_path", out,
                      "--debug_buffer_size", str(VALUE_BYTES)))),
    ]


def values_logged(stderr):
    m = re.search(r"values: (\d+) DebugEvents \((\d+) tensors, (\d+) bytes\)",
                  stderr)
    return (int(m.group(1)), int(m.group(3))) if m else None


def row_values(b, table, reps, log, median, fmt_ratio):
    ok, why = et.available()
    gen = os.path.join(b.dir, "executorch-runner-etdumpgen")
    if not ok or not os.path.exists(gen):
        raise RuntimeError("ExecuTorch not found: " +
                           (why or f"{gen} not built"))
    log("8. record --values on the real ExecuTorch runtime, cnn.pte")
    import tempfile
    with tempfile.TemporaryDirectory(prefix="etdump-bench-") as tmp:
        vs = variants(b.dir, tmp)
        per_exec = {label: [] for label, _ in vs}
        logged = None
        for rep in range(reps):
            for label, measure in vs:
                few, _ = measure(FEW)
                many, err = measure(MANY)
                per_exec[label].append((many - few) / (MANY - FEW))
                if "every byte" in label:
                    logged = values_logged(err)
            log(f"  repetition {rep + 1}/{reps} done")
    if not logged:
        raise RuntimeError("record --values logged no value")
    med = {k: median(v) * 1e9 for k, v in per_exec.items()}  # ns/exec
    values = logged[0] / MANY
    nbytes = logged[1] / MANY
    off, desc, full, gen_off, gen_on = (med[label] for label, _ in vs)
    per_value = (desc - off) / values
    per_byte = (full - desc) / nbytes
    ours_value = (full - off) / values
    gen_value = (gen_on - gen_off) / values
    table.section(f"8. record --values on cnn.pte: CPU time per execution "
                  f"= (T({MANY}) - T({FEW})) / {MANY - FEW}; {values:.0f} "
                  f"values and {nbytes:.0f} tensor bytes per execution")
    for label, _ in vs:
        table.add(label, f"{med[label] / 1000:.1f} us/exec", "", "")
    table.add("ours: per value (hook, descriptor, probe hit, record)",
              f"{per_value:.0f} ns/value", "", "--values=0 - no values")
    table.add("ours: per byte copied (BPF copy into the ring)",
              f"{per_byte:.2f} ns/byte", "",
              f"--values - --values=0; {per_byte * nbytes / values:.0f} "
              f"ns for this model's {nbytes / values:.0f}-byte average value")
    table.add("ours: per value, its bytes included", f"{ours_value:.0f} ns/value",
              fmt_ratio(ours_value / gen_value),
              f"ETDumpGen's: {gen_value:.0f} ns/value "
              f"(+ values - no values)")
