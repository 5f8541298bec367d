"""ExecuTorch's Inspector statistics in plain Python, for checking
`etdump-bpf report` independently of its C code: event blocks and each
event's p10..max from flatc's JSON of an ETDump (etdump_e2e.decode), by the
rules of ExecuTorch's devtools/inspector. numpy is not installed here, so its
percentile ("linear") and mean (pairwise summation) are written out.

rows(dump, unit) gives one dict per event, keyed like report --json.
"""
import statistics

MAX32 = 2**32 - 1
UNITS = {"ns": 1_000_000_000, "us": 1_000_000, "ms": 1000, "s": 1}
COUNTERS_MAGIC = b"etdump-bpf-counters:1;"


def percentile(values, pct):
    """numpy.percentile(values, pct), method "linear"."""
    s = sorted(values)
    vi = (len(s) - 1) * (pct / 100)
    if vi >= len(s) - 1:
        return s[-1]
    lo = int(vi)
    gamma = vi - lo
    diff = s[lo + 1] - s[lo]
    if gamma >= 0.5:
        return s[lo + 1] - diff * (1 - gamma)
    return s[lo] + diff * gamma


def _pairwise_sum(v):
    n = len(v)
    if n < 8:
        total = 0.0
        for x in v:
            total += x
        return total
    if n <= 128:
        r = list(v[:8])
        i = 8
        while i < n - n % 8:
            for j in range(8):
                r[j] += v[i + j]
            i += 8
        total = ((r[0] + r[1]) + (r[2] + r[3])) + \
            ((r[4] + r[5]) + (r[6] + r[7]))
        for x in v[i:]:
            total += x
        return total
    half = n // 2
    half -= half % 8
    return _pairwise_sum(v[:half]) + _pairwise_sum(v[half:])


def mean(values):
    """numpy.mean(values)."""
    return (0.0 + _pairwise_sum(list(values))) / len(values)


def elapsed(start, end):
    """Event._calculate_elapsed_time."""
    if start > end:
        if start > MAX32 or end > MAX32:
            raise ValueError(f"start {start} > end {end}, not a 32-bit wrap")
        return (MAX32 - start) + end
    return end - start


def _populated(event):
    for kind in ("profile_event", "debug_event"):
        if event.get(kind) is not None:
            return kind, event[kind]
    raise ValueError("Unable to find populated event")


def _is_output(debug_event):
    out = debug_event["debug_entry"].get("output")
    return out is not None and out["bool_val"]


def _part(e):
    """A Profile/DebugEventSignature."""
    return (e.get("name") or "",
            None if e["instruction_id"] == -1 else e["instruction_id"],
            None if e["delegate_debug_id_int"] == -1
            else e["delegate_debug_id_int"],
            e.get("delegate_debug_id_str") or None)


def _run_signatures(events):
    """{event signature: profile event or None}, as one run gives them."""
    groups = {}
    for event in events:
        kind, e = _populated(event)
        key = (e["instruction_id"], e["chain_index"],
               e["delegate_debug_id_int"], e.get("delegate_debug_id_str"))
        g = groups.setdefault(key, {"profile": None, "debug": None})
        if kind == "profile_event":
            g["profile"] = (g["profile"] or []) + [e]
        elif not _is_output(e):
            g["debug"] = (g["debug"] or []) + [e]
    sigs = {}
    for key, g in groups.items():
        if g["profile"] is None and g["debug"] is None:
            continue
        debug = _part(g["debug"][0]) if g["debug"] else None
        if g["profile"] is None:
            sigs[(key[0], None, debug)] = None
            continue
        for pe in g["profile"]:
            sigs[(key[0], _part(pe), debug)] = pe
    return sigs


def blocks(dump):
    """[(block name, runs, {event signature: [profile event per run]})]"""
    grouped = {}
    for run in dump["run_data"]:
        if run.get("events") is None:
            continue
        sigs = _run_signatures(run["events"])
        key = (run["name"], tuple(sigs), run["bundled_input_index"])
        block = grouped.setdefault(key, {"runs": 0, "events": {}})
        block["runs"] += 1
        for sig, pe in sigs.items():
            block["events"].setdefault(sig, []).append(pe)
    return [(key[0], b["runs"], b["events"]) for key, b in grouped.items()]


def _apply(row, part):
    """Event._populate_event_signature_fields."""
    if part is None:
        return
    name, _, dint, dstr = part
    ident = dint if dint is not None else (dstr or None)
    delegated = ident is not None
    shown = str(ident) if delegated else name
    if shown:
        row["event_name"] = shown
    row["delegate_debug_identifier"] = ident
    row["is_delegated_op"] = delegated


def _duration(pe, delegated, factor):
    if delegated:  # the default delegate converter, start and end apart
        return elapsed(pe["start_time"] / factor, pe["end_time"] / factor)
    return float(elapsed(pe["start_time"], pe["end_time"])) / factor


def parse_counters(pe):
    """{name: int or None} of an event's etdump-bpf counters, or {}."""
    data = bytes(pe.get("delegate_debug_metadata") or [])
    if not data.startswith(COUNTERS_MAGIC):
        return {}
    out = {}
    for item in data[len(COUNTERS_MAGIC):].decode("ascii").split(";"):
        name, _, value = item.partition("=")
        out[name] = None if value == "?" else int(value)
    return out


def counter_names(dump):
    for run in dump["run_data"]:
        for event in run.get("events") or []:
            pe = event.get("profile_event")
            if pe is not None and parse_counters(pe):
                return list(parse_counters(pe))
    return []


def rows(dump, unit="ms"):
    factor = UNITS["ns"] / UNITS[unit]
    names = counter_names(dump)
    out = []
    for index, (block, runs, events) in enumerate(blocks(dump)):
        for (_, psig, dsig), occ in events.items():
            row = {"event_block_name": block, "event_block_index": index,
                   "event_name": "", "runs": runs}
            _apply(row, psig)
            _apply(row, dsig)
            row["op_call"] = "OPERATOR_CALL" in row["event_name"]
            raw = None
            if psig is not None:
                delegated = psig[2] is not None or psig[3] is not None
                raw = [_duration(pe, delegated, factor) for pe in occ]
            stats = {
                "p10": lambda r: percentile(r, 10),
                "p50": lambda r: percentile(r, 50),
                "p90": lambda r: percentile(r, 90),
                "avg": mean, "min": min, "max": max,
            }
            for stat, fn in stats.items():
                row[f"{stat} ({unit})"] = fn(raw) if raw else None
            for name in names:
                values = [parse_counters(pe).get(name) for pe in occ if pe]
                values = [v for v in values if v is not None]
                row[f"{name}_p50"] = statistics.median(values) \
                    if values else None
                row[f"{name}_avg"] = statistics.fmean(values) \
                    if values else None
            out.append(row)
    return out
